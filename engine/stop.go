package engine

import (
	"context"
	"errors"
	"fmt"
)

// Interrupt stops the run in flight at once: its context is cancelled with the
// reason as cause, pending pauses end as interrupted, and the status is
// stopping until every tool has returned, then interrupted. A second
// Interrupt while stopping is a no-op. An empty reason is ReasonUserStop.
func (s *Session) Interrupt(reason Reason) error {
	_, err := s.interrupt(reason)
	return err
}

// InterruptWait is Interrupt, then waits until the cut calls of tools that
// run processes (ProcessRunner: the bash tool) have returned, their
// process trees gone, as EmergencyStop does for every session; ctx bounds
// the wait (the stop itself is made at once).
func (s *Session) InterruptWait(ctx context.Context, reason Reason) error {
	done, err := s.interrupt(reason)
	if err != nil {
		return err
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// interrupt stops the run in flight and returns a channel closed once its
// calls of tools that run processes have returned.
func (s *Session) interrupt(reason Reason) (<-chan struct{}, error) {
	if reason == "" {
		reason = ReasonUserStop
	}
	if !reason.Valid() {
		return nil, fmt.Errorf("%w: interruption reason %q: use user_stop (the default), emergency_stop, system_stop, server_restart or timeout", ErrInvalidArgument, reason)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, fmt.Errorf("session %s: %w", s.id, ErrClosed)
	}
	if s.run == nil {
		return nil, fmt.Errorf("session %s (%s): %w", s.id, s.deriveLocked(), ErrNotRunning)
	}
	s.stopLocked(reason)
	return s.run.callsDoneLocked(), nil
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

// interruptErr is the error a blocking point returns when ctx is done: it
// wraps ErrInterrupted and carries the reason when there is one.
func interruptErr(ctx context.Context) error {
	cause := context.Cause(ctx)
	if errors.Is(cause, ErrInterrupted) {
		return cause
	}
	return fmt.Errorf("%w: %w", ErrInterrupted, cause)
}
