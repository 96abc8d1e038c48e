package main

/*
#include <pthread.h>
#include <stdint.h>
#include "interlock.h"

static inline int il_capi_invoke_event_cb(il_event_cb cb, void *user, const char *json, size_t len) {
	return cb(user, json, len);
}

static inline uint64_t il_capi_thread_id(void) { return (uint64_t)(uintptr_t)pthread_self(); }
*/
import "C"

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/interlock-dev/interlock/engine"
)

// dispatcher delivers one engine's events to its C callback from one
// goroutine, in engine order, in batches: each callback call carries
// everything queued since the previous one, as one JSON array. The first
// event after a quiet period goes at once, alone; while the consumer is
// busy with a batch, events queue in the engine's feed (which merges text
// and progress deltas and keeps everything else), so a burst of thousands
// costs a handful of calls and a slow consumer costs bounded memory.
//
// A consumer that hands batches on to another thread (Node's thread-safe
// function) returns IL_EVENTS_HELD and calls il_engine_events_done when it
// is done with it: while it holds maxHeldBatches, the next batch waits for
// that, except while the engine closes (its closer may be the very thread
// that would call done).
//
// Every state event, task-loop events and terminal run events with their
// run id and result included, comes from the engine. The only items this
// layer adds (enqueue) are calls into JS of the host's tools (host.go),
// in the same feed so that they keep engine order.
type dispatcher struct {
	feed     *engine.Feed
	reportTo func(msg string) // records a recovered panic as the engine's last error

	// cbMu is held across every callback call, so unregistering (which
	// takes it) waits until no call is in progress.
	cbMu     sync.Mutex
	cb       C.il_event_cb
	cbUser   unsafe.Pointer
	cbThread atomic.Uint64 // OS thread running the callback, 0 when none
	hasCb    atomic.Bool   // a callback is registered: skip encoding when not
	format   atomic.Int32  // IL_EVENTS_JSON_ARRAY or IL_EVENTS_RECORDS, maybe | IL_EVENTS_FROM_CALLS

	done          chan struct{} // il_engine_events_done: a held batch was delivered
	cbChanged     atomic.Bool   // the callback changed: its held batches will never be done
	producersDone chan struct{} // closed once nothing will be added any more
	exited        chan struct{}

	// deliverMu is held while taking a batch from the feed and handing it
	// to the callback: by the dispatcher goroutine, or by a call from the
	// consumer's thread that has just caused events (deliverNow), so that
	// batches keep engine order whoever delivers them.
	deliverMu sync.Mutex
	held      int          // batches held by the consumer
	stopped   bool         // the dispatcher has delivered its last batch
	batch     bytes.Buffer // the encoding of the batch being delivered
	records   bool         // it is IL_EVENTS_RECORDS (else a JSON array)
	encoded   int          // items in it
	inParts   bool         // a large batch goes in parts (the dispatcher goroutine: it may wait for room)
}

func newDispatcher(e *engine.Engine, reportTo func(string)) *dispatcher {
	d := &dispatcher{
		feed:          e.NewFeed(),
		reportTo:      reportTo,
		done:          make(chan struct{}, maxHeldBatches+1),
		producersDone: make(chan struct{}),
		exited:        make(chan struct{}),
	}
	go d.run()
	return d
}

// setCallback registers cb (nil unregisters) and waits until no call of
// the previous one is in progress.
func (d *dispatcher) setCallback(cb C.il_event_cb, user unsafe.Pointer) error {
	if d.inCallback() {
		return errorf(C.IL_ERR_INVALID_ARGUMENT, "called from inside the event callback, which would wait for itself: change the callback from another thread")
	}
	d.cbMu.Lock()
	defer d.cbMu.Unlock()
	d.cb, d.cbUser = cb, user
	d.hasCb.Store(cb != nil)
	d.cbChanged.Store(true) // batches held by the previous callback will never be done
	d.batchDone()
	return nil
}

// maxHeldBatches is how many batches a consumer may hold at once. Two,
// not one: a batch made while the consumer has not yet started on the
// previous one is handed over at once, so it is delivered in the same turn
// of the consumer's loop instead of waiting a whole turn for the previous
// one's done (a pause raised right after an answer's events were sent).
// Beyond that, events wait and deltas merge.
const maxHeldBatches = 2

// batchDone ends a hold (see dispatcher): il_engine_events_done.
func (d *dispatcher) batchDone() {
	select {
	case d.done <- struct{}{}:
	default:
	}
}

// inCallback reports whether the calling thread is running the callback:
// then waiting for the callback to return would wait for ever.
func (d *dispatcher) inCallback() bool {
	t := d.cbThread.Load()
	return t != 0 && t == uint64(C.il_capi_thread_id())
}

// enqueue adds an item made by this layer (a call into JS) after
// everything queued so far.
func (d *dispatcher) enqueue(v any) {
	b, err := engine.AppendWireJSON(nil, v)
	if err != nil {
		d.reportTo(fmt.Sprintf("event callback: encoding %T as JSON: %v (dropped)", v, err))
		return
	}
	d.feed.Add(json.RawMessage(b))
}

