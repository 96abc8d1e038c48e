package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/interlock-dev/interlock/engine/store"
)

// SessionOptions configure a new session. The zero value is usable.
type SessionOptions struct {
	ID       string   // "" picks "s1", "s2", ...
	Dir      string   // working directory for tools
	Environ  []string // extra KEY=value entries for processes tools start
	Provider Provider // nil uses the engine's provider
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

// runEnd is how a session's last run ended.
type runEnd int

const (
	endNone        runEnd = iota // no run yet
	endFinished                  // the model ended its turn
	endFailed                    // an error ended the run
	endInterrupted               // Interrupt, a stop of the caller's context, or a crash
)

// run is one Prompt or Continue (or a whole task loop) in flight.
type run struct {
	id        uint64          // unique in the engine; in the run's events
	base      context.Context // the caller's: model turns derive from it (see modelTurn)
	loop      *TaskLoop
	loopAfter <-chan struct{} // the loop's previous run has been reported (see TaskLoop.bindLocked)
	loopEnded chan struct{}   // closed once this run of the loop has been reported
	hostOwned bool            // the host's own loop (Begin): only the host can resume it
	// startHistory is the length of the history before the run began: what
	// its start appended (a dropped question's results, a Prompt's prompt)
	// is stored with its start.
	startHistory  int
	resumed       bool // a Continue: "Resumed" is recorded once the model answers
	ctx           context.Context
	provider      Provider // the session's, or a task's own
	cancel        context.CancelCauseFunc
	stopOnDone    func() bool // unregisters the stop on the caller's ctx ending
	stopReason    Reason      // set by Interrupt; the run is stopping
	sideEffectCut bool        // a tool with side effects was cut off
	text          string      // the text of the run's last whole assistant message (RunResult.Text)
	startTokens   Usage       // the session's tokens when the run started (RunResult.Usage)
	// parkable: a lone tool call's Env.Ask parks the run instead of
	// blocking its goroutine (a background run of the engine's own loop).
	parkable bool
	outcome  chan Outcome // Start's: gets how the run ended (nil: nobody asked)
	// turnCancel ends the model turn in flight (nil between turns).
	turnCancel context.CancelCauseFunc
	// calls counts the tool calls whose code runs (Run, or an Ask's
	// AskFunc), a call waiting at its own pause included (pending.held);
	// processCalls those of them of a ProcessRunner, whose end callsDone,
	// when made, tells (see callsDoneLocked).
	calls, processCalls int
	callsDone           chan struct{}
	// done is closed when the run has ended; made by the first waiter
	// (doneLocked), as most runs end without one.
	done  chan struct{}
	ended bool
}

// closedChan is a channel that is always closed.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// doneLocked returns a channel closed when run r has ended.
func (r *run) doneLocked() <-chan struct{} {
	switch {
	case r.ended:
		return closedChan
	case r.done == nil:
		r.done = make(chan struct{})
	}
	return r.done
}

// endedLocked marks run r ended and wakes its waiters.
func (r *run) endedLocked() {
	r.ended = true
	if r.done != nil {
		close(r.done)
	}
}

// executingLocked reports whether something of run r is executing: a
// model turn streaming, or a tool call running that is not waiting at its
// own pause. A run executing is proceeding, whatever else waits.
func (s *Session) executingLocked(r *run) bool {
	if r.turnCancel != nil {
		return true
	}
	waiting := 0
	for _, p := range s.pauses {
		if p.held {
			waiting++
		}
	}
	return r.calls > waiting
}

// callRunsLocked counts env's call as running its code (see run.calls);
// the call's tool_started or the answer that carries a parked call on is
// the change observers see.
func (s *Session) callRunsLocked(env *Env) {
	if env.running {
		return
	}
	env.running = true
	env.run.calls++
	if pr, ok := env.tool.(ProcessRunner); ok && pr.RunsProcesses(env.call) {
		env.processes = true
		env.run.processCalls++
	}
}

// callStopsLocked counts env's call as no longer running: it has ended, or
// it parked at its question.
func (s *Session) callStopsLocked(env *Env) {
	if !env.running {
		return
	}
	env.running = false
	r := env.run
	r.calls--
	if env.processes {
		env.processes = false
		if r.processCalls--; r.processCalls == 0 && r.callsDone != nil {
			close(r.callsDone)
			r.callsDone = nil
		}
	}
}

// callsDoneLocked returns a channel closed once no call of run r to a
// ProcessRunner runs: a cut bash command's tree is gone by then.
func (r *run) callsDoneLocked() <-chan struct{} {
	if r.processCalls == 0 {
		return closedChan
	}
	if r.callsDone == nil {
		r.callsDone = make(chan struct{})
	}
	return r.callsDone
}

// Snapshot is a consistent copy of a session's state.
type Snapshot struct {
	ID           string        `json:"id"`
	Status       Status        `json:"status"`
	Version      uint64        `json:"version"`
	Pause        *Pause        `json:"pause"`        // the current pause
	Pauses       []Pause       `json:"pauses"`       // all pending, oldest first
	Interruption *Interruption `json:"interruption"` // the last one, kept after later runs
	// Stopping says why while the status is stopping (the run is still
	// unwinding, e.g. a tool being killed); nil otherwise.
	Stopping       *Stopping   `json:"stopping,omitempty"`
	RunState       RunState    `json:"run_state"`
	Eligibility    Eligibility `json:"eligibility"`
	NeedsInput     *Pause      `json:"needs_input,omitempty"` // blocked: asked again on Continue
	Run            uint64      `json:"run,omitempty"`         // the run in flight
	Step           int         `json:"step"`
	Tokens         Usage       `json:"tokens"`
	Model          string      `json:"model"`
	PauseRequested bool        `json:"pause_requested"`
	LastError      string      `json:"last_error,omitempty"`
	// Sandbox is what confines this session's commands (nil: no tool does).
	Sandbox *Sandbox `json:"sandbox,omitempty"`
}

// RunResult is how a run ended.
type RunResult struct {
	Run          uint64        `json:"run"`
	Status       Status        `json:"status"`
	Interruption *Interruption `json:"interruption,omitempty"`
	Error        string        `json:"error,omitempty"`
	ErrorCode    string        `json:"error_code,omitempty"` // what kind of failure (ErrorCode), e.g. "rate_limited"
	// Text is the model's final answer: the text of the run's last assistant
	// message ("" when it ended on tool calls, was cut, or the host ran it).
	Text string `json:"text,omitempty"`
	// Usage counts the tokens of this run alone.
	Usage Usage `json:"usage"`
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

// deriveLocked computes the status from the stored facts.
func (s *Session) deriveLocked() Status {
	switch {
	case s.closed:
		return StatusClosed
	case s.run != nil && s.run.stopReason != "":
		return StatusStopping
	case len(s.pauses) > 0:
		return StatusPaused
	case s.run != nil:
		return StatusRunning
	case s.lastEnd == endInterrupted || s.needsInput != nil:
		return StatusInterrupted
	}
	return StatusIdle
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
	s.persistEventLocked(&ev) // durable before any observer sees it
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

// pauseFor raises a pause for run r and blocks until it is answered, ctx is
// done, or r is interrupted.
func (s *Session) pauseFor(ctx context.Context, r *run, req PauseRequest, src PauseSource, step, task int, by *Env) (PauseResult, error) {
	p, err := s.raisePause(ctx, r, req, src, step, task, by)
	if err != nil {
		return PauseResult{Answer: AnswerInterrupted}, err
	}
	return s.waitPause(ctx, r, p, req.Timeout)
}

// raisePause makes a pause of run r pending (status paused) and emits it;
// by is the tool call that waits for it, if one does.
func (s *Session) raisePause(ctx context.Context, r *run, req PauseRequest, src PauseSource, step, task int, by *Env) (*pending, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.raisePauseLocked(ctx, r, req, src, step, task, nil, by)
}

// raisePauseLocked makes the pause pending: a goroutine waits for it with
// waitPause, or, when parked is set, the answer continues the parked run
// with it (see park, parkAtBoundary). by is the running tool call whose
// goroutine waits for it (nil: none, or not a tool's): while it waits, the
// call does not count as executing.
func (s *Session) raisePauseLocked(ctx context.Context, r *run, req PauseRequest, src PauseSource, step, task int, parked parked, by *Env) (*pending, error) {
	if !req.Kind.valid() {
		return nil, fmt.Errorf("%w: pause kind %q (want %q or %q)", ErrInvalidArgument, req.Kind, PauseContinue, PauseConfirm)
	}
	if s.closed {
		return nil, fmt.Errorf("session %s: %w", s.id, ErrClosed)
	}
	if s.run != r { // e.g. a tool's goroutine that outlived its call
		return nil, fmt.Errorf("session %s: %w: the run that raised the pause has ended", s.id, ErrNotRunning)
	}
	// Interrupted before the pause was raised: never show it. The run's
	// context is checked too, in case ctx is not derived from it.
	for _, c := range []context.Context{ctx, r.ctx} {
		if c.Err() != nil {
			return nil, interruptErr(c)
		}
	}
	s.pauseSeq++
	p := &pending{
		Pause: Pause{
			ID: "p" + strconv.FormatUint(s.pauseSeq, 10), Kind: req.Kind, Source: src, Tool: req.Tool,
			Message: req.Message, Details: req.Details, Reasons: req.Reasons, RememberScopes: req.RememberScopes,
			RememberKey: req.RememberKey,
			Step:        step, Task: task, At: time.Now(),
			Version: s.version.Load() + 1, // the version emitLocked gives the paused event
		},
		parked: parked,
		grant:  req.grant,
		held:   by != nil && by.running,
	}
	if parked == nil {
		p.answered = make(chan PauseResult, 1)
	}
	s.pauses = append(s.pauses, p)
	s.emitLocked(Event{Type: EventPaused, Tool: req.Tool})
	return p, nil
}

// waitPause blocks until p is answered, ctx is done, run r is interrupted
// (even when ctx is not derived from r's context), or the timeout fires.
func (s *Session) waitPause(ctx context.Context, r *run, p *pending, timeout time.Duration) (PauseResult, error) {
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	for {
		select {
		case res := <-p.answered:
			return res, nil
		case <-ctx.Done():
			return s.abandonPause(ctx, p)
		case <-r.ctx.Done():
			return s.abandonPause(r.ctx, p)
		case <-expired:
			expired = nil
			s.mu.Lock()
			timedOut := s.removePauseLocked(p)
			if timedOut {
				s.emitLocked(Event{Type: EventPauseAnswered, Answered: &p.Pause, Answer: AnswerTimedOut})
			}
			s.mu.Unlock()
			if timedOut {
				return PauseResult{Answer: AnswerTimedOut}, nil
			}
			// Answered or interrupted just before the timer fired: the
			// next select sees which (an interrupt sends no answer).
		}
	}
}

// abandonPause ends p because ctx is done: the answer is interrupted.
func (s *Session) abandonPause(ctx context.Context, p *pending) (PauseResult, error) {
	s.mu.Lock()
	if s.removePauseLocked(p) {
		s.emitLocked(Event{Type: EventPauseAnswered, Answered: &p.Pause, Answer: AnswerInterrupted})
	}
	s.mu.Unlock()
	return PauseResult{Answer: AnswerInterrupted}, interruptErr(ctx)
}

func (s *Session) removePauseLocked(p *pending) bool {
	i := slices.Index(s.pauses, p)
	if i < 0 {
		return false
	}
	s.pauses = slices.Delete(s.pauses, i, i+1)
	return true
}

// Resume answers a continue pause (Enter): the one with id pauseID, or the
// current (oldest) one when pauseID is "". A pause is answered once: a
// second or stale answer returns ErrUnknownPause and can never release a
// later pause.
func (s *Session) Resume(pauseID string, opts ...AnswerOption) error {
	return s.answer(pauseID, AnswerResumed, opts...)
}

// Confirm answers a confirm pause (Y / N): the one with id pauseID, or the
// current one when pauseID is "". WithReason gives the model the user's
// reason; Remember asks the tool to remember an approval.
func (s *Session) Confirm(pauseID string, approved bool, opts ...AnswerOption) error {
	a := AnswerDenied
	if approved {
		a = AnswerApproved
	}
	return s.answer(pauseID, a, opts...)
}

// answer is the one path that answers a pause.
func (s *Session) answer(pauseID string, a Answer, opts ...AnswerOption) error {
	res := PauseResult{Answer: a}
	for _, o := range opts {
		o(&res)
	}
	switch res.Remember {
	case "", RememberOnce:
	case RememberSession, RememberProject:
		// A scope on a denial would read as a remembered denial: nothing remembers one.
		if a != AnswerApproved {
			return fmt.Errorf("%w: remember scope %q with answer %s: only an approval is remembered (answer without a scope, or \"once\")", ErrInvalidArgument, res.Remember, a)
		}
	default:
		return fmt.Errorf("%w: remember scope %q (want once, session or project)", ErrInvalidArgument, res.Remember)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("session %s: %w", s.id, ErrClosed)
	}
	if len(s.pauses) == 0 {
		if s.needsInput != nil {
			return fmt.Errorf("session %s: %w: the question was asked before a restart; continue the session to be asked again", s.id, ErrNotPaused)
		}
		return fmt.Errorf("session %s (%s): %w", s.id, s.deriveLocked(), ErrNotPaused)
	}
	i := 0
	if pauseID != "" {
		i = slices.IndexFunc(s.pauses, func(p *pending) bool { return p.ID == pauseID })
		if i < 0 {
			return fmt.Errorf("session %s: pause %q: %w (already answered or never raised)", s.id, pauseID, ErrUnknownPause)
		}
	}
	p := s.pauses[i]
	if !p.Kind.fits(a) {
		want := "resume it"
		if p.Kind == PauseConfirm {
			want = "approve or deny it"
		}
		return fmt.Errorf("session %s: %s is a %s pause, cannot answer %s: %w; %s", s.id, p.ID, p.Kind, a, ErrWrongPauseKind, want)
	}
	if res.Remember != "" && res.Remember != RememberOnce && !slices.Contains(p.RememberScopes, res.Remember) {
		offered := "it cannot be remembered: answer without a scope, or \"once\""
		if len(p.RememberScopes) > 0 {
			offered = fmt.Sprintf("it offers %s: answer with one of those, or \"once\"", strings.Join(p.RememberScopes, ", "))
		}
		return fmt.Errorf("session %s: %s: %w: remember scope %q is not offered by this pause; %s", s.id, p.ID, ErrInvalidArgument, res.Remember, offered)
	}
	s.pauses = slices.Delete(s.pauses, i, i+1)
	if p.answered != nil {
		p.answered <- res // room for exactly one; only ever sent here, under the lock
	}
	g := rememberingOf(p, res)
	s.remembering = g // written with the answer
	s.emitLocked(Event{Type: EventPauseAnswered, Answered: &p.Pause, Answer: a, AnswerReason: res.Reason, Remember: res.Remember, By: res.By})
	s.remembering = nil
	if g != nil {
		s.rememberedLocked(p, g)
	}
	if p.parked != nil { // the pause is off the list: nothing else can take the run
		s.eng.runs.start(func() { p.parked.resume(s, res, nil) })
	}
	return nil
}

// Interrupt stops the run in flight at once: its context is cancelled with the
// reason as cause, pending pauses end as interrupted, and the status is
// stopping until every tool has returned, then interrupted. A second
// Interrupt while stopping is a no-op.
func (s *Session) Interrupt(reason Reason) error {
	if !reason.Valid() {
		return fmt.Errorf("%w: interruption reason %q: use user_stop (the default), emergency_stop, system_stop, server_restart or timeout", ErrInvalidArgument, reason)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("session %s: %w", s.id, ErrClosed)
	}
	if s.run == nil {
		return fmt.Errorf("session %s (%s): %w", s.id, s.deriveLocked(), ErrNotRunning)
	}
	s.stopLocked(reason)
	return nil
}

func (s *Session) stopLocked(reason Reason) {
	r := s.run
	if r.stopReason != "" {
		return
	}
	s.announceStopLocked(r, s.cancelRunLocked(r, reason))
}

// cancelRunLocked stops run r at once (the facts: its reason, its context
// cancelled) and returns the pauses the stop ended, for
// announceStopLocked to tell.
func (s *Session) cancelRunLocked(r *run, reason Reason) []*pending {
	r.stopReason = reason
	pending := s.pauses
	s.pauses = nil // their waiters see the cancelled context
	s.pauseRequested = false
	cause := &interruptCause{reason: reason}
	r.cancel(cause)
	if r.turnCancel != nil {
		r.turnCancel(cause)
	}
	return pending
}

// announceStopLocked tells observers that run r is stopping (the stop's
// reason stored first), after the pauses the stop ended.
func (s *Session) announceStopLocked(r *run, pending []*pending) {
	s.answerInterruptedLocked(pending)
	s.emitLocked(Event{Type: EventStopping, Reason: r.stopReason})
	// A parked run has no goroutine to see the cancelled context: it
	// unwinds on a fresh one, as a waiter's would.
	for _, p := range pending {
		if p.parked != nil {
			s.eng.runs.start(func() { p.parked.resume(s, PauseResult{Answer: AnswerInterrupted}, interruptErr(r.ctx)) })
		}
	}
}

// answerInterruptedLocked tells that every pause a stop ended is answered
// "interrupted", oldest first.
func (s *Session) answerInterruptedLocked(pending []*pending) {
	for _, p := range pending {
		s.emitLocked(Event{Type: EventPauseAnswered, Answered: &p.Pause, Answer: AnswerInterrupted})
	}
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
		s.persistLocked("the session's close", func(tx *store.Tx) { tx.SessionClosing(s.id) })
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

// interruptErr is the error a blocking point returns when ctx is done: it
// wraps ErrInterrupted and carries the reason when there is one.
func interruptErr(ctx context.Context) error {
	cause := context.Cause(ctx)
	if errors.Is(cause, ErrInterrupted) {
		return cause
	}
	return fmt.Errorf("%w: %w", ErrInterrupted, cause)
}
