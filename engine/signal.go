package engine

import (
	"context"
	"fmt"
	"sync"
)

// Signal is a control signal sent to a session's step loop (seed 002).
type Signal string

// Control signals.
const (
	SignalPause  Signal = "pause"  // park at the next step boundary; never cuts a tool
	SignalResume Signal = "resume" // release a signal pause (or withdraw a pending request)
	SignalCancel Signal = "cancel" // Interrupt(ReasonUserStop)
)

// Signal sends a control signal. The session is its own controller: it
// exists before the first run, so a pause can be requested before or during
// it. Pause is idempotent; resume with nothing to resume returns ErrNotPaused.
func (s *Session) Signal(sig Signal) error {
	defer s.eng.deliverCaused() // once the session's lock is released
	switch sig {
	case SignalCancel:
		return s.Interrupt(ReasonUserStop)
	case SignalPause, SignalResume:
	default:
		return fmt.Errorf("%w: signal %q (want pause, resume or cancel)", ErrInvalidArgument, sig)
	}
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return fmt.Errorf("session %s: %w", s.id, ErrClosed)
	}
	var parked *pending
	for _, p := range s.pauses {
		if p.Source == SourceSignal {
			parked = p
			break
		}
	}
	if sig == SignalPause {
		defer s.mu.Unlock()
		if parked == nil && !s.pauseRequested {
			s.pauseRequested = true
			s.emitLocked(Event{Type: EventPauseRequested})
		}
		return nil
	}
	if parked == nil {
		defer s.mu.Unlock()
		if !s.pauseRequested {
			return fmt.Errorf("session %s: no signal pause to resume: %w", s.id, ErrNotPaused)
		}
		s.pauseRequested = false
		s.emitLocked(Event{Type: EventPauseAnswered, Answer: AnswerResumed})
		return nil
	}
	s.mu.Unlock()
	return s.answer(parked.ID, AnswerResumed)
}

// SignalEvent names a notification of the signal controller (seed 002).
type SignalEvent string

// Signal events.
const (
	OnPause  SignalEvent = "onPause"  // parked at a step boundary
	OnResume SignalEvent = "onResume" // released from a signal pause
	OnCancel SignalEvent = "onCancel" // the run is being interrupted
	OnError  SignalEvent = "onError"  // the run failed
)

// SignalInfo is the payload of a signal event.
type SignalInfo struct {
	Event SignalEvent
	Step  int
	Err   string // OnError
}

// signalOf maps an engine event to the signal event it is, if any.
func signalOf(ev Event) (SignalEvent, bool) {
	switch {
	case ev.Type == EventPaused && ev.Pause != nil && ev.Pause.Source == SourceSignal:
		return OnPause, true
	case ev.Type == EventPauseAnswered && ev.Answer == AnswerResumed && (ev.Answered == nil || ev.Answered.Source == SourceSignal):
		return OnResume, true
	case ev.Type == EventStopping:
		return OnCancel, true
	case ev.Type == EventRunFailed:
		return OnError, true
	}
	return "", false
}

// OnSignal calls fn, on a goroutine of its own and in order, for every
// signal event of kind ev from now on. stop unregisters fn and waits until
// it is no longer running; listeners also end when the session closes.
func (s *Session) OnSignal(ev SignalEvent, fn func(SignalInfo)) (stop func()) {
	sub := s.Subscribe()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		defer sub.Close()
		for {
			e, err := sub.Next(ctx)
			if err != nil {
				return
			}
			if kind, ok := signalOf(e); ok && kind == ev {
				fn(SignalInfo{Event: kind, Step: e.Step, Err: e.Text})
			}
		}
	})
	return func() { cancel(); wg.Wait() }
}
