package engine

import (
	"context"
	"errors"
)

// Counts counts, at one moment, what EmergencyStop and ResumeAll would
// affect and how many sessions need an answer.
func (e *Engine) Counts() Counts {
	var c Counts
	for _, s := range e.Sessions() {
		s.mu.Lock()
		st, el := s.stateLocked()
		stopping := s.run != nil && s.run.stopReason != ""
		asking := len(s.pauses) > 0
		s.mu.Unlock()
		switch {
		case st == RunProceeding && !stopping:
			c.Proceeding++
			if asking {
				c.NeedsInput++
			}
		case st == RunBlocked:
			c.NeedsInput++
		case el.Eligible:
			c.Eligible++
		}
	}
	return c
}

// EmergencyStop interrupts every proceeding session with reason
// emergency_stop: runs in flight and task loops running a task (a loop
// runs inside its session's run). A run with anything executing (a model
// streaming, a tool call running) is proceeding even when another call of
// the same turn waits at a question: the stop cuts all of it, and its
// pending pauses are answered interrupted. Sessions waiting for the user,
// only blocked on a question (a task loop waiting between tasks included)
// or already stopping are not touched, so a second call stops nothing
// more. Every run is cancelled first, then each stop is stored and told
// (stopping): the last session's work stops as soon as the first's, not
// after the writes of all the others. It returns once the cut calls of
// tools that run processes (ProcessRunner: the bash tool) have returned,
// their process trees gone; other tools' calls (a JS tool's gets its
// abort) are not waited for.
func (e *Engine) EmergencyStop() StopReport {
	rep := StopReport{Stopped: []string{}}
	type stop struct {
		s       *Session
		r       *run
		pending []*pending // the pauses the stop ended
	}
	var stops []stop
	for _, s := range e.Sessions() {
		if r, pending := s.cancelIfProceeding(ReasonEmergencyStop); r != nil {
			stops = append(stops, stop{s, r, pending})
			rep.Stopped = append(rep.Stopped, s.id)
		}
	}
	waits := make([]<-chan struct{}, 0, len(stops))
	for _, st := range stops {
		st.s.mu.Lock()
		if st.s.run == st.r {
			st.s.announceStopLocked(st.r, st.pending)
		} else { // ended already, interrupted with the reason; a parked run can't have
			st.s.answerInterruptedLocked(st.pending)
		}
		waits = append(waits, st.r.callsDoneLocked())
		st.s.mu.Unlock()
	}
	for _, w := range waits {
		<-w
	}
	return rep
}

// ResumeAll continues every eligible session in the background (as
// StartContinue; one whose resumption may repeat a side effect asks first)
// and reports which it resumed and why it skipped the others. Eligibility
// is checked and the run begun in one step under the session's lock, so
// concurrent or repeated calls never start two runs of one session. The
// runs belong to the engine: they outlive ctx's cancellation but keep its
// values. Given ids (those a user was shown before confirming), it
// considers only those: one that became eligible since is not resumed, one
// that is gone is skipped as closed.
func (e *Engine) ResumeAll(ctx context.Context, ids ...string) ResumeReport {
	rep := ResumeReport{Resumed: []string{}, Skipped: map[string]string{}}
	ctx = context.WithoutCancel(ctx)
	var only map[string]bool
	if len(ids) > 0 {
		only = make(map[string]bool, len(ids))
		for _, id := range ids {
			only[id] = true
		}
	}
	for _, s := range e.Sessions() {
		if only != nil && !only[s.id] {
			continue
		}
		delete(only, s.id)
		if _, _, err := s.startContinue(ctx, true); err != nil {
			rep.Skipped[s.id] = skipReason(err)
			continue
		}
		rep.Resumed = append(rep.Resumed, s.id)
	}
	for id := range only { // named, and gone
		rep.Skipped[id] = NotEligibleTerminal
	}
	return rep
}

// skipReason is the user-facing part of why a session was not resumed.
func skipReason(err error) string {
	var ne *notEligibleError
	switch {
	case errors.As(err, &ne):
		return ne.el.Reason
	case errors.Is(err, ErrRunning):
		return NotEligibleProceeding
	case errors.Is(err, ErrClosed):
		return NotEligibleTerminal
	}
	return err.Error()
}

// Info returns what the engine runs with.
func (e *Engine) Info() Info {
	info := Info{Tools: e.tools.Names(), Sandbox: []Sandbox{}}
	for _, name := range info.Tools {
		if t, err := e.tools.Lookup(name); err == nil {
			if sb, ok := t.(Sandboxer); ok {
				r := sb.Sandbox(nil)
				r.Tool = name
				info.Sandbox = append(info.Sandbox, r)
			}
		}
	}
	return info
}
