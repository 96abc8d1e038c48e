package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Prompt adds the user's text to the history and drives the agent until the
// model ends its turn, the run fails, or it is interrupted. It blocks; call
// it from its own goroutine and control it from others. On interrupt it
// returns the result and an error wrapping ErrInterrupted.
func (s *Session) Prompt(ctx context.Context, text string) (RunResult, error) {
	r, err := s.beginPrompt(ctx, text, false)
	if err != nil {
		return RunResult{Status: s.Status()}, err
	}
	return s.end(r, s.turns(r))
}

func (s *Session) beginPrompt(ctx context.Context, text string, background bool) (*run, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	// The prompt is written with the run's start (persistEventLocked): a
	// run that comes back after a crash has its prompt.
	r, err := s.beginLocked(ctx, func(r *run) {
		s.appendMemoryLocked([]Message{{Role: RoleUser, Text: text}})
	})
	if err == nil {
		r.parkable = background
		if background {
			r.outcome = make(chan Outcome, 1)
		}
	}
	return r, err
}

// Outcome is how a background run ended.
type Outcome struct {
	Result RunResult
	Err    error
}

// Start begins a Prompt in the background and returns its run id, which
// the run's events carry (the terminal one with the result). What prevents
// the run (a closed session, a run already in flight) is returned at once;
// the outcome arrives on the channel, which has room for it, so nobody has
// to read it. While the run waits at a tool's question asked with Env.Ask,
// no goroutine of it is left: the answer carries it on.
func (s *Session) Start(ctx context.Context, text string) (runID uint64, done <-chan Outcome, err error) {
	r, err := s.beginPrompt(ctx, text, true)
	if err != nil {
		return 0, nil, err
	}
	s.eng.runs.start(func() { s.settle(r, s.turns(r)) })
	return r.id, r.outcome, nil
}

// settle ends background run r with err, unless the run parked at a
// question (errParked): then whoever ends the pause carries the run on.
func (s *Session) settle(r *run, err error) {
	if err == errParked {
		return
	}
	res, err := s.endRun(r, err)
	r.outcome <- Outcome{res, err} // room for one; only the run's end sends
}

// Continue resumes an interrupted run: the model gets the history, the cut
// tool call marked "interrupted before completion", and goes on; "Resumed"
// is recorded once the model answers. If a tool with side effects had
// started and was cut off, it first asks for confirmation (a confirm
// pause, tool "Resume"); a denial is recorded and ends the run without
// doing anything. A session blocked on a question asked before a restart
// is continued by asking it again: its tool call runs anew, through its
// own gate. Continue on a session that is not eligible returns an error
// wrapping ErrNotResumable with the reason.
func (s *Session) Continue(ctx context.Context) (RunResult, error) {
	r, in, err := s.beginContinue(ctx, false, false)
	if err != nil {
		return RunResult{Status: s.Status()}, err
	}
	return s.endRun(r, s.continueRun(r, in))
}

// StartContinue begins a Continue in the background, as Start does a Prompt.
func (s *Session) StartContinue(ctx context.Context) (runID uint64, done <-chan Outcome, err error) {
	return s.startContinue(ctx, false)
}

// startContinue checks eligibility and begins the run in one step; with
// eligibleOnly, a blocked session is skipped too (ResumeAll).
func (s *Session) startContinue(ctx context.Context, eligibleOnly bool) (uint64, <-chan Outcome, error) {
	r, in, err := s.beginContinue(ctx, eligibleOnly, true)
	if err != nil {
		return 0, nil, err
	}
	s.eng.runs.start(func() { s.settle(r, s.continueRun(r, in)) })
	return r.id, r.outcome, nil
}

// notEligibleError says why a session cannot be continued.
type notEligibleError struct {
	id string
	el Eligibility
}

func (e *notEligibleError) Error() string {
	return fmt.Sprintf("session %s: %s: %s", e.id, ErrNotResumable, e.el.Reason)
}
func (e *notEligibleError) Unwrap() error { return ErrNotResumable }

// resumption is what a Continue resumes.
type resumption struct {
	sideEffectCut bool
	rerun         []ToolCall // calls cut at a question by a restart: asked again
	signalPause   bool       // a signal pause cut by a restart: parked again
}

func (s *Session) beginContinue(ctx context.Context, eligibleOnly, background bool) (*run, resumption, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.beginContinueLocked(ctx, eligibleOnly, background)
}

