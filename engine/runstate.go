package engine

import (
	"context"
	"errors"
	"fmt"
)

// RunState is what a user needs to decide between Send, Stop, Continue and
// answering: the session's status folded into five run states.
type RunState string

// Run states.
const (
	RunIdle        RunState = "idle"        // waiting for the user: Send
	RunProceeding  RunState = "proceeding"  // the engine is driving (or stopping): Stop
	RunInterrupted RunState = "interrupted" // stopped mid-run: Continue when eligible
	RunBlocked     RunState = "blocked"     // needs input: answer the pause
	RunTerminal    RunState = "terminal"    // closed
)

// RunStateOf folds a status into its run state.
func RunStateOf(st Status) RunState {
	switch st {
	case StatusRunning, StatusStopping:
		return RunProceeding
	case StatusInterrupted:
		return RunInterrupted
	case StatusPaused:
		return RunBlocked
	case StatusClosed:
		return RunTerminal
	}
	return RunIdle
}

// ReasonLabel is the text shown for an interruption reason ("Stopped by
// you", ...). The TUI and the web page carry the same table.
func ReasonLabel(r Reason) string { return r.Label() }

// Eligibility says whether Continue may be offered, and why not.
type Eligibility struct {
	Eligible bool `json:"eligible"`
	// Reason says why not, when not ("Waiting for your input", ...).
	Reason string `json:"reason,omitempty"`
	// RepeatsSideEffect: a tool with side effects was cut off, so
	// continuing asks for confirmation first.
	RepeatsSideEffect bool `json:"repeats_side_effect,omitempty"`
}

// Reasons a session is not eligible for Continue.
const (
	NotEligibleProceeding = "Already proceeding"
	NotEligibleNeedsInput = "Waiting for your input"
	NotEligibleIdle       = "Nothing to continue"
	NotEligibleTerminal   = "Session is closed"
	NotEligibleNoTarget   = "Cannot be resumed"
)

// RunState returns the session's run state.
func (s *Session) RunState() RunState { return RunStateOf(s.Status()) }

// Eligibility returns whether Continue may be offered now.
func (s *Session) Eligibility() Eligibility {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.eligibilityLocked()
}

func (s *Session) eligibilityLocked() Eligibility {
	switch RunStateOf(s.deriveLocked()) {
	case RunProceeding:
		return Eligibility{Reason: NotEligibleProceeding}
	case RunBlocked:
		return Eligibility{Reason: NotEligibleNeedsInput}
	case RunTerminal:
		return Eligibility{Reason: NotEligibleTerminal}
	case RunIdle:
		return Eligibility{Reason: NotEligibleIdle}
	}
	in := s.interruption
	if !in.Resumable {
		return Eligibility{Reason: NotEligibleNoTarget}
	}
	return Eligibility{Eligible: true, RepeatsSideEffect: in.SideEffectCut}
}

// Counts is what the global controls affect: sessions proceeding (emergency
// stop), eligible for Continue (resume all) and blocked on an answer.
type Counts struct {
	Proceeding int `json:"proceeding"`
	Eligible   int `json:"eligible"`
	NeedsInput int `json:"needs_input"`
}

// Counts counts the open sessions by what the global controls would do.
func (e *Engine) Counts() Counts {
	var c Counts
	for _, s := range e.Sessions() {
		switch el := s.Eligibility(); {
		case el.Eligible:
			c.Eligible++
		case el.Reason == NotEligibleProceeding:
			c.Proceeding++
		case el.Reason == NotEligibleNeedsInput:
			c.NeedsInput++
		}
	}
	return c
}

// StopReport lists the sessions an emergency stop interrupted.
type StopReport struct {
	Stopped []string `json:"stopped"`
}

// EmergencyStop interrupts every proceeding session (task loops run inside
// their session's run) with reason emergency_stop. Idle, blocked and
// interrupted sessions are not touched; a session already stopping is not
// stopped again, so a second call reports nothing.
func (e *Engine) EmergencyStop() StopReport {
	rep := StopReport{Stopped: []string{}}
	for _, s := range e.Sessions() {
		if s.stopIfRunning(ReasonEmergencyStop) {
			rep.Stopped = append(rep.Stopped, s.id)
		}
	}
	return rep
}

// stopIfRunning interrupts the run when it is proceeding and not already stopping.
func (s *Session) stopIfRunning(reason Reason) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.deriveLocked() != StatusRunning {
		return false
	}
	s.stopLocked(reason)
	return true
}

// ResumeReport lists the sessions ResumeAll continued and why it skipped others.
type ResumeReport struct {
	Resumed []string          `json:"resumed"`
	Skipped map[string]string `json:"skipped"` // session id → reason
}

// ResumeAll continues every eligible session in the background (a session
// whose resumption may repeat a side effect asks first, with a confirm
// pause). Runs belong to the engine: they outlive ctx's cancellation but
// keep its values. A session already running is skipped, so calling twice
// never starts parallel runs.
func (e *Engine) ResumeAll(ctx context.Context) ResumeReport {
	rep := ResumeReport{Resumed: []string{}, Skipped: map[string]string{}}
	runCtx := context.WithoutCancel(ctx)
	for _, s := range e.Sessions() {
		if el := s.Eligibility(); !el.Eligible {
			rep.Skipped[s.id] = el.Reason
			continue
		}
		if _, err := s.StartContinue(runCtx); err != nil {
			rep.Skipped[s.id] = skipReason(err)
			continue
		}
		rep.Resumed = append(rep.Resumed, s.id)
	}
	return rep
}

func skipReason(err error) string {
	switch {
	case errors.Is(err, ErrRunning):
		return NotEligibleProceeding
	case errors.Is(err, ErrClosed):
		return NotEligibleTerminal
	case errors.Is(err, ErrNotResumable):
		return NotEligibleIdle
	}
	return fmt.Sprint(err)
}
