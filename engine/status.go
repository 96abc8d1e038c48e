package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Status is the derived, user-facing state of a session. The numeric values
// are the C enum values of the C API.
type Status int

// Session statuses.
const (
	StatusIdle        Status = 0 // waiting for user input; nothing in flight
	StatusRunning     Status = 1 // a model turn or a tool is in flight
	StatusInterrupted Status = 2 // the last run was stopped mid-way
	StatusPaused      Status = 3 // blocked on a user answer
	StatusStopping    Status = 4 // stop requested, run still unwinding
	StatusClosed      Status = 5 // terminal
)

var statusNames = [...]string{"idle", "running", "interrupted", "paused", "stopping", "closed"}

// String returns the status name used in JSON and in JS ("idle", "running", ...).
func (s Status) String() string {
	if s < 0 || int(s) >= len(statusNames) {
		return fmt.Sprintf("status(%d)", int(s))
	}
	return statusNames[s]
}

// MarshalJSON encodes the status as its name.
func (s Status) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// UnmarshalJSON decodes a status name.
func (s *Status) UnmarshalJSON(b []byte) error {
	var name string
	if err := json.Unmarshal(b, &name); err != nil {
		return err
	}
	for i, n := range statusNames {
		if n == name {
			*s = Status(i)
			return nil
		}
	}
	return fmt.Errorf("%w: status %q", ErrInvalidArgument, name)
}

// Reason says why a run was interrupted.
type Reason string

// Interruption reasons.
const (
	ReasonUserStop      Reason = "user_stop"
	ReasonEmergencyStop Reason = "emergency_stop"
	ReasonServerRestart Reason = "server_restart"
	ReasonSystemStop    Reason = "system_stop"
	ReasonTimeout       Reason = "timeout"
)

// Valid reports whether r is one of the known reasons.
func (r Reason) Valid() bool {
	switch r {
	case ReasonUserStop, ReasonEmergencyStop, ReasonServerRestart, ReasonSystemStop, ReasonTimeout:
		return true
	}
	return false
}

// Stopping describes a stop in progress: the reason given to Interrupt and
// its label, shown while the run unwinds ("Stopped by you").
type Stopping struct {
	Reason Reason `json:"reason"`
	Label  string `json:"label"`
}

// Interruption records how and when the last run was interrupted.
type Interruption struct {
	Reason Reason    `json:"reason"`
	Label  string    `json:"label"`
	At     time.Time `json:"at"`
	// Resumable says whether the run has a resumption target: a prompt's
	// run can be finished by the model, a task loop goes on with its cut
	// task; a loop that could not be made again after a restart cannot
	// (NotResumable says why).
	Resumable    bool   `json:"resumable"`
	NotResumable string `json:"not_resumable,omitempty"`
	// Loop is the id of the task loop whose run was interrupted.
	Loop string `json:"loop,omitempty"`
	// SideEffectCut is true when a tool that may have side effects had
	// started executing and was cut off: resuming could repeat it, so
	// Continue asks for confirmation first.
	SideEffectCut bool `json:"side_effect_cut,omitempty"`
	// HostOwned: the run was the host's own loop (Session.Begin); only the
	// host can resume it.
	HostOwned bool `json:"host_owned,omitempty"`
	// Run is the id of the run that was interrupted.
	Run uint64 `json:"run,omitempty"`
}

// interruptCause is the context cancellation cause of an interrupted run.
type interruptCause struct{ reason Reason }

func (c *interruptCause) Error() string { return "interrupted: " + string(c.reason) }
func (c *interruptCause) Unwrap() error { return ErrInterrupted }

// ReasonOf returns the interruption reason carried by err (a context cause
// or an error wrapping one), and false if err is not an interruption.
func ReasonOf(err error) (Reason, bool) {
	var c *interruptCause
	if errors.As(err, &c) {
		return c.reason, true
	}
	return "", false
}
