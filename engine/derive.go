package engine

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

// RunState returns the session's run state (seed 003).
func (s *Session) RunState() RunState {
	st, _ := s.state()
	return st
}

// Eligibility says whether Continue would resume the session, and why not.
func (s *Session) Eligibility() Eligibility {
	_, el := s.state()
	return el
}

func (s *Session) state() (RunState, Eligibility) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stateLocked()
}

// stateLocked derives the run state and the eligibility from the facts.
func (s *Session) stateLocked() (RunState, Eligibility) {
	switch {
	case s.closed || s.closing:
		return RunTerminal, Eligibility{Reason: NotEligibleTerminal}
	case s.run != nil && s.run.stopReason == "" && len(s.pauses) > 0 && !s.executingLocked(s.run):
		// Only waiting: a call still running beside a question (parallel
		// calls) keeps the run proceeding, for Stop and emergency stop.
		return RunBlocked, Eligibility{Reason: NotEligibleNeedsInput}
	case s.run != nil:
		return RunProceeding, Eligibility{Reason: NotEligibleProceeding}
	case s.needsInput != nil: // Continue asks first when the cut call may have acted
		return RunBlocked, Eligibility{Reason: NotEligibleAskAgain, AsksAgain: true, RepeatsSideEffect: s.interruption != nil && s.interruption.SideEffectCut}
	case s.lastEnd != endInterrupted:
		return RunIdle, Eligibility{Reason: NotEligibleIdle}
	}
	in := s.interruption
	switch {
	case in.HostOwned:
		return RunInterrupted, Eligibility{Reason: NotEligibleHostRun}
	case !in.Resumable && in.NotResumable != "":
		return RunInterrupted, Eligibility{Reason: in.NotResumable}
	case !in.Resumable:
		return RunInterrupted, Eligibility{Reason: NotEligibleTaskLoop}
	case in.Loop != "" && s.cutLoop == nil:
		return RunInterrupted, Eligibility{Reason: NotEligibleLoopClosed}
	case in.Loop == "" && s.provider == nil: // a loop's tasks may have their own models, or none
		return RunInterrupted, Eligibility{Reason: NotEligibleNoProvider}
	}
	return RunInterrupted, Eligibility{Eligible: true, RepeatsSideEffect: in.SideEffectCut}
}

// cancelIfProceeding cancels the run in flight with reason when it is
// proceeding (not only blocked on a question, not already stopping) and
// returns it with the pauses the stop ended; announceStopLocked tells
// them.
func (s *Session) cancelIfProceeding(reason Reason) (*run, []*pending) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, _ := s.stateLocked(); st != RunProceeding || s.run.stopReason != "" {
		return nil, nil
	}
	r := s.run
	pending := s.cancelRunLocked(r, reason)
	s.status.Store(int32(s.deriveLocked())) // stopping; the event follows
	return r, pending
}
