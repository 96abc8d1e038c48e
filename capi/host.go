package main

/*
#include "interlock.h"

static inline void il_capi_invoke_host_cb(il_host_cb cb, void *user, const char *json, size_t len) {
	cb(user, json, len);
}
*/
import "C"

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"
	"unsafe"

	"github.com/interlock-dev/interlock/engine"
)

// hostEntry is a host handle: work the host does under the engine's
// control, either one call of a tool registered by the host (a JS tool) or
// a run of the host's own loop (il_session_begin).
type hostEntry struct {
	eng     *engineEntry
	session string
	call    *engine.HostCall // a tool call, or
	run     *engine.HostRun  // a host-driven run
	// unwatch stops the run's abort message (once the host ended the run
	// itself, its context ending is no news).
	unwatch func() bool
}

// env is the work's view of its session.
func (he *hostEntry) env() *engine.Env {
	if he.call != nil {
		return he.call.Env()
	}
	return he.run.Env()
}

func (he *hostEntry) ctx() context.Context {
	if he.call != nil {
		return he.call.Context()
	}
	return he.run.Context()
}

// hostMessage is what this layer tells the host about its work, on the
// host line (see hostLine): "tool_call" (run this tool), "host_abort" (the work was
// interrupted: abort it), "pause_done" (a pause it raised was answered),
// "step_done" (a step boundary it asked for let it go on, or not).
type hostMessage struct {
	Type    string              `json:"type"`
	Session string              `json:"session"`
	Host    C.il_handle         `json:"host"`
	Tool    string              `json:"tool,omitempty"`
	CallID  string              `json:"callId,omitempty"`
	Args    json.RawMessage     `json:"args,omitempty"`
	Step    int                 `json:"step,omitempty"`
	Reason  engine.Reason       `json:"reason,omitempty"`
	Request uint64              `json:"request,omitempty"`
	Result  *engine.PauseResult `json:"result,omitempty"`
	NewStep int                 `json:"newStep,omitempty"`
	Error   string              `json:"error,omitempty"`
	Code    string              `json:"code,omitempty"`
}

// hostLine carries host messages to the host callback, straight from the
// goroutine that makes them: a JS tool's call does not wait for the event
// dispatcher's goroutine, nor behind a batch of events the consumer still
// holds. Without a host callback they go on the event stream.
type hostLine struct {
	events *dispatcher
	buf    bytes.Buffer  // the message being sent; guarded by mu
	enc    *json.Encoder // writes to buf

	// mu is held across every callback call, so unregistering (which
	// takes it) waits until no call is in progress.
	mu     sync.Mutex
	cb     C.il_host_cb
	user   unsafe.Pointer
	closed bool // the engine closed: the callback is never called again
}

// setCallback registers cb (nil unregisters) once no call is in progress.
func (l *hostLine) setCallback(cb C.il_host_cb, user unsafe.Pointer) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		l.cb, l.user = cb, user
	}
}

// close stops every later call of the callback.
func (l *hostLine) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cb, l.user, l.closed = nil, nil, true
}

// send delivers m to the host callback, or on the event stream.
func (l *hostLine) send(m hostMessage) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cb == nil {
		if !l.closed {
			l.events.enqueue(m)
		}
		return
	}
	if l.enc == nil {
		l.enc = json.NewEncoder(&l.buf)
	}
	l.buf.Reset()
	if err := l.enc.Encode(m); err != nil {
		l.events.reportTo(fmt.Sprintf("host callback: encoding a %s message as JSON: %v (dropped)", m.Type, err))
		return
	}
	b := l.buf.Bytes()
	b[len(b)-1] = 0 // Encode's newline
	C.il_capi_invoke_host_cb(l.cb, l.user, (*C.char)(unsafe.Pointer(&b[0])), C.size_t(len(b)-1))
	if l.buf.Cap() > keptHostMessageBytes { // a call with large arguments: don't keep its memory
		l.buf, l.enc = bytes.Buffer{}, nil
	}
}

// keptHostMessageBytes is the largest host message buffer kept for reuse.
const keptHostMessageBytes = 64 << 10

//export il_engine_set_host_callback
func il_engine_set_host_callback(h C.il_handle, cb C.il_host_cb, user unsafe.Pointer) C.il_status {
	return call("il_engine_set_host_callback", h, func(ee *engineEntry) error {
		ee.host.setCallback(cb, user)
		return nil
	})
}

// abort tells the host that its work h was interrupted.
func (he *hostEntry) abort(h C.il_handle) {
	reason, _ := engine.ReasonOf(context.Cause(he.ctx()))
	he.eng.host.send(hostMessage{Type: "host_abort", Session: he.session, Host: h, Reason: reason})
}

