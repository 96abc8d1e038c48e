package engine

import (
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
	// RememberKey names exactly what an approval of this confirm covers
	// ("deploy api to production"). With one, the engine remembers for the
	// tool: a confirm of the same tool and key that the user approved with
	// remember "session" (in this session) or "project" (in this project)
	// is approved again without asking, and says so (EventGranted). Keep
	// it as narrow as the approval: everything the key does not name is
	// approved along with it. "" is never remembered.
	RememberKey string
	// RememberScopes are the scopes the pause offers for remembering an
	// approval (RememberSession, RememberProject); an answer with any
	// other is refused. With RememberKey it defaults to both; without, a
	// tool that remembers by itself (bash) lists what it honours.
	RememberScopes []string
	// ToolRemembers says that the tool keeps its approvals itself (a
	// GrantHolder: the bash tool): RememberKey then only says what an
	// approval with one of RememberScopes remembers, for the user to see,
	// and the engine neither looks up nor records a grant of it.
	ToolRemembers bool

	// grant is what an approval of RememberKey is bound to as a project
	// grant: the tool's registered name, the session's project root (set
	// when the project scope is offered), the key; nil without a key. Its
	// session grant has no root.
	grant *grantKey
}

// Scopes of a remembered approval (PauseResult.Remember).
const (
	RememberOnce    = "once"    // not remembered
	RememberSession = "session" // until the session ends; never approves another session's pause
	RememberProject = "project" // every session of the engine in the same project root
)

// Pause is one pending request for a user answer, as observers see it.
type Pause struct {
	ID      string      `json:"id"`
	Kind    PauseKind   `json:"kind"`
	Source  PauseSource `json:"source"`
	Tool    string      `json:"tool,omitempty"`
	Message string      `json:"message"`
	Details string      `json:"details,omitempty"`
	Reasons []string    `json:"reasons,omitempty"`
	// RememberScopes are the scopes the user may choose to remember an
	// approval with ("session", "project"); empty when it can't be.
	RememberScopes []string `json:"remember_scopes,omitempty"`
	// RememberKey is what an approval with one of those scopes approves
	// again without asking (PauseRequest.RememberKey): shown next to the
	// scopes, so the user sees what is remembered. The bash gate's is the
	// command as judged: its words resolved, and its directory.
	RememberKey string    `json:"remember_key,omitempty"`
	Step        int       `json:"step"`
	Task        int       `json:"task,omitempty"`
	At          time.Time `json:"at"`
	// Version is the session version at which the pause was raised: an
	// answer from a client that had not yet seen that version is stale.
	Version uint64 `json:"version"`
}

// PauseResult is the answer a tool gets back from Env.Pause.
type PauseResult struct {
	Answer Answer `json:"answer"`
	Reason string `json:"reason,omitempty"` // the user's optional reason (deny)
	// Remember is the scope the user chose for remembering an approval:
	// "" or "once" (not remembered), "session" or "project", one the pause
	// offered. The engine records it for a confirm with a RememberKey;
	// tools that remember by themselves (bash) act on it. On an approval
	// by a grant (By is "grant") it is the grant's scope.
	Remember string `json:"remember,omitempty"`
	// By names the client that answered (AnsweredBy), for the audit log;
	// "grant" when a remembered grant approved without asking.
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

// AnswerOption adds detail to an answer.
type AnswerOption func(*PauseResult)

// WithReason attaches the user's reason (shown to the model on deny).
func WithReason(reason string) AnswerOption { return func(r *PauseResult) { r.Reason = reason } }

// Remember asks the tool to remember an approval: "once", "session" or "project".
// A denial with "session" or "project" is refused (ErrInvalidArgument): nothing remembers a denial.
func Remember(scope string) AnswerOption { return func(r *PauseResult) { r.Remember = scope } }

// AnsweredBy names the client that answered ("tui", "webui", a user name):
// it is passed to the audit log with the answer.
func AnsweredBy(client string) AnswerOption { return func(r *PauseResult) { r.By = client } }
