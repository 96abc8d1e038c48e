package engine

import "errors"

// Sentinel errors returned by the engine. They are wrapped with %w and carry
// the session or pause they concern; test them with errors.Is.
var (
	// ErrUnknownSession: no session with that id exists in the engine.
	ErrUnknownSession = errors.New("unknown session")
	// ErrDuplicateSession: a session with that id already exists.
	ErrDuplicateSession = errors.New("session id already in use")
	// ErrClosed: the session or engine has been closed.
	ErrClosed = errors.New("closed")
	// ErrRunning: the session already has a run in flight.
	ErrRunning = errors.New("session is running")
	// ErrNotRunning: the call needs a run in flight and there is none.
	ErrNotRunning = errors.New("session is not running")
	// ErrNotPaused: the answer came while no pause was pending.
	ErrNotPaused = errors.New("session is not paused")
	// ErrUnknownPause: no pending pause has that id (already answered, or never existed).
	ErrUnknownPause = errors.New("no pending pause with that id")
	// ErrWrongPauseKind: e.g. approve/deny on a continue pause, or resume on a confirm pause.
	ErrWrongPauseKind = errors.New("answer does not fit the pause kind")
	// ErrNotResumable: Continue on a session whose last run cannot be resumed.
	ErrNotResumable = errors.New("session is not resumable")
	// ErrInterrupted: the run was interrupted; the cause carries the reason.
	ErrInterrupted = errors.New("interrupted")
	// ErrUnknownTool: the model called a tool that is not registered.
	ErrUnknownTool = errors.New("unknown tool")
	// ErrInvalidArgument: a malformed argument (bad enum value, empty id...).
	ErrInvalidArgument = errors.New("invalid argument")
	// ErrUnknownGrant: RevokeGrant of an approval that is not remembered.
	ErrUnknownGrant = errors.New("no such remembered approval")
	// ErrIdleTimeout: the model stream sent nothing for longer than the idle timeout.
	ErrIdleTimeout = errors.New("model stream idle timeout")
)

// ErrorCoder is implemented by errors that carry a stable, machine-readable
// code for the kind of failure ("rate_limited", "server_error", ...), such as
// a model provider's errors. The code reaches observers in run_failed events.
type ErrorCoder interface {
	error
	ErrorCode() string
}

// ErrorCode returns the code of the first ErrorCoder in err's chain, or ""
// if there is none.
func ErrorCode(err error) string {
	if c, ok := errors.AsType[ErrorCoder](err); ok {
		return c.ErrorCode()
	}
	return ""
}
