package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// EventType names what changed.
type EventType string

// Event types. Terminal ones (interrupted, run_finished, run_failed, closed)
// are never coalesced away for a slow observer.
const (
	EventRunStarted     EventType = "run_started"
	EventText           EventType = "text"            // a streamed text delta (Text)
	EventToolCallDelta  EventType = "tool_call_delta" // a streamed piece of a tool call's arguments (Tool, CallID, Text)
	EventToolStarted    EventType = "tool_started"    // Tool, CallID
	EventToolProgress   EventType = "tool_progress"   // a chunk of tool output (Text)
	EventToolFinished   EventType = "tool_finished"   // Tool, CallID, Text = "error" when it failed
	EventPaused         EventType = "paused"          // a pause became pending (Pause is the current one)
	EventPauseAnswered  EventType = "pause_answered"
	EventPauseRequested EventType = "pause_requested" // Signal(pause): parks at the next step boundary
	EventStopping       EventType = "stopping"
	EventInterrupted    EventType = "interrupted"
	EventRunFinished    EventType = "run_finished"
	EventRunFailed      EventType = "run_failed" // Text is the error, Code its class (ErrorCode)
	EventClosed         EventType = "closed"
	EventWarning        EventType = "warning" // Tool, Text: e.g. the sandbox is not fully in force
	// EventGranted: a confirm was approved without asking by an approval
	// remembered before (PauseRequest.RememberKey): Tool, Text = the key,
	// Remember = the grant's scope, Answer approved, By "grant".
	EventGranted EventType = "granted"
	// EventDecided: a confirm was decided without asking a person: Tool,
	// Text = the command, By "approver" (Answer approved or denied), "rule"
	// (a policy rule; AnswerReason names it; Answer "" when it asks), or
	// "shadow" (what a rule in shadow mode would have decided, not done).
	EventDecided EventType = "decided"
	// EventGrantsChanged: the approvals remembered without asking again
	// changed, what Engine.Grants lists: Grant was added or revoked (Text
	// "added" or "revoked"). It is the engine's, not a session's: Session
	// is "" and Version 0 (Grant.Session names a session grant's session).
	EventGrantsChanged EventType = "grants_changed"
)

func (e Event) terminal() bool {
	if e.Loop != nil {
		return e.Loop.terminal()
	}
	return e.Type.Terminal()
}

func (e Event) key() string {
	if e.Loop != nil {
		return "loop " + e.Loop.Loop
	}
	return e.Session
}

// Terminal reports whether the event ends a run or the session.
func (t EventType) Terminal() bool {
	switch t {
	case EventInterrupted, EventRunFinished, EventRunFailed, EventClosed:
		return true
	}
	return false
}

// Event is one change of a session. Every change bumps the session's version
// by one and emits exactly one event; every observer sees the same order.
// The engine's stream also carries task-loop events: then Loop is set and
// the event is the loop's (it encodes as the TaskEvent).
// Pause and Answered point to the pause as the engine keeps it, which
// every event about it shares: read them, never change them.
type Event struct {
	Session      string     `json:"session"`
	Version      uint64     `json:"version"`
	Type         EventType  `json:"type"`
	Status       Status     `json:"status"`
	Run          uint64     `json:"run,omitempty"`      // the run the change belongs to
	Result       *RunResult `json:"result,omitempty"`   // terminal run events: how the run ended
	Pause        *Pause     `json:"pause,omitempty"`    // the current (oldest pending) pause after the change
	Answered     *Pause     `json:"answered,omitempty"` // pause_answered: the pause that was answered
	Answer       Answer     `json:"answer,omitempty"`
	AnswerReason string     `json:"answer_reason,omitempty"` // pause_answered: the user's reason
	Remember     string     `json:"remember,omitempty"`      // pause_answered: the remember scope chosen
	By           string     `json:"by,omitempty"`            // pause_answered: the client that answered
	Reason       Reason     `json:"reason,omitempty"`
	// ReasonLabel is the text shown for Reason (ReasonLabel).
	ReasonLabel string    `json:"reason_label,omitempty"`
	Step        int       `json:"step"`
	At          time.Time `json:"at"`
	// MonoNS is when the change happened, in CLOCK_MONOTONIC nanoseconds:
	// comparable with Node's process.hrtime.bigint(), for latency. A
	// string in JSON: nanoseconds outgrow a double's exact integers after
	// 104 days of uptime.
	MonoNS int64  `json:"mono_ns,string"`
	Tool   string `json:"tool,omitempty"`
	CallID string `json:"call_id,omitempty"`
	Text   string `json:"text,omitempty"`
	// Coalesced counts the earlier deltas (text, tool_progress) merged into
	// this one for a reader that had not taken them yet (see Feed).
	Coalesced int `json:"coalesced,omitempty"`
	// Code is, on run_failed, what kind of failure (ErrorCode), e.g. "rate_limited".
	Code string `json:"code,omitempty"`
	// Grant is, on grants_changed, the approval added or revoked.
	Grant *Grant     `json:"grant,omitempty"`
	Loop  *TaskEvent `json:"-"` // a task-loop event in the engine's stream
}

