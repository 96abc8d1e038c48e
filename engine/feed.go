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
// Next hands over everything queued at once: a reader that delivers in
// batches gets one batch per call, and an event published while the reader
// waits is returned at once (batching merges only what is already queued).
//
// The owner of a feed may add its own items (Add) in the same order.
type Feed struct {
	eng *Engine

	mu    sync.Mutex
	items []FeedItem
	// last holds, per session with items queued, the index of its last
	// item, to merge a delta into the previous one of the same kind.
	last    map[string]int
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

// keptFeedCap is the most items whose memory a feed keeps for reuse
// between reads; a larger burst's memory is given back.
const keptFeedCap = 1024

// Coalescable reports whether events of this type are deltas that a reader
// which fell behind may get merged (text and tool-progress chunks). Every
// other type is delivered one by one.
func (t EventType) Coalescable() bool {
	return t == EventText || t == EventToolProgress
}

// NewFeed returns a feed of every event published from now on. Close it
// when done; it also ends (after the queued items) when the engine closes.
func (e *Engine) NewFeed() *Feed {
	f := &Feed{eng: e, last: map[string]int{}}
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

// publishFeeds hands ev to every feed. Called with the session's lock held.
func (e *Engine) publishFeeds(ev Event) {
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

func (f *Feed) publish(ev Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed || f.ended {
		return
	}
	if ev.Type.Coalescable() {
		if i, ok := f.last[ev.Session]; ok && f.items[i].Extra == nil && mergeable(f.items[i].Event, ev) {
			f.items[i].merge(ev)
			f.eng.coalesced.Add(1)
			return
		}
	}
	f.last[ev.Session] = len(f.items)
	f.items = append(f.items, FeedItem{Event: ev})
	f.wakeLocked()
}

func mergeable(prev, next Event) bool {
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
	f.items = append(f.items, FeedItem{Extra: extra})
	clear(f.last) // no delta merges across it: that would move the delta before it
	f.wakeLocked()
}

func (f *Feed) wakeLocked() {
	if f.wake != nil {
		close(f.wake)
		f.wake = nil
	}
}

// Next waits until something is queued and returns everything queued, in
// order, appended to buf[:0] (pass the slice Next returned last time to
// reuse its memory). It returns ErrSubscriptionClosed after Close, or once
// the engine has closed and everything was taken; ctx's error when ctx
// ends first.
func (f *Feed) Next(ctx context.Context, buf []FeedItem) ([]FeedItem, error) {
	clear(buf) // drop references the reader is done with, also while waiting
	if cap(buf) > keptFeedCap {
		buf = nil // a burst is over: don't keep its memory
	}
	for {
		f.mu.Lock()
		if f.closed {
			f.mu.Unlock()
			return buf[:0], ErrSubscriptionClosed
		}
		if len(f.items) > 0 {
			out := f.items
			for i := range out {
				out[i].settle()
			}
			f.items = buf[:0]
			if len(f.last) > keptFeedCap {
				f.last = map[string]int{}
			}
			clear(f.last)
			f.mu.Unlock()
			return out, nil
		}
		if f.ended {
			f.mu.Unlock()
			return buf[:0], ErrSubscriptionClosed
		}
		if f.wake == nil {
			f.wake = make(chan struct{})
		}
		wake := f.wake
		f.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return buf[:0], ctx.Err()
		}
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
		case len(f.items) > 0:
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
	return len(f.items)
}

// Close ends the feed: a Next in progress returns ErrSubscriptionClosed and
// the queued items are dropped. Safe to call twice.
func (f *Feed) Close() {
	f.mu.Lock()
	f.closed = true
	f.items, f.last = nil, nil
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