// beginContinueOf begins a background Continue that resumes loop tl, when
// the session's last interrupted run is tl's.
func (s *Session) beginContinueOf(ctx context.Context, tl *TaskLoop) (*run, resumption, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.run == nil && s.cutLoop != tl {
		return nil, resumption{}, fmt.Errorf("task loop %s: %w: the session's last interrupted run is not this loop's", tl.id, ErrNotResumable)
	}
	return s.beginContinueLocked(ctx, false, true)
}

func (s *Session) beginContinueLocked(ctx context.Context, eligibleOnly, background bool) (*run, resumption, error) {
	if s.closing {
		return nil, resumption{}, fmt.Errorf("session %s: %w", s.id, ErrClosed)
	}
	if s.run != nil {
		return nil, resumption{}, fmt.Errorf("session %s (%s): %w", s.id, s.deriveLocked(), ErrRunning)
	}
	st, el := s.stateLocked()
	blocked := st == RunBlocked && !eligibleOnly
	if !el.Eligible && !blocked {
		return nil, resumption{}, &notEligibleError{id: s.id, el: el}
	}
	var res resumption
	if blocked {
		res.rerun = s.rerunCallsLocked()
		res.signalPause = s.needsInput.Source == SourceSignal
	}
	if s.interruption != nil {
		res.sideEffectCut = s.interruption.SideEffectCut // asked first, before a question asked again
	}
	var bind func(*run)
	if s.interruption != nil && s.interruption.Loop != "" {
		bind = s.cutLoop.bindLocked // eligible or blocked: the loop is there (stateLocked, recoverLocked)
	}
	asked := s.needsInput
	s.needsInput = nil // asked anew by this run: beginLocked must not drop it
	r, err := s.beginLocked(ctx, bind)
	if err != nil {
		s.needsInput = asked
		return nil, resumption{}, err
	}
	r.resumed = true
	r.parkable = background && r.loop == nil // a loop's goroutine drives every task (bindLocked)
	if background {
		r.outcome = make(chan Outcome, 1)
	}
	if bind != nil {
		s.cutLoop.resuming.Store(true)
	}
	return r, res, nil
}

// rerunCallsLocked returns the tool calls of the last assistant turn that
// have no result: they were cut by a restart while waiting for an answer.
func (s *Session) rerunCallsLocked() []ToolCall {
	for i := len(s.history) - 1; i >= 0; i-- {
		m := s.history[i]
		if m.Role != RoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		answered := map[string]bool{}
		for _, later := range s.history[i+1:] {
			if later.Role == RoleTool {
				answered[later.ToolCallID] = true
			}
		}
		var out []ToolCall
		for _, c := range m.ToolCalls {
			if !answered[c.ID] {
				out = append(out, c)
			}
		}
		return out
	}
	return nil
}

// continueRun drives a Continue's run; the error is the run's end (or
// errParked).
func (s *Session) continueRun(r *run, res resumption) error {
	details := ""
	if r.loop != nil {
		<-r.loopAfter // the interrupted run of the loop is reported first
		details = r.loop.resumeDetails()
	}
	if res.sideEffectCut {
		if details == "" {
			details = lastToolCall(s.History())
		}
		// Source tool: it is a confirm gate like a tool's, not a signal
		// pause, so Signal(pause) and Signal(resume) act as they do on one.
		ans, err := s.pauseFor(r.ctx, r, PauseRequest{
			Kind: PauseConfirm, Tool: "Resume", Message: "Resuming may repeat an action that was cut off",
			Details: details,
		}, SourceTool, s.Snapshot().Step, 0, nil)
		if err != nil {
			s.mu.Lock()
			r.sideEffectCut = true // not answered: the next resumption asks it again
			s.mu.Unlock()
			return err
		}
		if !ans.Approved() {
			text := "Resume denied"
			if ans.Answer == AnswerTimedOut {
				text = "Resume not confirmed in time"
			}
			if ans.Reason != "" {
				text += ": " + ans.Reason
			}
			s.record(Message{Role: RoleMarker, Text: text})
			return nil
		}
	}
	if res.signalPause {
		s.mu.Lock()
		s.pauseRequested = true
		s.mu.Unlock()
	}
	if r.loop != nil {
		return r.loop.loop(r, &res)
	}
	if len(res.rerun) > 0 {
		s.markResumed(r)
		return s.turnsFrom(r, beforeCalls, res.rerun, false)
	}
	return s.turns(r)
}

