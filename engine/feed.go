package engine

import (
	"context"
	"sync"
	"unicode/utf8"
)

// Feed reads every session's events in engine order and never loses one
// that carries a decision or a state change: only text and tool-progress
// deltas are merged, and only while the reader has not taken them yet.
// Publishing appends under a lock and never waits for the reader, so a slow
// reader never slows the engine; what it costs in memory is the decision
// events it has not taken (one per pause, tool call, run end...) plus at
// most one pending delta per session between two of them — bounded by the
// work done, never by the size of the output.
//
// Take hands over everything queued at once: a reader that delivers in
// batches gets one batch per call, and an event published while the reader
// waits is handed over at once (batching merges only what is already
// queued). The queue grows by blocks of feedBlock items and never copies
// what it holds: a burst of 60,000 events (10,000 runs approved at once)
// costs no growing slice and no garbage beyond its blocks, which are
// reused.
//
// The owner of a feed may add its own items (Add) in the same order.
type Feed struct {
	eng      *Engine
	delivery *Delivery // the Delivery reading it, if any

	mu sync.Mutex
	// blocks hold the queued items in order; each but the last is full.
	blocks [][]FeedItem
	queued int
	spare  [][]FeedItem // emptied blocks kept for reuse (keptFeedBlocks)
	// last holds, per session with items queued, its last item, to merge a
	// delta into the previous one of the same kind.
	last    map[string]*FeedItem
	wake    chan struct{} // closed when an item arrives; nil when nobody waits
	closed  bool          // Close was called
	ended   bool          // the engine closed: nothing more will come
	removed bool          // no longer registered with the engine
}

// FeedItem is one entry of a Feed: an engine event, or (Extra != nil) an
// item the feed's owner added with Add.
type FeedItem struct {
	Event Event
	Extra any

	text []byte // the merged text of a delta while it is queued
}

// maxMergedText caps the text of a merged delta: beyond it only the newest
// text is kept (Coalesced still counts every merged delta).
const maxMergedText = 64 << 10

// feedBlock is how many items one block of a feed's queue holds (40 KiB).
const feedBlock = 128

// keptFeedBlocks is how many emptied blocks a feed keeps for reuse between
// reads (1,024 items); a larger burst's memory is given back.
const keptFeedBlocks = 8

// keptFeedSessions is the size of the last-item map kept between reads.
const keptFeedSessions = 1024

// Coalescable reports whether events of this type are deltas that a reader
// which fell behind may get merged (text and tool-progress chunks). Every
// other type is delivered one by one.
func (t EventType) Coalescable() bool {
	return t == EventText || t == EventToolProgress
}

// NewFeed returns a feed of every event published from now on. Close it
// when done; it also ends (after the queued items) when the engine closes.
func (e *Engine) NewFeed() *Feed { return e.newFeed(nil) }

func (e *Engine) newFeed(d *Delivery) *Feed {
	f := &Feed{eng: e, delivery: d, last: map[string]*FeedItem{}}
	e.feedMu.Lock()
	defer e.feedMu.Unlock()
	if e.feedsEnded {
		f.ended = true
		return f
	}
	var feeds []*Feed
	if fl := e.feeds.Load(); fl != nil {
		feeds = append(feeds, fl.list...)
	}
	e.feeds.Store(&feedList{list: append(feeds, f)})
	return f
}

// feedList is the engine's feeds, replaced as a whole on change so that
// publishing reads it without a lock.
type feedList struct{ list []*Feed }

// publishFeeds hands a copy of ev to every feed. Called with the session's
// lock held.
func (e *Engine) publishFeeds(ev *Event) {
	if fl := e.feeds.Load(); fl != nil {
		for _, f := range fl.list {
			f.publish(ev)
		}
	}
}

// endFeeds marks every feed ended: readers get what is queued, then
// ErrSubscriptionClosed.
func (e *Engine) endFeeds() {
	e.feedMu.Lock()
	defer e.feedMu.Unlock()
	e.feedsEnded = true
	fl := e.feeds.Load()
	e.feeds.Store(nil)
	if fl == nil {
		return
	}
	for _, f := range fl.list {
		f.mu.Lock()
		f.ended = true
		f.wakeLocked()
		f.mu.Unlock()
	}
}

func (f *Feed) publish(ev *Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed || f.ended {
		return
	}
	delta := ev.Type.Coalescable()
	if delta {
		if it, ok := f.last[ev.Session]; ok && it.Extra == nil && it.Event.Version+1 == ev.Version && mergeable(&it.Event, ev) {
			it.merge(*ev)
			f.eng.coalesced.Add(1)
			return
		}
	}
	it := f.appendLocked()
	it.Event = *ev
	// A session's events carry consecutive versions, so the item kept for
	// its session is its previous event only when the versions follow: the
	// other events need no entry (one map write less for most events). A
	// task loop's events carry none of the session's versions and keep one.
	if delta || ev.Version == 0 {
		f.last[ev.Session] = it
	}
	f.wakeLocked()
}

