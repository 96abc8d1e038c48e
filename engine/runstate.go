package engine

import (
	"context"
	"errors"
	"maps"
)

// RunState is a session's state as seed 003 names it: what a user needs to
// decide between Send, Stop, Continue and answering.
type RunState string

// Run states.
const (
	RunIdle        RunState = "idle"        // waiting for the user: Send
	RunProceeding  RunState = "proceeding"  // the engine is driving (or stopping): Stop
	RunInterrupted RunState = "interrupted" // stopped mid-run: Continue when eligible
	RunBlocked     RunState = "blocked"     // needs input: answer the pause
	RunTerminal    RunState = "terminal"    // closed
)

// RunStateOf folds a status into its run state, for an observer that has
// only an event's status. A session's own RunState also knows the facts a
// status does not show (a question asked before a restart is blocked).
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

// reasonLabels is the text shown to a user for each reason: the one table,
// which the web UI, the JS wrapper and the TUI read from here (snapshots,
// events, ReasonLabels).
var reasonLabels = map[Reason]string{
	ReasonUserStop:      "Stopped by you",
	ReasonEmergencyStop: "Stopped by emergency stop",
	ReasonServerRestart: "Interrupted by server restart",
	ReasonSystemStop:    "Stopped by the system",
	ReasonTimeout:       "Stopped: timed out",
}

// UnknownReasonLabel is the label of a reason the engine does not know.
const UnknownReasonLabel = "Interrupted"

// ReasonLabel is the text shown to a user for an interruption reason
// ("Stopped by you", ...); UnknownReasonLabel for an unknown one.
func ReasonLabel(r Reason) string {
	if l, ok := reasonLabels[r]; ok {
		return l
	}
	return UnknownReasonLabel
}

// ReasonLabels returns the label of every interruption reason (a copy).
func ReasonLabels() map[Reason]string {
	return maps.Clone(reasonLabels)
}

// Eligibility says whether Continue (and ResumeAll) would resume a session.
type Eligibility struct {
	Eligible bool `json:"eligible"`
	// Reason says why not, when not eligible ("Waiting for your input").
	Reason string `json:"reason,omitempty"`
	// RepeatsSideEffect: a tool with side effects had started and was cut
	// off; resuming asks the user to confirm before anything runs.
	RepeatsSideEffect bool `json:"repeats_side_effect,omitempty"`
	// AsksAgain: the session is blocked on a question that was pending
	// when its previous owner stopped (Snapshot.NeedsInput). Continue asks
	// it anew, so Continue is offered, though ResumeAll skips the session
	// (a person answers the question). A new prompt drops the question.
	AsksAgain bool `json:"asks_again,omitempty"`
}

// Reasons a session is not eligible for Continue.
const (
	NotEligibleProceeding = "Already proceeding"
	NotEligibleNeedsInput = "Waiting for your input"
	NotEligibleAskAgain   = "Needs input: continue to be asked again"
	NotEligibleIdle       = "Nothing to continue"
	NotEligibleTerminal   = "Session is closed"
	NotEligibleTaskLoop   = "A task loop with Go function tasks cannot be resumed after a restart: start a new loop for the remaining tasks"
	NotEligibleLoopClosed = "The interrupted task loop was closed: start a new loop for the remaining tasks"
	NotEligibleLoopNoTask = "The task loop had no task in progress when the server restarted: start a new loop for the tasks still to do"
	NotEligibleOldLoop    = "A task loop stored by an older version of Interlock cannot be resumed after a restart: start a new loop for the remaining tasks"
	NotEligibleNoProvider = "No model provider is configured to finish the run"
	NotEligibleHostRun    = "The host's own agent loop was interrupted: only the host can resume it"
)

// Counts is what the global controls affect, counted at one moment.
type Counts struct {
	Proceeding int `json:"proceeding"` // sessions an emergency stop would stop (not those already stopping)
	Eligible   int `json:"eligible"`   // sessions ResumeAll would resume
	// NeedsInput counts the sessions waiting for an answer: blocked, or
	// proceeding with a question pending beside a running call.
	NeedsInput int `json:"needs_input"`
}

// StopReport is what EmergencyStop did.
type StopReport struct {
	Stopped []string `json:"stopped"` // ids of the sessions it stopped
}

// ResumeReport is what ResumeAll did.
type ResumeReport struct {
	Resumed []string          `json:"resumed"` // ids of the sessions it resumed
	Skipped map[string]string `json:"skipped"` // id -> why it was not resumed
}

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