// markResumed records the "Resumed" marker of a Continue, once, when the
// resumed run has really started: the model answered, or a question cut by
// a restart is asked again.
func (s *Session) markResumed(r *run) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.resumed {
		r.resumed = false
		s.appendHistoryLocked(Message{Role: RoleMarker, Text: "Resumed"})
	}
}

// lastToolCall names the last call of history h: its tool, and its
// arguments when it had any (not null, as JS tools may be called, nor {}).
func lastToolCall(h []Message) string {
	for i := len(h) - 1; i >= 0; i-- {
		if n := len(h[i].ToolCalls); n > 0 {
			c := h[i].ToolCalls[n-1]
			if noArgs(c.Args) {
				return c.Name
			}
			return c.Name + " " + string(c.Args)
		}
	}
	return ""
}

// noArgs reports whether raw holds no arguments: nothing, null or {}.
func noArgs(raw json.RawMessage) bool {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return len(bytes.TrimSpace(raw)) == 0
	}
	s := b.String()
	return s == "null" || s == "{}"
}

// begin starts a run: the session must be open and have none in flight.
func (s *Session) begin(ctx context.Context) (*run, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.beginLocked(ctx, nil)
}

// beginLocked begins a run. bind, when given, makes it a task loop's or a
// host's before its start is recorded: the store has whose run it is from
// the start's own commit (a kill right after it must not find the
// engine's own run).
func (s *Session) beginLocked(ctx context.Context, bind func(*run)) (*run, error) {
	if s.closing {
		return nil, fmt.Errorf("session %s: %w", s.id, ErrClosed)
	}
	if s.run != nil {
		return nil, fmt.Errorf("session %s (%s): %w", s.id, s.deriveLocked(), ErrRunning)
	}
	rctx, cancel := context.WithCancelCause(ctx)
	r := &run{id: s.eng.runSeq.Add(1), base: ctx, ctx: rctx, provider: s.provider, cancel: cancel, startTokens: s.tokens}
	// The caller's ctx ending is a stop request like Interrupt(system_stop):
	// the status is stopping until the run has unwound.
	if ctx.Done() != nil {
		r.stopOnDone = context.AfterFunc(ctx, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.run == r {
				s.stopLocked(ReasonSystemStop)
			}
		})
	}
	s.run = r
	s.lastEnd = endNone
	s.lastError = ""
	r.startHistory = len(s.history)
	if s.needsInput != nil {
		s.dropQuestionLocked()
	}
	if bind != nil {
		bind(r)
	}
	s.emitLocked(Event{Type: EventRunStarted})
	return r, nil
}

// dropQuestionLocked gives up the question a restart cut (needsInput) for
// a run other than the Continue that asks it anew: the calls of the turn
// that waited on it are closed with a result saying they did not run, so
// the history sent to a model stays valid (every assistant tool call
// followed by its tool message). The results are stored with the run's
// start. A new prompt used to leave the session blocked and the calls
// without results, which an OpenAI-compatible server rejects.
func (s *Session) dropQuestionLocked() {
	label := ReasonLabel(ReasonServerRestart)
	mayHaveActed := false
	if in := s.interruption; in != nil {
		label, mayHaveActed = in.Label, in.SideEffectCut
	}
	label = strings.ToLower(label[:1]) + label[1:]
	text := "not run: " + label
	if mayHaveActed { // a call of the turn had started, or acted before it asked
		text = label + " before completion: it may have acted in part"
	}
	var msgs []Message
	for _, c := range s.rerunCallsLocked() {
		msgs = append(msgs, Message{Role: RoleTool, ToolCallID: c.ID, Text: text, IsError: true, Interrupted: true})
	}
	s.appendMemoryLocked(msgs)
	s.needsInput = nil
}

// endRun ends run r (end); a task loop's run is then reported by the loop,
// after the session's terminal event.
func (s *Session) endRun(r *run, err error) (RunResult, error) {
	if r.loop == nil {
		return s.end(r, err)
	}
	defer close(r.loopEnded)
	<-r.loopAfter
	res, err := s.end(r, err)
	r.loop.ended(r, err)
	return res, err
}

