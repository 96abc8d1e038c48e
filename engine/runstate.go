package engine

import (
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
