package engine

import (
	"context"
	"errors"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// SessionOptions configure a new session. The zero value is usable.
type SessionOptions struct {
	ID       string   // "" picks "s1", "s2", ...
	Dir      string   // working directory for tools
	Environ  []string // extra KEY=value entries for processes tools start
	Provider Provider // nil uses the engine's provider
	// Tools, when not nil, are the built-in tools this session offers the
	// model (of those the engine was made with: "ask", "sleep" and those
	// given by WithTool); the others are neither offered nor run. Tools
	// registered later (a host's) are always offered. nil offers them all.
	Tools []string
}

// Session is one agent conversation and its state machine. Facts are stored
// (an active run, a stop request, pending pauses, the last interruption) and
// the status is derived from them. All methods are safe for concurrent use.
type Session struct {
	id       string
	eng      *Engine
	provider Provider
	dir      string
	environ  []string
	tools    []string // SessionOptions.Tools, sorted; nil: all

	status  atomic.Int32  // derived status, refreshed at every change
	version atomic.Uint64 // bumped at every change

	mu             sync.Mutex
	run            *run          // the run in flight, nil if none
	closing        bool          // Close started: no new runs
	closeDone      chan struct{} // closed when the first Close has finished
	closed         bool
	toolGranted    bool       // a tool keeping its own grants remembered one here (Env.GrantAdded)
	pauses         []*pending // pending pauses, oldest first
	pauseSeq       uint64
	pauseRequested bool          // Signal(pause) waits for the next step boundary
	lastEnd        runEnd        // how the last run ended
	interruption   *Interruption // the last interruption, kept after later runs
	// needsInput is a question that was pending when the previous owner of
	// the store died: the session is blocked until Continue raises it anew.
	needsInput *Pause
	loops      []*TaskLoop // task loops of the session, closed with it
	// cutLoop is the task loop whose run was the last one interrupted:
	// Continue resumes it (nil when it was closed or could not be restored).
	cutLoop   *TaskLoop
	lastError string
	step      int
	tokens    Usage
	history   []Message
	locals    map[any]any
	// grants are the approvals remembered for this session alone
	// (PauseRequest.RememberKey answered with remember "session").
	grants map[grantKey]time.Time
	// remembering is the approval the answer being recorded remembers
	// (set by answer for its pause_answered event alone).
	remembering *remembering
	// endMarker is 1 + the index in history of the marker of the run
	// being ended as interrupted, written with its end (set by end for its
	// interrupted event alone; 0: none).
	endMarker int
	// log is the session's own event stream, made at the first Subscribe:
	// a session nobody subscribes to (most, under a UI that reads the
	// engine's feed) does without.
	log *eventLog[Event]
}

// ID returns the session id.
func (s *Session) ID() string { return s.id }

// Status returns the derived status without taking a lock.
func (s *Session) Status() Status { return Status(s.status.Load()) }

// Version returns the session's version: it grows by one at every change.
func (s *Session) Version() uint64 { return s.version.Load() }

// Pause returns the current (oldest pending) pause.
func (s *Session) Pause() (Pause, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.pauses) == 0 {
		return Pause{}, false
	}
	return s.pauses[0].Pause, true
}

// Pauses returns every pending pause, oldest first.
func (s *Session) Pauses() []Pause {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pausesLocked()
}

func (s *Session) pausesLocked() []Pause {
	out := make([]Pause, len(s.pauses))
	for i, p := range s.pauses {
		out[i] = p.Pause
	}
	return out
}

// Snapshot returns a consistent copy of the session's state.
func (s *Session) Snapshot() Snapshot {
	sandbox := s.eng.sandboxOf(s) // asks the tools: before s.mu, which they may take
	s.mu.Lock()
	defer s.mu.Unlock()
	rs, el := s.stateLocked()
	snap := Snapshot{
		ID:             s.id,
		Status:         s.deriveLocked(),
		RunState:       rs,
		Eligibility:    el,
		NeedsInput:     clonePause(s.needsInput),
		Version:        s.version.Load(),
		Pause:          s.currentPauseLocked(),
		Pauses:         s.pausesLocked(),
		Step:           s.step,
		Tokens:         s.tokens,
		Model:          providerName(s.provider),
		PauseRequested: s.pauseRequested,
		LastError:      s.lastError,
		Sandbox:        sandbox,
	}
	if s.interruption != nil {
		in := *s.interruption
		snap.Interruption = &in
	}
	if snap.Status == StatusStopping {
		snap.Stopping = &Stopping{Reason: s.run.stopReason, Label: ReasonLabel(s.run.stopReason)}
	}
	if s.run != nil {
		snap.Run = s.run.id
	}
	return snap
}

func clonePause(p *Pause) *Pause {
	if p == nil {
		return nil
	}
	c := *p
	return &c
}

// History returns a copy of the conversation.
func (s *Session) History() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.history)
}