// end records how the run ended and emits the terminal event, which
// carries the run id and the result.
func (s *Session) end(r *run, err error) (RunResult, error) {
	if r.stopOnDone != nil {
		r.stopOnDone()
	}
	defer r.cancel(nil)
	s.mu.Lock()
	defer s.mu.Unlock()
	defer r.endedLocked()
	s.run = nil
	s.pauses = nil
	reason, interrupted := r.stopReason, r.stopReason != ""
	if !interrupted && err != nil {
		reason, interrupted = ReasonOf(err)
		if !interrupted && r.ctx.Err() != nil { // the caller's context ended the run
			reason, interrupted = ReasonSystemStop, true
		}
	}
	switch {
	case interrupted:
		label := ReasonLabel(reason)
		// Written with the run's end (persistEventLocked): a restart between
		// the two would find the marker with the run still proceeding.
		s.endMarker = 1 + s.appendMemoryLocked([]Message{{Role: RoleMarker, Text: label, Reason: reason}})
		defer func() { s.endMarker = 0 }()
		s.lastEnd = endInterrupted
		s.interruption = &Interruption{Reason: reason, Label: label, At: time.Now(), Resumable: !r.hostOwned, HostOwned: r.hostOwned, SideEffectCut: r.sideEffectCut, Run: r.id}
		s.cutLoop = r.loop
		if r.loop != nil {
			s.interruption.Loop = r.loop.id
		}
		in := *s.interruption
		res := RunResult{Run: r.id, Status: StatusInterrupted, Interruption: &in, Usage: s.runUsageLocked(r)}
		if err == nil || !errors.Is(err, ErrInterrupted) {
			err = &interruptCause{reason: reason}
		}
		res.Error = err.Error()
		s.emitLocked(Event{Type: EventInterrupted, Reason: reason, Run: r.id, Result: &res})
		return res, err
	case err != nil:
		s.lastEnd = endFailed
		s.lastError = err.Error()
		code := ErrorCode(err)
		res := RunResult{Run: r.id, Status: StatusIdle, Error: err.Error(), ErrorCode: code, Usage: s.runUsageLocked(r)}
		s.emitLocked(Event{Type: EventRunFailed, Text: err.Error(), Code: code, Run: r.id, Result: &res})
		return res, err
	}
	s.lastEnd = endFinished
	res := RunResult{Run: r.id, Status: StatusIdle, Text: r.text, Usage: s.runUsageLocked(r)}
	s.emitLocked(Event{Type: EventRunFinished, Run: r.id, Result: &res})
	return res, nil
}

// runUsageLocked is the tokens run r used: the session's now less those at its start.
func (s *Session) runUsageLocked(r *run) Usage {
	return Usage{Input: s.tokens.Input - r.startTokens.Input, Output: s.tokens.Output - r.startTokens.Output}
}

// turns alternates model turns and tool calls, parking at step boundaries
// when a pause signal is pending.
func (s *Session) turns(r *run) error { return s.turnsFrom(r, beforeTurn, nil, false) }

// stepAt names a step boundary of the loop in turns.
type stepAt int

const (
	beforeTurn    stepAt = iota // before a model turn
	beforeCalls                 // after a model turn, before its tool calls
	afterLastTurn               // after the model ended its turn: the run ends
)

// turnsFrom drives the loop on from the step boundary at (calls: the
// turn's tool calls, before they run). passed: a signal pause at that
// boundary was already released.
func (s *Session) turnsFrom(r *run, at stepAt, calls []ToolCall, passed bool) error {
	for {
		if !passed {
			if err := s.stepBoundary(r, at, calls); err != nil {
				return err
			}
		}
		passed = false
		switch at {
		case afterLastTurn:
			return nil
		case beforeCalls:
			if err := s.runTools(r, calls); err != nil {
				return err
			}
			at, calls = beforeTurn, nil
		case beforeTurn:
			c, err := s.modelTurn(r)
			if err != nil {
				return err
			}
			// A pause requested during the turn lands before its tool
			// calls; when the model ended its turn, it still lands.
			at, calls = beforeCalls, c
			if len(c) == 0 {
				at = afterLastTurn
			}
		}
	}
}

