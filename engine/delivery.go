package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
)

// Delivery hands every event of the engine, in engine order, to one
// consumer that is not Go (the C library's event callback, and through it
// JavaScript) in ready-to-send batches: each batch is a JSON array of
// events in the wire format (AppendWireEvent). It reads a Feed from a
// goroutine of its own.
//
// Batching: each batch carries everything queued since the previous one.
// The first event after a quiet period goes at once, alone; while the
// consumer is busy with a batch, events queue in the feed (which merges
// text and progress deltas and keeps everything else), so a burst of
// thousands costs a handful of batches and a slow consumer costs bounded
// memory. A burst beyond batchPartBytes goes in parts of about that size.
//
// Flow control: a sink that hands batches on to another thread (Node's
// thread-safe function) returns true ("held") and calls Done when that
// thread is done with it: while it holds maxHeldBatches, the next batch
// waits for a Done, except once Close was called (the closer may be the
// very thread that would call Done).
//
// A Signal's events are handed to the sink from inside Session.Signal, on
// the caller's goroutine, when the sink has room and no batch is being
// delivered: a consumer whose sink only queues (Node's) then gets them
// without waiting for this goroutine to be woken on another thread.
type Delivery struct {
	feed    *Feed
	onError func(error) // a recovered panic or an event that did not encode

	// sinkMu is held across every sink call, so that SetSink (which takes
	// it) waits until no call of the previous sink is in progress.
	sinkMu      sync.Mutex
	sink        func(batch []byte) (held bool)
	hasSink     atomic.Bool   // a sink is set: skip encoding when not
	sinkChanged atomic.Bool   // the sink changed: its held batches will never be done
	done        chan struct{} // Done: a held batch was delivered
	closing     chan struct{} // closed by Close: nothing will be added any more
	exited      chan struct{}

	// deliverMu is held while taking a batch from the feed and handing it
	// to the sink: by the delivery goroutine, or by Session.Signal's caller
	// (deliverQueued), so that batches keep engine order whoever delivers
	// them.
	deliverMu sync.Mutex
	held      int    // batches held by the consumer
	stopped   bool   // the last batch was delivered
	batch     []byte // the batch being encoded
	encoded   int    // items in it
	inParts   bool   // a large batch goes in parts (the delivery goroutine: it may wait for room)
}

// maxHeldBatches is how many batches a consumer may hold at once. Two,
// not one: a batch made while the consumer has not yet started on the
// previous one is handed over at once, so it is delivered in the same turn
// of the consumer's loop instead of waiting a whole turn for the previous
// one's Done (a pause raised right after an answer's events were sent).
// Beyond that, events wait and deltas merge.
const maxHeldBatches = 2

// batchPartBytes is the size beyond which a batch goes in parts: a burst
// (10,000 runs approved at once: 40,000 events, ~10 MB) is encoded into one
// buffer of this size reused, not into one that grows by copying to the
// whole burst, and the consumer starts on its first part while the rest is
// encoded. Parts keep engine order: each is handed over after the one
// before it, within the consumer's holds.
const batchPartBytes = 256 << 10

// keptBatchBytes is the largest batch buffer kept for reuse: a part and
// the item that filled it.
const keptBatchBytes = 2 * batchPartBytes

// NewDelivery starts delivering every event published from now on. Until
// SetSink gives it a sink, events are dropped. onError (may be nil) hears
// of events that could not be delivered. Call Close once the engine is
// closed and nothing more is added to its Feed.
func (e *Engine) NewDelivery(onError func(error)) *Delivery {
	d := &Delivery{
		onError: onError,
		done:    make(chan struct{}, maxHeldBatches+1),
		closing: make(chan struct{}),
		exited:  make(chan struct{}),
	}
	d.feed = e.newFeed(d)
	go d.run()
	return d
}

// SetSink makes sink (nil: none) the receiver of the next batches, once
// no call of the previous one is in progress: it waits for that call, so it
// must not be called from inside the sink. The batch passed to sink is
// valid only during the call, and is followed in memory by a 0 byte
// (batch[:len(batch)+1]), so that C can read it as a string. Batches held
// by the previous sink count no more.
func (d *Delivery) SetSink(sink func(batch []byte) (held bool)) {
	d.sinkMu.Lock()
	defer d.sinkMu.Unlock()
	d.sink = sink
	d.hasSink.Store(sink != nil)
	d.sinkChanged.Store(true)
	d.Done() // wakes a delivery waiting for the previous sink's Done
}

// Done tells that the consumer is done with a batch its sink held: the
// next may come. Safe from any goroutine.
func (d *Delivery) Done() {
	select {
	case d.done <- struct{}{}:
	default:
	}
}

// Feed is the feed the delivery reads: an item its owner adds there
// (Feed.Add) as json.RawMessage goes out as it is, in engine order.
func (d *Delivery) Feed() *Feed { return d.feed }

// Close waits until every event was delivered and the delivery stopped.
// Call it once the engine is closed and nothing more will be added.
func (d *Delivery) Close() {
	select {
	case <-d.closing:
	default:
		close(d.closing)
	}
	<-d.exited
	d.feed.Close()
}

func (d *Delivery) fail(err error) {
	if d.onError != nil {
		d.onError(err)
	}
}

