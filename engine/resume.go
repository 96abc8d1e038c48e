package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
)

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