// stepBoundary is the boundary at: where a parkable run parks on a signal
// pause (errParked: the resume carries it on), and any other blocks.
func (s *Session) stepBoundary(r *run, at stepAt, calls []ToolCall) error {
	if !r.parkable {
		return s.boundary(r)
	}
	if r.ctx.Err() != nil {
		return interruptErr(r.ctx)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.pauseRequested {
		return nil
	}
	s.pauseRequested = false
	_, err := s.raisePauseLocked(r.ctx, r, signalPauseRequest(s.step), SourceSignal, s.step, 0, &parkedStep{r: r, at: at, calls: calls}, nil)
	if err != nil {
		return err
	}
	return errParked
}

func signalPauseRequest(step int) PauseRequest {
	return PauseRequest{Kind: PauseContinue, Message: fmt.Sprintf("Paused at step %d", step)}
}

// parkedStep is a run parked on a signal pause at a step boundary.
type parkedStep struct {
	r     *run
	at    stepAt
	calls []ToolCall
}

// resume goes on from the boundary once the pause was released, or ends
// the run when it was interrupted.
func (p *parkedStep) resume(s *Session, _ PauseResult, err error) {
	if err == nil {
		err = s.turnsFrom(p.r, p.at, p.calls, true)
	}
	s.settle(p.r, err)
}

// boundary is a step boundary: the run stops here if interrupted, and parks
// on a signal pause if one was requested. Taking the request and raising
// the pause is one change, so a resume can't fall between them and be lost.
func (s *Session) boundary(r *run) error { return s.boundaryCtx(r.ctx, r) }

// boundaryCtx is boundary for a caller whose own ctx may also end the
// wait (a host-driven run's Step).
func (s *Session) boundaryCtx(ctx context.Context, r *run) error {
	for _, c := range []context.Context{r.ctx, ctx} {
		if c.Err() != nil {
			return interruptErr(c)
		}
	}
	s.mu.Lock()
	if !s.pauseRequested {
		s.mu.Unlock()
		return nil
	}
	s.pauseRequested = false
	p, err := s.raisePauseLocked(ctx, r, signalPauseRequest(s.step), SourceSignal, s.step, 0, nil, nil)
	s.mu.Unlock()
	if err != nil {
		return err
	}
	_, err = s.waitPause(ctx, r, p, 0)
	return err
}

func (s *Session) record(msgs ...Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.appendHistoryLocked(msgs...)
}

func (s *Session) nextStep() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.step++
	return s.step
}

// modelTurn streams one model turn. The partial text of a cut turn is kept.
func (s *Session) modelTurn(r *run) ([]ToolCall, error) {
	step := s.nextStep()
	s.mu.Lock()
	// History is append-only, so a view capped at its length is a stable
	// snapshot; copying it every turn made long sessions quadratic.
	req := ModelRequest{Messages: s.history[:len(s.history):len(s.history)], Tools: s.eng.tools.Specs(), LookupEnv: s.eng.environment.LookupEnv}
	s.mu.Unlock()
	if r.provider == nil {
		return nil, fmt.Errorf("session %s: %w: no model provider configured (engine.WithProvider or SessionOptions.Provider)", s.id, ErrInvalidArgument)
	}
	ctx, idle := s.beginTurn(r)
	defer s.endTurn(r, idle)
	stream, err := idle.open(ctx, r.ctx, r.provider, req)
	if err != nil {
		if r.ctx.Err() != nil {
			return nil, interruptErr(r.ctx)
		}
		return nil, fmt.Errorf("model %s: %w", providerName(r.provider), err)
	}
	defer protect("model stream close", "", func() (struct{}, error) { return struct{}{}, stream.Close() })
	var text strings.Builder
	var calls []ToolCall
	var usage *Usage
	for {
		chunk, err := idle.recv(ctx, r.ctx, stream)
		if err == nil || err == io.EOF {
			s.markResumed(r) // the model answered: the resumed run has started
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			s.finishTurn(text.String(), calls, usage, true)
			if r.ctx.Err() != nil {
				return nil, interruptErr(r.ctx)
			}
			return nil, err
		}
		if chunk.Text != "" {
			text.WriteString(chunk.Text)
			s.mu.Lock()
			s.emitLocked(Event{Type: EventText, Text: chunk.Text})
			s.mu.Unlock()
		}
		if d := chunk.ToolCallDelta; d != nil && d.Args != "" {
			s.mu.Lock()
			s.emitLocked(Event{Type: EventToolCallDelta, Tool: d.Name, CallID: d.ID, Text: d.Args})
			s.mu.Unlock()
		}
		if c := chunk.ToolCall; c != nil {
			call := *c
			if call.ID == "" {
				call.ID = "call_" + strconv.Itoa(step) + "_" + strconv.Itoa(len(calls)+1)
			}
			calls = append(calls, call)
		}
		if chunk.Usage != nil {
			u := *chunk.Usage
			usage = &u
		}
	}
	s.finishTurn(text.String(), calls, usage, false)
	return calls, nil
}