// MarshalJSON encodes a session event, or the TaskEvent of a loop event.
func (e Event) MarshalJSON() ([]byte, error) {
	if e.Loop != nil {
		return json.Marshal(e.Loop)
	}
	type plain Event
	return json.Marshal(plain(e))
}

// ErrSubscriptionClosed is returned by Next after Close, or once the source
// has been closed and every event was delivered.
var ErrSubscriptionClosed = errors.New("subscription closed")

// eventLog is an append-only ring that any number of subscriptions read at
// their own pace. Publishing never blocks and costs the same with one
// observer or a hundred. A subscription that falls more than the ring behind
// is coalesced, never blocking the publisher: it gets, in order, every
// terminal event it missed (up to keptTerminals per key) and the latest event of
// each key (each session's latest snapshot), then reads on from the ring.
type eventLog[T logItem] struct {
	mu   sync.Mutex
	max  int
	buf  []logEntry[T] // ring; entry with seq n lives at (n-base) % max
	base uint64        // seq of buf[0] while the ring fills (reset when nobody reads)
	seq  uint64        // sequence number of the next event
	// For lagging readers, per key: the latest event and the recent
	// terminal ones. Pruned of what every subscription has passed.
	latest map[string]logEntry[T]
	terms  map[string][]logEntry[T]
	subs   map[*Subscription[T]]struct{}
	// read mirrors len(subs) > 0 for append, which reads it without the
	// lock: an append that finds nobody reading costs no lock shared by
	// every session (the engine's log is read only by Subscribe; the addon
	// reads a Feed).
	read    atomic.Bool
	wake    chan struct{}
	waiting bool // somebody waits on wake: replace it at the next append
	closed  bool
}

// logItem is what an eventLog holds: session events and task-loop events.
type logItem interface {
	terminal() bool
	// key names what the item is about (a session, a loop): a lagging
	// reader gets the latest item of each key.
	key() string
}

type logEntry[T logItem] struct {
	seq uint64
	ev  T
}

const (
	// keptTerminals bounds, per key, the terminal events kept for a reader
	// that fell behind (one per run): only a reader more runs behind than
	// this, on one session, loses the oldest. Events every reader has
	// passed are dropped at once, so keeping up costs nothing.
	keptTerminals = 1024
	pruneEvery    = 1024 // appends between prunes of the per-key entries
)

func (l *eventLog[T]) append(ev *T) {
	if !l.read.Load() {
		// Nobody reads: a subscription made later starts after this
		// event, so there is nothing to keep (a parked session, or an
		// engine read only through a Feed, holds no history here). One
		// made meanwhile may start before or after it: Subscribe is "from
		// now on", and a session's own events keep their order (they are
		// appended under its lock).
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed || len(l.subs) == 0 {
		return
	}
	e := logEntry[T]{seq: l.seq, ev: *ev}
	if len(l.buf) < l.max {
		l.buf = append(l.buf, e)
	} else {
		l.buf[(l.seq-l.base)%uint64(l.max)] = e
	}
	l.seq++
	k := e.ev.key()
	l.latest[k] = e
	if e.ev.terminal() {
		ts := l.terms[k]
		low := l.lowLocked()
		for len(ts) > 0 && (ts[0].seq < low || len(ts) >= keptTerminals) {
			ts = ts[1:]
		}
		l.terms[k] = append(ts, e)
	}
	if l.seq%pruneEvery == 0 {
		l.pruneLocked()
	}
	l.wakeLocked()
}

// pruneLocked drops the per-key entries that every subscription has read
// past: nobody can need them any more.
func (l *eventLog[T]) pruneLocked() {
	low := l.lowLocked()
	for k, e := range l.latest {
		if e.seq < low {
			delete(l.latest, k)
			delete(l.terms, k)
		}
	}
}

// lowLocked is the oldest sequence number a subscription may still read.
func (l *eventLog[T]) lowLocked() uint64 {
	low := l.seq
	for s := range l.subs {
		low = min(low, s.next)
	}
	return low
}

func (l *eventLog[T]) wakeLocked() {
	if l.waiting {
		close(l.wake)
		l.wake = nil
		l.waiting = false
	}
}

func (l *eventLog[T]) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	l.wakeLocked()
}

