package engine

import (
	"fmt"
	"time"
)

// PauseKind is what the user is asked for.
type PauseKind string

// Pause kinds.
const (
	PauseContinue PauseKind = "continue" // press Enter to continue
	PauseConfirm  PauseKind = "confirm"  // approve (Y) or deny (N)
)

// PauseSource says who raised a pause.
type PauseSource string

// Pause sources.
const (
	SourceTool   PauseSource = "tool"   // a tool called Env.Pause
	SourceSignal PauseSource = "signal" // Signal(SignalPause) parked the loop at a step boundary
	SourceTask   PauseSource = "task"   // a task loop in pause mode, between tasks
)

// Answer is how a pause was answered.
type Answer string

// Answers.
const (
	AnswerResumed     Answer = "resumed"     // continue pause: Enter
	AnswerApproved    Answer = "approved"    // confirm pause: Y
	AnswerDenied      Answer = "denied"      // confirm pause: N
	AnswerInterrupted Answer = "interrupted" // Esc, or any interrupt of the run
	AnswerTimedOut    Answer = "timed_out"   // only with PauseRequest.Timeout; fails closed
)

// PauseRequest is what a tool passes to Env.Pause.
type PauseRequest struct {
	Kind    PauseKind
	Tool    string // tool name shown to the user ("Bash", "WebSearch")
	Message string // one line ("Potentially dangerous command")
	Details string // e.g. the command text
	Reasons []string
	// Timeout, when > 0, answers the pause with AnswerTimedOut after that
	// long. Zero waits for the user for ever.
	Timeout time.Duration
}

// Pause is one pending request for a user answer, as observers see it.
type Pause struct {
	ID      string      `json:"id"`
	Kind    PauseKind   `json:"kind"`
	Source  PauseSource `json:"source"`
	Tool    string      `json:"tool,omitempty"`
	Message string      `json:"message"`
	Details string      `json:"details,omitempty"`
	Reasons []string    `json:"reasons,omitempty"`
	Step    int         `json:"step"`
	Task    int         `json:"task,omitempty"`
	At      time.Time   `json:"at"`
	// Version is the session version at which the pause was raised: an
	// answer from a client that had not yet seen that version is stale.
	Version uint64 `json:"version"`
}

// PauseResult is the answer a tool gets back from Env.Pause.
type PauseResult struct {
	Answer Answer `json:"answer"`
	Reason string `json:"reason,omitempty"` // the user's optional reason (deny)
	// Remember is the scope the user chose for remembering an approval:
	// "" or "once" (not remembered), "session" or "project". The engine
	// passes it through; tools that remember decisions (bash) act on it.
	Remember string `json:"remember,omitempty"`
	// By names the client that answered (AnsweredBy), for the audit log.
	By string `json:"by,omitempty"`
}

// Approved reports whether the user said yes (or continue). Everything else,
// a timeout included, fails closed.
func (r PauseResult) Approved() bool { return r.Answer == AnswerApproved || r.Answer == AnswerResumed }

// fits reports whether answer a is valid for a pause of kind k.
func (k PauseKind) fits(a Answer) bool {
	switch k {
	case PauseContinue:
		return a == AnswerResumed
	case PauseConfirm:
		return a == AnswerApproved || a == AnswerDenied
	}
	return false
}

func (k PauseKind) valid() bool { return k == PauseContinue || k == PauseConfirm }

// pending is a pause waiting for its answer: a goroutine blocked on
// answered, or a parked run (parked) that the answer continues. answered
// has room for exactly one answer and is never reused, and a parked run is
// continued only by the one answer or interrupt that takes the pause off
// the list, so a stale answer can't release a later pause.
type pending struct {
	Pause
	answered chan PauseResult // the waiter's (nil when parked)
	parked   parked           // the parked run (nil when a goroutine waits)
}

// parked is where a parked run goes on once its pause has ended: answered
// (res), or interrupted (err). resume runs on a goroutine of its own.
type parked interface {
	resume(s *Session, res PauseResult, err error)
}

func (p *pending) String() string { return fmt.Sprintf("pause %s (%s)", p.ID, p.Kind) }