// beginTurn returns the context of a model turn, which the stream's idle
// timeout may end with its own cause, and its idle watch, which endTurn
// ends. The context is derived from the caller's context, not from the
// run's, and the run's stop (stopLocked) ends it too: so the run's
// context, which a parked run keeps, gathers nothing from the turns (a
// context's set of children keeps its room once made).
func (s *Session) beginTurn(r *run) (context.Context, *idleWatch) {
	ctx, cancel := context.WithCancelCause(r.base)
	s.mu.Lock()
	if r.ctx.Err() != nil {
		cancel(context.Cause(r.ctx))
	} else {
		r.turnCancel = cancel
	}
	s.mu.Unlock()
	return ctx, &idleWatch{timeout: s.eng.idleTimeout, cancel: cancel, cause: interruptCause{reason: ReasonTimeout}}
}

// endTurn ends the model turn watched by w.
func (s *Session) endTurn(r *run, w *idleWatch) {
	w.stop()
	s.mu.Lock()
	r.turnCancel = nil
	s.mu.Unlock()
	w.cancel(nil)
}

// idleWatch ends a model turn whose stream stays silent longer than the
// idle timeout: one timer per turn, armed at the request (waiting for the
// server's answer is a wait like a read). A read only
// notes when it began (a chunk per read: re-arming a runtime timer for
// each of a streamed answer's hundreds of chunks cost two timer-heap
// updates each); the timer, when it fires, ends the turn if a read has
// been waiting for the whole timeout and is set again for the rest
// otherwise. One allocation holds what a turn needs besides its context
// and the timer.
type idleWatch struct {
	timeout time.Duration
	cancel  context.CancelCauseFunc // the turn's
	timer   *time.Timer
	cause   interruptCause // what the timer ends the turn with
	start   time.Time      // the request: waits are timed from it
	waiting atomic.Int64   // since when (after start) a read waits; notWaiting between reads
	ended   atomic.Bool    // endTurn: the timer does nothing more
}

// notWaiting is idleWatch.waiting between two reads.
const notWaiting = math.MaxInt64

func (w *idleWatch) fire() {
	if w.ended.Load() {
		return
	}
	rest := w.timeout
	if since := w.waiting.Load(); since != notWaiting {
		rest -= time.Since(w.start) - time.Duration(since)
		if rest <= 0 {
			w.cancel(&w.cause)
			return
		}
	}
	w.timer.Reset(rest)
}

// stop ends the watch at the end of its turn.
func (w *idleWatch) stop() {
	w.ended.Store(true)
	if w.timer != nil {
		w.timer.Stop()
	}
}

// open sends the turn's request: waiting for the server's answer is
// silence too (a server that takes the connection and never answers), so
// the idle timeout counts from here.
func (w *idleWatch) open(ctx, run context.Context, p Provider, req ModelRequest) (st Stream, err error) {
	err = w.wait(ctx, run, func() error {
		st, err = protect("Stream", "", func() (Stream, error) { return p.Stream(ctx, req) })
		return err
	})
	return st, err
}

// recv reads one chunk from the turn's stream (ctx is the turn's, run the
// run's), failing with a timeout interruption when the stream stays silent
// longer than the idle timeout.
func (w *idleWatch) recv(ctx, run context.Context, st Stream) (c Chunk, err error) {
	err = w.wait(ctx, run, func() error {
		c, err = protect("model stream", "", func() (Chunk, error) { return st.Recv(ctx) })
		return err
	})
	return c, err
}

// wait runs f, one wait for the model server, under the idle timeout.
func (w *idleWatch) wait(ctx, run context.Context, f func() error) error {
	if w.timeout <= 0 {
		return f()
	}
	if w.timer == nil {
		w.start = time.Now()
		w.waiting.Store(0)
		// Armed once w.timer is set: fire may reset it.
		w.timer = time.AfterFunc(math.MaxInt64, w.fire)
		w.timer.Reset(w.timeout)
	} else {
		w.waiting.Store(int64(time.Since(w.start)))
	}
	err := f()
	w.waiting.Store(notWaiting)
	if err != nil && run.Err() == nil && context.Cause(ctx) == error(&w.cause) {
		return fmt.Errorf("%w after %s: %w", ErrIdleTimeout, w.timeout, &w.cause)
	}
	return err
}

