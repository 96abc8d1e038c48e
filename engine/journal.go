package engine

import (
	"context"
	"encoding/json"
	"time"

	"github.com/interlock-dev/interlock/engine/store"
)

// journal records transitions: the state machine (session.go, pause.go,
// stop.go, grants.go) and the loops above it call it, and it calls nothing
// of theirs back. The store implements it (storeJournal, store.go); an
// engine without a store has no journal, and records nothing. A second
// implementation can decorate the store's (wrap it, call it, then do its
// own work): it sees every transition the store records, in the order
// they are made, each before any observer is told of it.
//
// record is called by the goroutine making the change, most often under
// the session's lock: the slices and pointers of ts are valid during the
// call only (copy what is kept). It records ts in one transaction, all or
// none; what says what they record ("the pause p3"), for the error.
type journal interface {
	record(ctx context.Context, what string, ts ...transition) error
}

// transitionKind is what a transition changes.
type transitionKind uint8

// The transitions a journal records.
const (
	transSessionCreated transitionKind = iota + 1 // created: a new session, with its options
	transRunStarted                               // run, runKind; history: what its start appended
	transHistory                                  // history, counters; mayCheckpoint
	transPauseRaised                              // run, pause (with its audit entry)
	transPauseAnswered                            // run, pause, answer...; grant: the approval it remembers
	transGranted                                  // run, tool, text: a confirm approved by a grant (audit entry)
	transDecided                                  // run, tool, text, answer, answerReason, by: a confirm decided by a policy (audit entry)
	transStopping                                 // reason, at: a stop was requested
	transRunEnded                                 // run, end; history: the marker of its end
	transPauseRecovered                           // run, pause: pending when the previous owner died (audit entry)
	transSessionClosing                           // Close began while a run was in flight
	transSessionClosed                            // closed by its user: forgotten
	transLoopDefined                              // loop: a new task loop, with what its tasks are
	transLoopChanged                              // loop; history: the prompt of a task that began
	transGrantAdded                               // grant: an approval of project scope a tool keeps (GrantStore)
	transGrantRevoked                             // grant: taken back
	transAudit                                    // audit: a decision made outside a session's transitions (Engine.RecordAudit)
)

// transition is one change of a session (or of the engine's grants), as
// a journal records it.
type transition struct {
	kind    transitionKind
	session string
	run     uint64
	runKind string // transRunStarted: runKindPrompt, runKindLoop or runKindHost

	// history are messages appended to the session's history at index
	// from (transRunStarted, transHistory, transRunEnded, transLoopChanged).
	from    int
	history []Message
	// counters are the session's token counts, step and pause sequence
	// after the change (transHistory).
	counters counters
	// mayCheckpoint: nobody waits on this write (a turn's tool results,
	// the next model request follows at once).
	mayCheckpoint bool

	pause *Pause // transPauseRaised, transPauseAnswered, transPauseRecovered
	// The answer (transPauseAnswered), the approval by a grant
	// (transGranted: answer approved; tool and text its message) or a
	// policy's decision (transDecided).
	answer       Answer
	answerReason string
	by           string
	remember     string
	tool, text   string

	reason Reason    // transStopping
	at     time.Time // transStopping, transPauseRecovered: when

	end     runEndRecord      // transRunEnded
	grant   *grantRecord      // transPauseAnswered (nil: nothing remembered), transGrantAdded, transGrantRevoked
	created *storedOptions    // transSessionCreated; seq is its creation order
	seq     uint64            // transSessionCreated
	loop    *taskLoopRecord   // transLoopDefined, transLoopChanged
	audit   *store.AuditEntry // transAudit
}

// counters are a session's token counts, step and pause sequence.
type counters struct {
	tokens   Usage
	step     int
	pauseSeq uint64
}

// runEndRecord is what is kept of how a session's last run ended.
type runEndRecord struct {
	lastEnd   runEnd
	counters  counters
	lastError string
	// interruption is the session's last interruption when the run ended
	// interrupted (nil otherwise).
	interruption *Interruption
	needsInput   *Pause // the question asked again on Continue
}

// grantRecord is a remembered approval as it is recorded.
type grantRecord struct {
	scope   string // RememberSession or RememberProject
	session string // the session it was given in (for RememberProject: by whom)
	tool    string
	root    string // RememberProject: the project's root
	action  string
	by      string
	at      time.Time
	// anyRoot: a revocation of a tool's own grant (GrantStore.Revoke) in
	// every project.
	anyRoot bool
}

// taskLoopRecord is a task loop as it is recorded: its state, and with
// transLoopDefined what its tasks are.
type taskLoopRecord struct {
	id    string
	state TaskLoopState
	tasks []taskRecord // transLoopDefined only
}

// taskRecord is what a task of a loop is: a prompt (with the description
// of its own model when it has a storable one, never a secret) or a Go
// function, which cannot be made again after a restart.
type taskRecord struct {
	kind     string // taskKindPrompt or taskKindFunc
	prompt   string
	provider json.RawMessage
}

// Task kinds as recorded.
const (
	taskKindPrompt = "prompt"
	taskKindFunc   = "func"
)

// Run kinds as recorded: who drives the run, and so who can resume it.
const (
	runKindPrompt = "prompt"
	runKindLoop   = "loop"
	runKindHost   = "host"
)

// storedOptions are the session options kept in the store: never secrets.
// A session created with its own StorableProvider keeps its description
// (made again at a restart by the engine's ProviderLoader for its type);
// any other comes back with the engine's provider. Of the environment only
// the names are kept (values can hold keys), so a restored session's
// commands run without them.
type storedOptions struct {
	Dir      string   `json:"dir,omitempty"`
	Model    string   `json:"model,omitempty"`
	EnvNames []string `json:"env_names,omitempty"`
	// Provider describes the session's own model; ProviderLeft says what
	// of it was not stored because it looks secret.
	Provider     json.RawMessage `json:"provider,omitempty"`
	ProviderLeft []string        `json:"provider_left,omitempty"`
	// Tools is SessionOptions.Tools: a restored session offers no more.
	Tools *[]string `json:"tools,omitempty"`
}

// runEnd is how a session's last run ended.
type runEnd int

const (
	endNone        runEnd = iota // no run yet
	endFinished                  // the model ended its turn
	endFailed                    // an error ended the run
	endInterrupted               // Interrupt, a stop of the caller's context, or a crash
)
