package main

/*
#include "interlock.h"

static inline void il_capi_invoke_host_cb(il_host_cb cb, void *user, const char *json, size_t len) {
	cb(user, json, len);
}
*/
import "C"

import (
	"time"
	"unsafe"

	"github.com/interlock-dev/interlock/engine"
)

// hostEntry is a host handle: work the host does under the engine's
// control (engine.HostWork), a call of a tool it registered or a run of
// its own loop. The engine's host line (engine.HostLine) carries the
// messages about it; this file resolves handles and forwards bytes.
type hostEntry struct {
	eng  *engineEntry
	work *engine.HostWork
}

// newHostLine makes the engine's host line: work gets a handle, messages
// go to the host callback (il_engine_set_host_callback), else on the event
// stream.
func newHostLine(ee *engineEntry) *engine.HostLine {
	line := &engine.HostLine{
		Feed: ee.events.Feed(),
		Open: func(w *engine.HostWork) uint64 { return uint64(handles.add(&hostEntry{eng: ee, work: w})) },
		Code: func(err error) string { return statusName(statusOf(err)) },
	}
	if ee.bash != nil {
		line.Gate = ee.bash
	}
	return line
}

//export il_engine_set_host_callback
func il_engine_set_host_callback(h C.il_handle, cb C.il_host_cb, user unsafe.Pointer) C.il_status {
	return call("il_engine_set_host_callback", h, func(ee *engineEntry) error {
		if cb == nil {
			ee.host.SetSend(nil)
			return nil
		}
		ee.host.SetSend(func(msg []byte) {
			C.il_capi_invoke_host_cb(cb, user, (*C.char)(unsafe.Pointer(&msg[0])), C.size_t(len(msg)))
		})
		return nil
	})
}

//export il_engine_set_approver
func il_engine_set_approver(h C.il_handle, timeoutMS C.int64_t) C.il_status {
	return call("il_engine_set_approver", h, func(ee *engineEntry) error {
		if timeoutMS <= 0 {
			ee.e.SetApprover(nil, 0)
			return nil
		}
		ee.e.SetApprover(ee.host.Approver(), time.Duration(timeoutMS)*time.Millisecond)
		return nil
	})
}

//export il_engine_trust_project_policy
func il_engine_trust_project_policy(h C.il_handle, dir, sha256 *C.char, out **C.char) C.il_status {
	return call("il_engine_trust_project_policy", h, func(ee *engineEntry) error {
		if ee.bash == nil {
			return errorf(C.IL_ERR_INVALID_ARGUMENT, "trust a project policy: the engine has no bash tool")
		}
		path, sha, err := ee.bash.TrustProjectPolicy(goString(dir), goString(sha256))
		if err != nil {
			return err
		}
		return putJSON(out, map[string]string{"path": path, "sha256": sha})
	})
}

//export il_engine_review_project_policy
func il_engine_review_project_policy(h C.il_handle, dir *C.char, out **C.char) C.il_status {
	return call("il_engine_review_project_policy", h, func(ee *engineEntry) error {
		if ee.bash == nil {
			return errorf(C.IL_ERR_INVALID_ARGUMENT, "review a project policy: the engine has no bash tool")
		}
		return putJSON(out, ee.bash.ReviewProjectPolicy(goString(dir)))
	})
}

//export il_engine_register_tool
func il_engine_register_tool(h C.il_handle, name, specJSON *C.char) C.il_status {
	return call("il_engine_register_tool", h, func(ee *engineEntry) error {
		var spec engine.HostToolSpec
		if err := decodeJSON("tool spec", specJSON, &spec); err != nil {
			return err
		}
		tool, err := ee.host.Tool(goString(name), spec)
		if err != nil {
			return err
		}
		return ee.whileOpen(func() error {
			ee.e.Tools().Register(goString(name), tool)
			return nil
		})
	})
}

//export il_session_begin
func il_session_begin(h C.il_handle, optsJSON *C.char, out *C.il_handle) C.il_status {
	return call("il_session_begin", h, func(se *sessionEntry) error {
		if out == nil {
			return errNilOut("out_host")
		}
		var spec engine.HostRunSpec
		if err := decodeJSON("begin options", optsJSON, &spec); err != nil {
			return err
		}
		return se.eng.whileOpen(func() error {
			w, err := se.eng.host.Begin(se.s, spec)
			if err != nil {
				return err
			}
			*out = C.il_handle(w.ID())
			return nil
		})
	})
}

//export il_host_pause
func il_host_pause(h C.il_handle, request C.uint64_t, reqJSON *C.char) C.il_status {
	return call("il_host_pause", h, func(he *hostEntry) error {
		var r engine.HostPauseRequest
		if err := decodeJSON("pause request", reqJSON, &r); err != nil {
			return err
		}
		return he.work.Pause(uint64(request), r)
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
		return putJSON(out, he.eng.bash.Judge(he.work.Env(), goString(cmd)))
	})
}

//export il_host_step
func il_host_step(h C.il_handle, request C.uint64_t) C.il_status {
	return call("il_host_step", h, func(he *hostEntry) error {
		return he.work.Step(uint64(request))
	})
}

//export il_host_progress
func il_host_progress(h C.il_handle, text *C.char) C.il_status {
	return call("il_host_progress", h, func(he *hostEntry) error {
		return he.work.Progress(goString(text))
	})
}

//export il_host_end
func il_host_end(h C.il_handle, resultJSON *C.char, out **C.char) C.il_status {
	return call("il_host_end", h, func(he *hostEntry) error {
		var r engine.HostResult
		if err := decodeJSON("host result", resultJSON, &r); err != nil {
			return err
		}
		handles.remove(h)
		res, err := he.work.End(r)
		if err != nil || out == nil {
			return err
		}
		if res == nil { // a tool call
			putString(out, "null")
			return nil
		}
		return putJSON(out, res)
	})
}