// finishTurn appends the assistant message and counts tokens: the provider's
// usage when it sent one, else an estimate of what was streamed.
func (s *Session) finishTurn(text string, calls []ToolCall, usage *Usage, cut bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if usage != nil {
		s.tokens.Input += usage.Input
		s.tokens.Output += usage.Output
	} else {
		s.tokens.Output += (len(text) + 3) / 4
	}
	if r := s.run; r != nil && !cut {
		r.text = text // the run's final answer is its last turn's text ("" after tool calls)
	}
	if text == "" && len(calls) == 0 {
		s.appendHistoryLocked() // the tokens, even when there is no message
		return
	}
	msg := Message{Role: RoleAssistant, Text: text, ToolCalls: calls, Interrupted: cut}
	if !cut {
		s.appendHistoryLocked(msg)
		return
	}
	msgs := []Message{msg}
	for _, c := range calls {
		msgs = append(msgs, interruptedResult(c, ""))
	}
	s.appendHistoryLocked(msgs...)
}

// interruptedNote ends the result of a tool call cut by an interrupt.
const interruptedNote = "interrupted before completion"

// interruptedResult is the result of call c cut by an interrupt: what the
// call had output by then (a command's lines so far, within the tool's
// cap), so the model and the person see what ran, and the note.
func interruptedResult(c ToolCall, output string) Message {
	text := interruptedNote
	if output != "" {
		text = strings.TrimSuffix(output, "\n") + "\n" + interruptedNote
	}
	return Message{Role: RoleTool, ToolCallID: c.ID, Text: text, IsError: true, Interrupted: true}
}

// runTools runs one turn's tool calls, in parallel when there are several
// (at most maxParallelTools at once), and records their results in call
// order. A lone call of a parkable run may park it at a question
// (Env.Ask): then it returns errParked and the answer carries the run on
// (Env.resume).
func (s *Session) runTools(r *run, calls []ToolCall) error {
	if len(calls) == 1 {
		env, msg := s.runTool(r, calls[0], s.nextStep(), r.parkable)
		if env.then != nil {
			return s.park(env)
		}
		return s.recordResults(r, msg)
	}
	results := make([]Message, len(calls))
	slots := make(chan struct{}, maxParallelTools)
	var wg sync.WaitGroup
	for i, c := range calls {
		step := s.nextStep()
		select {
		case slots <- struct{}{}:
		case <-r.ctx.Done():
		}
		if r.ctx.Err() != nil {
			results[i] = interruptedResult(c, "") // never started
			continue
		}
		wg.Go(func() {
			defer func() { <-slots }()
			_, results[i] = s.runTool(r, c, step, false)
		})
	}
	wg.Wait()
	return s.recordResults(r, results...)
}

// maxParallelTools bounds how many of a turn's tool calls run at once: a
// model (or a hostile server) asking for thousands in one turn must not
// start thousands of commands together. The others start in order as
// calls end.
const maxParallelTools = 10

// recordResults records a turn's tool results; the run goes on unless it
// was interrupted.
func (s *Session) recordResults(r *run, results ...Message) error {
	s.mu.Lock()
	s.appendResultsLocked(results...)
	s.mu.Unlock()
	if r.ctx.Err() != nil {
		return interruptErr(r.ctx)
	}
	return nil
}

// runTool runs one call and returns its result, or, when the call parked
// at a question (env.then set), nothing yet: park raises it.
func (s *Session) runTool(r *run, c ToolCall, step int, canPark bool) (*Env, Message) {
	env := &Env{session: s, run: r, call: c, step: step}
	tool, lookupErr := s.eng.tools.Lookup(c.Name)
	s.mu.Lock()
	if lookupErr == nil {
		env.tool, env.canPark = tool, canPark
		s.callRunsLocked(env) // executing from its start event on
	}
	s.emitLocked(Event{Type: EventToolStarted, Tool: c.Name, CallID: c.ID, Step: step})
	s.mu.Unlock()
	if lookupErr != nil {
		return env, s.finishTool(env, Message{Role: RoleTool, ToolCallID: c.ID, Text: lookupErr.Error(), IsError: true})
	}
	res, err := protect("tool", c.Name, func() (Result, error) { return tool.Run(r.ctx, c, env) })
	env.canPark = false
	if errors.Is(err, errParked) && env.then != nil {
		return env, Message{}
	}
	env.then = nil
	return env, s.finishTool(env, s.toolResult(env, res, err))
}