func (d *Delivery) run() {
	defer close(d.exited)
	for {
		if err := d.feed.Wait(context.Background()); err != nil { // the engine closed and everything was taken
			<-d.closing
			d.deliverMu.Lock()
			d.takeQueued(true) // what was added meanwhile
			d.stopped = true
			d.deliverMu.Unlock()
			return
		}
		d.deliverMu.Lock()
		d.takeDones()
		if d.held >= maxHeldBatches {
			d.deliverMu.Unlock()
			d.waitForDone()
			continue
		}
		d.takeQueued(true)
		d.deliverMu.Unlock()
	}
}

// waitForDone waits for a Done, or for Close: the closer may be the
// consumer's thread, so from then on holds count no more.
func (d *Delivery) waitForDone() {
	select {
	case <-d.done:
		d.deliverMu.Lock()
		d.held = max(d.held-1, 0)
		d.deliverMu.Unlock()
	case <-d.closing:
		d.deliverMu.Lock()
		d.held = 0
		d.deliverMu.Unlock()
	}
}

// takeNow is a context already done: Feed.Take with it takes what is
// queued without waiting.
var takeNow = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// takeQueued delivers everything queued as one batch, or, inParts (the
// caller may wait for the consumer), as batches of about batchPartBytes.
// Call it with deliverMu held.
func (d *Delivery) takeQueued(inParts bool) {
	defer func() {
		if p := recover(); p != nil {
			d.fail(fmt.Errorf("event delivery: internal error (panic: %v); events may have been lost. This is a bug in the engine: please report it", p))
		}
	}()
	d.inParts = inParts
	d.beginBatch()
	if d.feed.Take(takeNow, d.addToBatch) != nil {
		return
	}
	d.deliverBatch()
	if cap(d.batch) > keptBatchBytes { // a burst is over: don't keep its memory
		d.batch = nil
	}
}

// deliverQueued delivers what is queued at once, on the calling goroutine,
// if no batch is being delivered and the consumer has room: for a call that
// has just caused events (Session.Signal), so that they do not wait for the
// delivery goroutine to be woken on another thread first. Never waits. Not
// after a call that wakes a run (an answer, an interrupt): the run's
// goroutine is then queued on the caller's P, and delivering first made it
// wait (a confirm's tool continued after 50-70 us instead of 15-21 at the
// median).
func (d *Delivery) deliverQueued() {
	if !d.hasSink.Load() || d.feed.Pending() == 0 || !d.deliverMu.TryLock() {
		return
	}
	defer d.deliverMu.Unlock()
	if d.stopped {
		return
	}
	d.takeDones()
	if d.held < maxHeldBatches {
		d.takeQueued(false)
	}
}

// deliverBatch hands the batch encoded so far to the sink, if it holds
// anything, counting it if the sink holds it (deliverMu held).
func (d *Delivery) deliverBatch() {
	if d.encoded == 0 || !d.hasSink.Load() {
		return
	}
	d.batch = append(d.batch, ']', 0)
	d.takeDones()
	if d.deliver(d.batch[:len(d.batch)-1]) {
		d.held++
	}
}

// deliver calls the sink, if one is set, holding sinkMu, and returns
// whether it holds the batch.
func (d *Delivery) deliver(b []byte) bool {
	d.sinkMu.Lock()
	defer d.sinkMu.Unlock()
	return d.sink != nil && d.sink(b)
}

// nextPart hands over a batch that has grown to batchPartBytes and starts
// the next, once the consumer has room (deliverMu held).
func (d *Delivery) nextPart() {
	d.deliverBatch()
	for d.held >= maxHeldBatches {
		select {
		case <-d.done:
			d.held--
		case <-d.closing: // the closer may be the consumer's thread
			d.held = 0
		}
	}
	d.beginBatch()
}

// takeDones counts the holds ended so far, without waiting (deliverMu
// held).
func (d *Delivery) takeDones() {
	if d.sinkChanged.Swap(false) { // the holds were the previous sink's
		d.held = 0
	}
	for {
		select {
		case <-d.done:
			d.held = max(d.held-1, 0)
		default:
			return
		}
	}
}

func (d *Delivery) beginBatch() {
	d.batch = append(d.batch[:0], '[')
	d.encoded = 0
}

// addToBatch encodes items at the end of the batch (nothing when no sink
// is set: they are dropped).
func (d *Delivery) addToBatch(items []FeedItem) {
	if !d.hasSink.Load() {
		return
	}
	for i := range items {
		it := &items[i]
		mark := len(d.batch)
		if d.encoded > 0 {
			d.batch = append(d.batch, ',')
		}
		if raw, ok := it.Extra.(json.RawMessage); ok {
			d.batch = append(d.batch, raw...)
		} else if b, err := AppendWireEvent(d.batch, &it.Event); err != nil {
			d.batch = d.batch[:mark]
			d.fail(fmt.Errorf("event delivery: encoding a %s event of session %s as JSON: %w (event dropped)", it.Event.Type, it.Event.Session, err))
			continue
		} else {
			d.batch = b
		}
		d.encoded++
		if d.inParts && len(d.batch) >= batchPartBytes {
			d.nextPart()
		}
	}
}

// deliverCaused delivers the events a call has just caused on the calling
// goroutine (see Delivery).
func (e *Engine) deliverCaused() {
	if fl := e.feeds.Load(); fl != nil {
		for _, f := range fl.list {
			if f.delivery != nil {
				f.delivery.deliverQueued()
			}
		}
	}
}
