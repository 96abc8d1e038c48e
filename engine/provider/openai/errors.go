package openai

import (
	"errors"
	"fmt"
	"strings"
)

// Codes of the failures a model turn can end with. They reach observers as
// the code of the run_failed event (engine.ErrorCode).
const (
	CodeMissingAPIKey   = "missing_api_key"   // the key's environment variable is empty
	CodeUnauthorized    = "unauthorized"      // HTTP 401 or 403
	CodeBadRequest      = "bad_request"       // another 4xx: unknown model, bad parameters
	CodeRateLimited     = "rate_limited"      // HTTP 429, still after the retries
	CodeServerError     = "server_error"      // HTTP 5xx, still after the retries
	CodeConnection      = "connection_failed" // no response: refused, DNS, TLS
	CodeConnectionLost  = "connection_lost"   // the connection broke mid-stream
	CodeMalformedStream = "malformed_stream"  // a chunk that is not valid JSON, or a turn over 64 MB
	CodeStreamError     = "stream_error"      // the server sent an error event mid-stream
	CodeTruncated       = "stream_truncated"  // the stream ended before the turn did
)

// Sentinel errors, one per code; test with errors.Is.
var (
	ErrConfig          = errors.New("invalid openai provider configuration")
	ErrMissingAPIKey   = errors.New("API key missing")
	ErrUnauthorized    = errors.New("unauthorized")
	ErrBadRequest      = errors.New("request rejected")
	ErrRateLimited     = errors.New("rate limited")
	ErrServer          = errors.New("server error")
	ErrConnection      = errors.New("connection failed")
	ErrConnectionLost  = errors.New("connection lost mid-stream")
	ErrMalformedStream = errors.New("malformed stream chunk")
	ErrStreamError     = errors.New("error event in the stream")
	ErrTruncated       = errors.New("stream ended before the turn was complete")
)

var sentinels = map[string]error{
	CodeMissingAPIKey: ErrMissingAPIKey, CodeUnauthorized: ErrUnauthorized, CodeBadRequest: ErrBadRequest,
	CodeRateLimited: ErrRateLimited, CodeServerError: ErrServer, CodeConnection: ErrConnection,
	CodeConnectionLost: ErrConnectionLost, CodeMalformedStream: ErrMalformedStream,
	CodeStreamError: ErrStreamError, CodeTruncated: ErrTruncated,
}

// hints say what to do about each code.
var hints = map[string]string{
	CodeMissingAPIKey:   "export the key in that variable before starting, or set apiKeyEnv to \"\" for a server that needs none",
	CodeUnauthorized:    "check the API key and that it may use this model",
	CodeBadRequest:      "check the model name and the provider options",
	CodeRateLimited:     "wait and continue, or raise the limit with your provider",
	CodeServerError:     "the server failed; continue later",
	CodeConnection:      "check the base URL and that the server is running",
	CodeConnectionLost:  "the server or network dropped the stream; continue to retry the turn",
	CodeMalformedStream: "the server is not speaking the Chat Completions streaming protocol correctly",
	CodeStreamError:     "the server reported an error while streaming; continue to retry the turn",
	CodeTruncated:       "the server closed the stream early; continue to retry the turn",
}

// Error is a failed model turn. It implements engine.ErrorCoder.
type Error struct {
	Code     string // one of the Code constants
	Model    string
	BaseURL  string
	Status   int    // HTTP status, 0 if there was no HTTP error response
	Message  string // the server's message, or what went wrong
	Attempts int    // requests made, retries included
	cause    error
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "model %q, server %s: %s", e.Model, e.BaseURL, e.Code)
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.Status)
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " after %d attempts", e.Attempts)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	if h := hints[e.Code]; h != "" {
		fmt.Fprintf(&b, " (%s)", h)
	}
	return b.String()
}

// ErrorCode returns e.Code.
func (e *Error) ErrorCode() string { return e.Code }

// Unwrap returns the code's sentinel and the underlying error.
func (e *Error) Unwrap() []error {
	errs := []error{sentinels[e.Code]}
	if e.cause != nil {
		errs = append(errs, e.cause)
	}
	return errs
}

// retryable reports whether another attempt may succeed.
func (e *Error) retryable() bool {
	switch e.Code {
	case CodeRateLimited, CodeServerError, CodeConnection:
		return true
	}
	return e.Status == 408 || e.Status == 409
}