// appendLocked returns a new zero item at the end of the queue.
func (f *Feed) appendLocked() *FeedItem {
	n := len(f.blocks)
	if n == 0 || len(f.blocks[n-1]) == feedBlock {
		var b []FeedItem
		if k := len(f.spare); k > 0 {
			b, f.spare = f.spare[k-1], f.spare[:k-1]
		} else {
			b = make([]FeedItem, 0, feedBlock)
		}
		f.blocks = append(f.blocks, b)
		n++
	}
	b := &f.blocks[n-1]
	*b = (*b)[:len(*b)+1]
	f.queued++
	return &(*b)[len(*b)-1]
}

func mergeable(prev, next *Event) bool {
	return prev.Type == next.Type && prev.CallID == next.CallID && prev.Tool == next.Tool && prev.Step == next.Step
}

// merge folds the delta next into it: next's state, the count of deltas
// merged, and the text of both, kept in a buffer that grows by appending
// (amortized: a flood of tiny chunks must not copy the kept text each
// time) and is cut to the newest maxMergedText bytes when taken.
func (it *FeedItem) merge(next Event) {
	if it.text == nil {
		it.text = append(make([]byte, 0, 2*len(it.Event.Text)+len(next.Text)), it.Event.Text...)
	}
	it.text = append(it.text, next.Text...)
	if len(it.text) > 2*maxMergedText {
		it.text = append(it.text[:0], it.text[len(it.text)-maxMergedText:]...)
	}
	next.Coalesced = it.Event.Coalesced + 1
	next.Text = ""
	it.Event = next
}

// settle sets the text of a merged delta from its buffer.
func (it *FeedItem) settle() {
	if it.text == nil {
		return
	}
	text := it.text
	if len(text) > maxMergedText {
		text = text[len(text)-maxMergedText:]
		for len(text) > 0 && !utf8.RuneStart(text[0]) { // don't start inside a character
			text = text[1:]
		}
	}
	it.Event.Text = string(text)
	it.text = nil
}

// Add queues an item of the feed's owner after every event published so
// far. It is dropped once the feed is closed.
func (f *Feed) Add(extra any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	f.appendLocked().Extra = extra
	clear(f.last) // no delta merges across it: that would move the delta before it
	f.wakeLocked()
}

func (f *Feed) wakeLocked() {
	if f.wake != nil {
		close(f.wake)
		f.wake = nil
	}
}

// Take waits until something is queued, then calls fn with everything
// queued, in order, one block at a time (the items belong to the feed:
// fn must not keep them). It returns ErrSubscriptionClosed after Close, or
// once the engine has closed and everything was taken; ctx's error when
// ctx ends first (Take with a context already done takes what is queued
// without waiting). One reader at a time.
func (f *Feed) Take(ctx context.Context, fn func(items []FeedItem)) error {
	for {
		if err := f.Wait(ctx); err != nil {
			return err
		}
		f.mu.Lock()
		if f.closed {
			f.mu.Unlock()
			return ErrSubscriptionClosed
		}
		if f.queued == 0 { // another reader took them
			f.mu.Unlock()
			continue
		}
		blocks := f.blocks
		f.blocks, f.queued = nil, 0
		if len(f.last) > keptFeedSessions {
			f.last = map[string]*FeedItem{}
		}
		clear(f.last)
		f.mu.Unlock()
		for _, b := range blocks {
			for i := range b {
				b[i].settle()
			}
			fn(b)
		}
		f.recycle(blocks)
		return nil
	}
}

// recycle keeps up to keptFeedBlocks of blocks taken for the next items,
// emptied so that they hold no references.
func (f *Feed) recycle(blocks [][]FeedItem) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, b := range blocks {
		if len(f.spare) == keptFeedBlocks || f.closed {
			return
		}
		clear(b)
		f.spare = append(f.spare, b[:0])
	}
}

// Wait waits until an item is queued, without taking it (a reader that
// takes under a lock of its own, shared with another taker, waits here
// first). It returns ErrSubscriptionClosed after Close or once the engine
// has closed and nothing is queued; ctx's error when ctx ends first.
func (f *Feed) Wait(ctx context.Context) error {
	for {
		f.mu.Lock()
		switch {
		case f.closed:
			f.mu.Unlock()
			return ErrSubscriptionClosed
		case f.queued > 0:
			f.mu.Unlock()
			return nil
		case f.ended:
			f.mu.Unlock()
			return ErrSubscriptionClosed
		}
		if f.wake == nil {
			f.wake = make(chan struct{})
		}
		wake := f.wake
		f.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Pending returns how many items are queued.
func (f *Feed) Pending() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.queued
}

// Close ends the feed: a Next in progress returns ErrSubscriptionClosed and
// the queued items are dropped. Safe to call twice.
func (f *Feed) Close() {
	f.mu.Lock()
	f.closed = true
	f.blocks, f.spare, f.queued, f.last = nil, nil, 0, nil
	f.wakeLocked()
	removed := f.removed
	f.removed = true
	f.mu.Unlock()
	if removed {
		return
	}
	e := f.eng
	e.feedMu.Lock()
	defer e.feedMu.Unlock()
	fl := e.feeds.Load()
	if fl == nil {
		return
	}
	var keep []*Feed
	for _, g := range fl.list {
		if g != f {
			keep = append(keep, g)
		}
	}
	e.feeds.Store(&feedList{list: keep})
}