// hostToolSpec is the JSON of il_engine_register_tool.
type hostToolSpec struct {
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	GraceMS     *int64          `json:"grace_ms"`
}

//export il_engine_register_tool
func il_engine_register_tool(h C.il_handle, name, specJSON *C.char) C.il_status {
	return call("il_engine_register_tool", h, func(ee *engineEntry) error {
		toolName := goString(name)
		if toolName == "" {
			return errorf(C.IL_ERR_INVALID_ARGUMENT, "tool name is empty: pass the name the model calls the tool by")
		}
		var spec hostToolSpec
		if err := decodeJSON("tool spec", specJSON, &spec); err != nil {
			return err
		}
		if len(spec.Parameters) > 0 && string(spec.Parameters) != "null" {
			var schema map[string]any
			if json.Unmarshal(spec.Parameters, &schema) != nil {
				return errorf(C.IL_ERR_INVALID_ARGUMENT, "tool %q: parameters must be a JSON Schema object, got %s", toolName, spec.Parameters)
			}
		}
		var grace time.Duration
		if spec.GraceMS != nil {
			d, err := millis("grace_ms", spec.GraceMS)
			if err != nil {
				return err
			}
			grace = d
		}
		tool := &engine.HostTool{
			Spec:  engine.ToolSpec{Description: spec.Description, Parameters: spec.Parameters},
			Grace: grace,
			Start: func(c *engine.HostCall) (abort func()) {
				he := &hostEntry{eng: ee, session: c.SessionID(), call: c}
				hh := handles.add(he)
				ee.host.send(hostMessage{Type: "tool_call", Session: he.session, Host: hh, Tool: c.Call().Name,
					CallID: c.Call().ID, Args: c.Call().Args, Step: c.Step()})
				return func() { he.abort(hh) }
			},
		}
		return ee.whileOpen(func() error {
			ee.e.Tools().Register(toolName, tool)
			return nil
		})
	})
}

// beginOptions is the JSON of il_session_begin.
type beginOptions struct {
	GraceMS *int64 `json:"grace_ms"`
}

//export il_session_begin
func il_session_begin(h C.il_handle, optsJSON *C.char, out *C.il_handle) C.il_status {
	return call("il_session_begin", h, func(se *sessionEntry) error {
		if out == nil {
			return errNilOut("out_host")
		}
		var o beginOptions
		if err := decodeJSON("begin options", optsJSON, &o); err != nil {
			return err
		}
		var opts []engine.HostRunOption
		if o.GraceMS != nil {
			d, err := millis("grace_ms", o.GraceMS)
			if err != nil {
				return err
			}
			opts = append(opts, engine.WithHostGrace(d))
		}
		return se.eng.whileOpen(func() error {
			run, err := se.s.Begin(context.Background(), opts...)
			if err != nil {
				return err
			}
			he := &hostEntry{eng: se.eng, session: se.s.ID(), run: run}
			hh := handles.add(he)
			he.unwatch = context.AfterFunc(run.Context(), func() { he.abort(hh) })
			*out = hh
			return nil
		})
	})
}

// pauseRequest is the JSON of il_host_pause.
type pauseRequest struct {
	Kind      engine.PauseKind `json:"kind"`
	Tool      string           `json:"tool"`
	Message   string           `json:"message"`
	Details   string           `json:"details"`
	TimeoutMS *int64           `json:"timeout_ms"`
	// Command makes a confirm pause the bash tool's confirm of that
	// command: its reasons are shown and an approval the user remembers
	// becomes the session's or project's grant.
	Command string `json:"command"`
	// RememberKey names what an approval of the confirm covers: the
	// engine remembers it (engine.PauseRequest.RememberKey), offering
	// RememberScopes (default session and project).
	RememberKey    string   `json:"remember_key"`
	RememberScopes []string `json:"remember_scopes"`
}