// toolResult is what the model sees of a call that returned (res, err).
func (s *Session) toolResult(env *Env, res Result, err error) Message {
	r, c := env.run, env.call
	if r.ctx.Err() != nil {
		// Cut while waiting for the user's permission: nothing had started.
		if se, ok := env.tool.(SideEffecter); ok && se.HasSideEffects(c) && !env.cutAtPause.Load() {
			s.mu.Lock()
			r.sideEffectCut = true
			s.mu.Unlock()
		}
		return interruptedResult(c, res.Output)
	}
	if err != nil {
		return Message{Role: RoleTool, ToolCallID: c.ID, Text: err.Error(), IsError: true}
	}
	return Message{Role: RoleTool, ToolCallID: c.ID, Text: res.Output, IsError: res.IsError}
}

// finishTool emits the call's tool_finished and returns its result.
func (s *Session) finishTool(env *Env, msg Message) Message {
	var status string
	if msg.IsError {
		status = "error"
	}
	s.mu.Lock()
	s.callStopsLocked(env)
	s.emitLocked(Event{Type: EventToolFinished, Tool: env.call.Name, CallID: env.call.ID, Step: env.step, Text: status})
	s.mu.Unlock()
	return msg
}

// park raises the question env's call asked with Ask and leaves the run
// parked on it: the run's goroutine returns (errParked) and nothing of the
// run is left but its facts. The answer, an interrupt or Close continues
// the call on a fresh goroutine (Env.resume). Interrupted before the
// question was raised, the call ends here as Pause would have ended it.
func (s *Session) park(env *Env) error {
	r := env.run
	s.mu.Lock()
	s.callStopsLocked(env) // Run has returned: nothing of the call runs until the answer
	_, err := s.raisePauseLocked(r.ctx, r, *env.ask, SourceTool, env.step, 0, env, nil)
	env.ask = nil // the pause holds what the user is asked
	s.mu.Unlock()
	if err == nil {
		return errParked
	}
	return s.finishParked(env, Result{}, err, true)
}

// resume carries a run parked at env's question on once the question has
// ended: answered (res) or interrupted (pauseErr). It finishes the call
// with the tool's AskFunc, then drives the run as its first goroutine
// would have.
func (env *Env) resume(s *Session, res PauseResult, pauseErr error) {
	var out Result
	err := pauseErr
	if err == nil {
		then := env.then
		s.mu.Lock()
		s.callRunsLocked(env)
		s.mu.Unlock()
		out, err = protect("tool", env.call.Name, func() (Result, error) { return then(env.run.ctx, res) })
	}
	err = s.finishParked(env, out, err, pauseErr != nil)
	if err == nil {
		err = s.turns(env.run)
	}
	s.settle(env.run, err)
}

// finishParked ends a call that had parked (or was about to) with the
// outcome of its question, and records its result. atPause: err is the
// question's own (an interrupt), not the tool's.
func (s *Session) finishParked(env *Env, res Result, err error, atPause bool) error {
	env.ask, env.then = nil, nil
	if atPause && env.run.ctx.Err() != nil {
		env.cutAtPause.Store(true) // cut at the question: the action it guards had not started
	}
	return s.recordResults(env.run, s.finishTool(env, s.toolResult(env, res, err)))
}

// protect runs f and turns its panic into an error: a bad tool, provider or
// task function must not take the process (and the Node app hosting it) down.
// The error names what panicked, what and its name (if any): put together
// only then, not at every call.
func protect[T any](what, name string, f func() (T, error)) (v T, err error) {
	defer func() {
		if p := recover(); p != nil {
			if name != "" {
				what += " " + name
			}
			err = fmt.Errorf("%s panicked: %v", what, p)
		}
	}()
	return f()
}

func providerName(p Provider) string {
	if n, ok := p.(interface{ Name() string }); ok {
		return n.Name()
	}
	if p == nil {
		return ""
	}
	return fmt.Sprintf("%T", p)
}