func (l *eventLog[T]) subscribe() *Subscription[T] {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := &Subscription[T]{log: l, next: l.seq, done: make(chan struct{})}
	if l.subs == nil {
		l.subs = map[*Subscription[T]]struct{}{}
	}
	if len(l.subs) == 0 { // the first reader: the ring starts here
		l.base = l.seq
		l.buf = nil
		l.latest, l.terms = map[string]logEntry[T]{}, map[string][]logEntry[T]{}
	}
	l.subs[s] = struct{}{}
	l.read.Store(true)
	return s
}

// Subscription reads events in order. It is used by one goroutine.
type Subscription[T logItem] struct {
	log     *eventLog[T]
	next    uint64        // seq of the next event to read from the ring
	backlog []logEntry[T] // coalesced events to deliver before reading on
	once    sync.Once
	done    chan struct{}
}

// Next returns the next event, waiting for one if needed. It returns
// ErrSubscriptionClosed after Close or when the source closed and everything
// was read, and ctx's error when ctx ends first.
func (s *Subscription[T]) Next(ctx context.Context) (T, error) {
	var zero T
	l := s.log
	for {
		l.mu.Lock()
		select {
		case <-s.done:
			l.mu.Unlock()
			return zero, ErrSubscriptionClosed
		default:
		}
		if len(s.backlog) > 0 || s.next < l.seq {
			ev := s.takeLocked()
			l.mu.Unlock()
			return ev, nil
		}
		if l.closed {
			l.mu.Unlock()
			return zero, ErrSubscriptionClosed
		}
		if l.wake == nil {
			l.wake = make(chan struct{})
		}
		l.waiting = true
		wake := l.wake
		l.mu.Unlock()
		select {
		case <-wake:
		case <-s.done:
		case <-ctx.Done():
			return zero, ctx.Err()
		}
	}
}

// takeLocked returns the next event: from the backlog, else from the ring.
// A reader that fell out of the ring gets a backlog of what it missed,
// coalesced per key, in log order.
func (s *Subscription[T]) takeLocked() T {
	l := s.log
	if len(s.backlog) == 0 && s.next < l.seq-uint64(len(l.buf)) {
		for k, e := range l.latest {
			for _, t := range l.terms[k] {
				if t.seq >= s.next && t.seq != e.seq {
					s.backlog = append(s.backlog, t)
				}
			}
			if e.seq >= s.next {
				s.backlog = append(s.backlog, e)
			}
		}
		slices.SortFunc(s.backlog, func(a, b logEntry[T]) int { return cmp.Compare(a.seq, b.seq) })
		s.next = l.seq
	}
	if len(s.backlog) > 0 {
		e := s.backlog[0]
		s.backlog = s.backlog[1:]
		return e.ev
	}
	e := l.buf[(s.next-l.base)%uint64(l.max)]
	s.next++
	return e.ev
}

// Close ends the subscription; a Next in progress returns. Safe to call twice.
func (s *Subscription[T]) Close() {
	s.once.Do(func() {
		close(s.done)
		l := s.log
		l.mu.Lock()
		delete(l.subs, s)
		if len(l.subs) == 0 { // the last reader: keep nothing for nobody
			l.read.Store(false)
			l.buf, l.latest, l.terms = nil, nil, nil
		}
		l.mu.Unlock()
	})
}

// channel forwards a subscription to a channel that is closed when ctx ends,
// the subscription is closed, or the source closes. Only the forwarding
// goroutine sends and closes, so nothing ever sends on a closed channel.
func (s *Subscription[T]) channel(ctx context.Context) <-chan T {
	ch := make(chan T, 16)
	go func() {
		defer close(ch)
		defer s.Close()
		for {
			ev, err := s.Next(ctx)
			if err != nil {
				return
			}
			select {
			case ch <- ev:
			case <-ctx.Done():
				return
			case <-s.done:
				return
			}
		}
	}()
	return ch
}
