package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
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