//export il_host_pause
func il_host_pause(h C.il_handle, request C.uint64_t, reqJSON *C.char) C.il_status {
	return call("il_host_pause", h, func(he *hostEntry) error {
		var r pauseRequest
		if err := decodeJSON("pause request", reqJSON, &r); err != nil {
			return err
		}
		req := engine.PauseRequest{Kind: r.Kind, Tool: r.Tool, Message: r.Message, Details: r.Details, RememberKey: r.RememberKey, RememberScopes: r.RememberScopes}
		if r.TimeoutMS != nil {
			d, err := millis("timeout_ms", r.TimeoutMS)
			if err != nil {
				return err
			}
			req.Timeout = d
		}
		if r.Kind != engine.PauseContinue && r.Kind != engine.PauseConfirm {
			return errorf(C.IL_ERR_INVALID_ARGUMENT, "pause request: kind %q: use \"continue\" or \"confirm\"", r.Kind)
		}
		if r.Command != "" && r.Kind != engine.PauseConfirm {
			return errorf(C.IL_ERR_INVALID_ARGUMENT, "pause request: command %q with kind %q: a command is confirmed: use kind \"confirm\"", r.Command, r.Kind)
		}
		if r.Command != "" && (r.RememberKey != "" || r.RememberScopes != nil) {
			return errorf(C.IL_ERR_INVALID_ARGUMENT, "pause request: command %q with a remember key or scopes: the bash gate keys what an approval of a command covers itself: drop rememberKey and rememberScopes", r.Command)
		}
		if r.Command != "" && req.Tool == "" { // who asks: the JS tool, else the bash gate
			req.Tool = "Bash"
			if he.call != nil {
				req.Tool = he.call.Call().Name
			}
		}
		return he.eng.whileOpen(func() error {
			he.eng.spawn(func() {
				var res engine.PauseResult
				var err error
				switch {
				case r.Command != "":
					res, err = he.eng.bash.Confirm(he.ctx(), he.env(), r.Command, req)
				case he.call != nil:
					res, err = he.call.Pause(he.ctx(), req)
				default:
					res, err = he.run.Pause(context.Background(), req)
				}
				m := hostMessage{Type: "pause_done", Session: he.session, Host: h, Request: uint64(request), Result: &res}
				if err != nil {
					m.Error, m.Code = err.Error(), statusName(statusOf(err))
				}
				he.eng.host.send(m)
			})
			return nil
		})
	})
}

//export il_host_check
func il_host_check(h C.il_handle, cmd *C.char, out **C.char) C.il_status {
	return call("il_host_check", h, func(he *hostEntry) error {
		if cmd == nil {
			return errorf(C.IL_ERR_INVALID_ARGUMENT, "cmd is NULL: pass the command line to check")
		}
		if out == nil {
			return errNilOut("out_json")
		}
		return putJSON(out, he.eng.bash.Judge(he.env(), goString(cmd)))
	})
}

//export il_host_step
func il_host_step(h C.il_handle, request C.uint64_t) C.il_status {
	return call("il_host_step", h, func(he *hostEntry) error {
		if he.run == nil {
			return errorf(C.IL_ERR_INVALID_ARGUMENT, "host handle %d is a tool call: step boundaries belong to a host-driven run (il_session_begin)", h)
		}
		return he.eng.whileOpen(func() error {
			he.eng.spawn(func() {
				step, err := he.run.Step(context.Background())
				m := hostMessage{Type: "step_done", Session: he.session, Host: h, Request: uint64(request), NewStep: step}
				if err != nil {
					m.Error, m.Code = err.Error(), statusName(statusOf(err))
					m.Reason, _ = engine.ReasonOf(err)
				}
				he.eng.host.send(m)
			})
			return nil
		})
	})
}

//export il_host_progress
func il_host_progress(h C.il_handle, text *C.char) C.il_status {
	return call("il_host_progress", h, func(he *hostEntry) error {
		if he.call != nil {
			he.call.Progress(goString(text))
			return nil
		}
		return he.run.Progress("", goString(text))
	})
}

// hostResult is the JSON of il_host_end: a tool's result, or how a host
// run ended ("error": it failed).
type hostResult struct {
	Output  string `json:"output"`
	IsError bool   `json:"is_error"`
	Error   string `json:"error"`
}

//export il_host_end
func il_host_end(h C.il_handle, resultJSON *C.char, out **C.char) C.il_status {
	return call("il_host_end", h, func(he *hostEntry) error {
		var r hostResult
		if err := decodeJSON("host result", resultJSON, &r); err != nil {
			return err
		}
		handles.remove(h)
		if he.call != nil {
			if err := he.call.End(engine.Result{Output: r.Output, IsError: r.IsError}); err != nil {
				return err
			}
			if out != nil {
				putString(out, "null")
			}
			return nil
		}
		he.unwatch()
		var failure error
		if r.Error != "" {
			failure = errors.New(r.Error)
		}
		res, err := he.run.End(failure)
		if err != nil && !errors.Is(err, engine.ErrInterrupted) && failure == nil {
			return err
		}
		if err != nil && res.Error == "" && res.Interruption == nil {
			return fmt.Errorf("host run: %w", err)
		}
		if out != nil {
			return putJSON(out, res)
		}
		return nil
	})
}