// close waits until every event was delivered and the dispatcher stopped.
// The engine must be closed (its feed ends).
func (d *dispatcher) close() {
	close(d.producersDone)
	<-d.exited
	d.feed.Close()
}

func (d *dispatcher) run() {
	defer close(d.exited)
	for {
		if err := d.feed.Wait(context.Background()); err != nil { // the engine closed and everything was taken
			<-d.producersDone
			d.deliverMu.Lock()
			d.takeQueued(true) // what was added meanwhile
			d.stopped = true
			d.deliverMu.Unlock()
			return
		}
		d.deliverMu.Lock()
		d.takeQueued(true)
		d.deliverMu.Unlock()
		d.waitForRoom()
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
func (d *dispatcher) takeQueued(inParts bool) {
	defer func() {
		if p := recover(); p != nil {
			d.reportTo(fmt.Sprintf("event dispatcher: internal error (panic: %v); events may have been lost. This is a bug in libinterlock %s: please report it", p, version))
		}
	}()
	d.inParts = inParts
	d.beginBatch()
	if d.feed.Take(takeNow, d.addToBatch) != nil {
		return
	}
	d.deliverBatch()
	if d.batch.Cap() > keptBatchBytes { // a burst is over: don't keep its memory
		d.batch = bytes.Buffer{}
	}
}

// deliverNow delivers what is queued at once, on the calling thread, if
// the dispatcher is not delivering and the consumer has room: for a call
// from the consumer's own thread that has just caused events (a signal),
// so that they do not wait for the dispatcher goroutine to be woken on
// another thread first. Never waits. Not after a call that wakes a run
// (an answer, an interrupt): the run's goroutine is then queued on the
// calling thread's P, and delivering first made it wait (a confirm's tool
// continued after 50-70 us instead of 15-21 at the median).
func (d *dispatcher) deliverNow() {
	if d.format.Load()&C.IL_EVENTS_FROM_CALLS == 0 || !d.hasCb.Load() || d.feed.Pending() == 0 || !d.deliverMu.TryLock() {
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

// waitForRoom waits while the consumer holds maxHeldBatches (see
// dispatcher), except while the engine closes.
func (d *dispatcher) waitForRoom() {
	for {
		d.deliverMu.Lock()
		d.takeDones()
		full := d.held >= maxHeldBatches
		d.deliverMu.Unlock()
		if !full {
			return
		}
		select {
		case <-d.done:
			d.deliverMu.Lock()
			d.held = max(d.held-1, 0)
			d.deliverMu.Unlock()
		case <-d.producersDone: // closing: the closer may be the consumer's thread
			d.deliverMu.Lock()
			d.held = 0
			d.deliverMu.Unlock()
			return
		}
	}
}

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

// deliverBatch hands the batch encoded so far to the callback, if it holds
// anything, counting it if the callback holds it (deliverMu held).
func (d *dispatcher) deliverBatch() {
	if b := d.endBatch(); b != nil && d.hasCb.Load() {
		d.takeDones()
		if d.deliver(b) == C.IL_EVENTS_HELD {
			d.held++
		}
	}
}

// nextPart hands over a batch that has grown to batchPartBytes and starts
// the next, once the consumer has room (deliverMu held).
func (d *dispatcher) nextPart() {
	d.deliverBatch()
	for d.held >= maxHeldBatches {
		select {
		case <-d.done:
			d.held--
		case <-d.producersDone: // closing: the closer may be the consumer's thread
			d.held = 0
		}
	}
	d.beginBatch()
}

// takeDones counts the holds ended so far, without waiting (deliverMu
// held).
func (d *dispatcher) takeDones() {
	if d.cbChanged.Swap(false) { // the holds were the previous callback's
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

// beginBatch starts encoding a batch in the registered format: a JSON
// array, or records (IL_EVENTS_RECORDS).
func (d *dispatcher) beginBatch() {
	d.batch.Reset()
	d.encoded = 0
	d.records = d.format.Load()&^C.IL_EVENTS_FROM_CALLS == C.IL_EVENTS_RECORDS
	if !d.records {
		d.batch.WriteByte('[')
	}
}

// addToBatch encodes items at the end of the batch (nothing when no
// callback is registered: they are dropped).
func (d *dispatcher) addToBatch(items []engine.FeedItem) {
	if !d.hasCb.Load() {
		return
	}
	if d.records {
		d.addRecords(items)
		return
	}
	buf := &d.batch
	for i := range items {
		it := &items[i]
		mark := buf.Len()
		if d.encoded > 0 {
			buf.WriteByte(',')
		}
		if raw, ok := it.Extra.(json.RawMessage); ok {
			buf.Write(raw)
		} else if b, err := engine.AppendWireEvent(buf.AvailableBuffer(), &it.Event); err != nil {
			buf.Truncate(mark)
			d.reportTo(fmt.Sprintf("event callback: encoding a %s event of session %s as JSON: %v (event dropped)", it.Event.Type, it.Event.Session, err))
			continue
		} else {
			buf.Write(b)
		}
		d.encoded++
		if d.inParts && buf.Len() >= batchPartBytes {
			d.nextPart()
		}
	}
}

// endBatch returns the batch, NUL-terminated (the NUL not counted in a C
// len); nil when it holds nothing.
func (d *dispatcher) endBatch() []byte {
	if d.encoded == 0 {
		return nil
	}
	if !d.records {
		d.batch.WriteByte(']')
	}
	d.batch.WriteByte(0)
	return d.batch.Bytes()
}

// addRecords writes IL_EVENTS_RECORDS: one line per item, "<type>
// <pause> <json>\n" for a session event with camelCase keys (the JS
// surface: the consumer parses only the types it has listeners for, and
// renames nothing; <pause> is the session's current pause, see
// writePauseToken, so that it knows which pause an answer is for without
// parsing), and
// "* <json>\n" for anything else: task-loop events in the engine's wire
// format, host messages. JSON never holds a raw newline.
func (d *dispatcher) addRecords(items []engine.FeedItem) {
	buf := &d.batch
	for i := range items {
		it := &items[i]
		switch raw, ok := it.Extra.(json.RawMessage); {
		case ok:
			buf.WriteString("* ")
			buf.Write(raw)
		case it.Event.Loop != nil:
			mark := buf.Len()
			buf.WriteString("* ")
			b, err := engine.AppendWireEvent(buf.AvailableBuffer(), &it.Event)
			if err != nil {
				buf.Truncate(mark)
				d.reportTo(fmt.Sprintf("event callback: encoding a %s event of task loop %s as JSON: %v (event dropped)", it.Event.Loop.Type, it.Event.Loop.Loop, err))
				continue
			}
			buf.Write(b)
		default:
			buf.WriteString(string(it.Event.Type))
			buf.WriteByte(' ')
			writePauseToken(buf, it.Event.Pause)
			buf.WriteByte(' ')
			b, _ := engine.AppendWireEvent(buf.AvailableBuffer(), &it.Event) // a session event always encodes
			buf.Write(b)
		}
		buf.WriteByte('\n')
		d.encoded++
		if d.inParts && buf.Len() >= batchPartBytes {
			d.nextPart()
		}
	}
}

// writePauseToken writes the session's current pause after an event as a
// record's second field: "<kind>/<id>", "-" when none, "?" when the id
// holds a space or a newline (engine ids never do: "p3").
func writePauseToken(buf *bytes.Buffer, p *engine.Pause) {
	switch {
	case p == nil:
		buf.WriteByte('-')
	case strings.ContainsAny(p.ID, " \n") || p.ID == "":
		buf.WriteByte('?')
	default:
		buf.WriteString(string(p.Kind))
		buf.WriteByte('/')
		buf.WriteString(p.ID)
	}
}

// deliver calls the callback, if one is registered, holding cbMu, and
// returns what it returned (0 when none is registered).
func (d *dispatcher) deliver(b []byte) C.int {
	d.cbMu.Lock()
	defer d.cbMu.Unlock()
	if d.cb == nil {
		return 0
	}
	// Pin the goroutine so the thread recorded is the one that calls.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	d.cbThread.Store(uint64(C.il_capi_thread_id()))
	defer d.cbThread.Store(0)
	return C.il_capi_invoke_event_cb(d.cb, d.cbUser, (*C.char)(unsafe.Pointer(&b[0])), C.size_t(len(b)-1))
}

//export il_engine_set_event_callback
func il_engine_set_event_callback(h C.il_handle, cb C.il_event_cb, user unsafe.Pointer) C.il_status {
	return call("il_engine_set_event_callback", h, func(ee *engineEntry) error {
		return ee.events.setCallback(cb, user)
	})
}

//export il_engine_set_event_format
func il_engine_set_event_format(h C.il_handle, format C.int32_t) C.il_status {
	return call("il_engine_set_event_format", h, func(ee *engineEntry) error {
		switch format &^ C.IL_EVENTS_FROM_CALLS {
		case C.IL_EVENTS_JSON_ARRAY, C.IL_EVENTS_RECORDS:
			ee.events.format.Store(int32(format))
			return nil
		}
		return errorf(C.IL_ERR_INVALID_ARGUMENT, "event format %d is unknown: pass IL_EVENTS_JSON_ARRAY (0) or IL_EVENTS_RECORDS (1), optionally or'ed with IL_EVENTS_FROM_CALLS (0x100)", int32(format))
	})
}

//export il_engine_events_done
func il_engine_events_done(h C.il_handle) C.il_status {
	return call("il_engine_events_done", h, func(ee *engineEntry) error {
		ee.events.batchDone()
		return nil
	})
}