// Subscribe returns a reader of this session's events from now on.
func (s *Session) Subscribe() *Subscription[Event] {
	s.mu.Lock()
	if s.log == nil {
		s.log = &eventLog[Event]{max: 256, closed: s.closed}
	}
	l := s.log
	s.mu.Unlock()
	return l.subscribe()
}

// Events streams this session's events until ctx ends or the session closes.
func (s *Session) Events(ctx context.Context) <-chan Event { return s.Subscribe().channel(ctx) }

// Local returns the session-scoped value under key, creating it on first use.
// io.Closer values are closed when the session closes. After Close it returns
// a fresh, unshared value from create (closed at once if it is a Closer).
// A nil create only looks: nil when there is no value.
func (s *Session) Local(key any, create func() any) any {
	s.mu.Lock()
	if create == nil {
		defer s.mu.Unlock()
		return s.locals[key]
	}
	if s.closed {
		s.mu.Unlock()
		v := create()
		if c, ok := v.(io.Closer); ok {
			c.Close()
		}
		return v
	}
	defer s.mu.Unlock()
	if v, ok := s.locals[key]; ok {
		return v
	}
	if s.locals == nil {
		s.locals = make(map[any]any)
	}
	v := create()
	s.locals[key] = v
	return v
}

func (s *Session) currentPauseLocked() *Pause {
	if len(s.pauses) == 0 {
		return nil
	}
	p := s.pauses[0].Pause
	return &p
}

// emitLocked records one change: bump the version, refresh the derived
// status, publish the event to the session's and the engine's observers.
func (s *Session) emitLocked(ev Event) {
	if ev.Run == 0 && s.run != nil {
		ev.Run = s.run.id
	}
	s.recordEventLocked(&ev) // recorded before any observer sees it
	st := s.deriveLocked()
	s.status.Store(int32(st))
	ev.Session = s.id
	if ev.Reason != "" {
		ev.ReasonLabel = ReasonLabel(ev.Reason)
	}
	ev.Version = s.version.Add(1)
	ev.Status = st
	if len(s.pauses) > 0 {
		ev.Pause = &s.pauses[0].Pause // never changed once raised: shared, not copied
	}
	if ev.Type != EventToolStarted && ev.Type != EventToolProgress && ev.Type != EventToolFinished {
		ev.Step = s.step
	}
	ev.At = time.Now()
	ev.MonoNS = MonoNanos(ev.At)
	if s.log != nil {
		s.log.append(&ev)
	}
	s.eng.log.append(&ev)
	s.eng.publishFeeds(&ev)
}

func (s *Session) emitProgress(call ToolCall, step int, chunk string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.emitLocked(Event{Type: EventToolProgress, Tool: call.Name, CallID: call.ID, Step: step, Text: chunk})
}

// Close interrupts a run in flight (system_stop), waits until it has
// unwound and its task loops have ended, closes the session's Local values
// and ends every subscription. Closing again waits for the first Close to
// finish and returns nil. The session's grants end with it: each is a
// grants_changed event (revoked) once it is gone from Engine.Grants.
func (s *Session) Close() error {
	s.mu.Lock()
	if s.closing {
		done := s.closeDone
		s.mu.Unlock()
		<-done // a second Close (e.g. the engine's) returns once the first has finished
		return nil
	}
	s.closing = true
	s.closeDone = make(chan struct{})
	defer close(s.closeDone)
	var runDone <-chan struct{}
	if r := s.run; r != nil {
		// Stored first: an owner killed while the run unwinds leaves the
		// close for the next owner to finish, not a run to continue.
		s.recordLocked("the session's close", transition{kind: transSessionClosing, session: s.id})
		s.stopLocked(ReasonSystemStop)
		runDone = r.doneLocked()
	}
	loops := s.loops
	s.mu.Unlock()
	if runDone != nil {
		<-runDone
	}
	for _, tl := range loops {
		tl.Close()
	}
	s.mu.Lock()
	hasGrants := len(s.grants) > 0 || s.toolGranted
	s.mu.Unlock()
	var grants []Grant
	if hasGrants {
		grants = s.eng.sessionGrants(s) // they end with it
	}
	s.mu.Lock()
	s.closed = true
	s.pauses = nil
	locals := s.locals
	s.locals = nil
	s.emitLocked(Event{Type: EventClosed})
	if s.log != nil {
		s.log.close()
	}
	s.mu.Unlock()
	var errs []error
	for _, v := range locals {
		if c, ok := v.(io.Closer); ok {
			errs = append(errs, c.Close())
		}
	}
	s.eng.forget(s)
	if !s.eng.shuttingDown.Load() { // closed by its user (else kept, with a store)
		for _, g := range grants {
			s.eng.grantChanged(GrantRevoked, g)
		}
	}
	return errors.Join(errs...)
}
