package main

/*
#include "interlock.h"
*/
import "C"

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/bash"
	"github.com/interlock-dev/interlock/engine/bash/contain"
)

// sessionEntry is a session handle.
type sessionEntry struct {
	s   *engine.Session
	eng *engineEntry
}

// newSession creates a session and its handle. Call it inside whileOpen.
func (ee *engineEntry) newSession(o engine.SessionOptions) (*sessionEntry, C.il_handle, error) {
	s, err := ee.e.NewSession(o)
	if err != nil {
		return nil, 0, err
	}
	se := &sessionEntry{s: s, eng: ee}
	return se, handles.add(se), nil
}

//export il_session_create
func il_session_create(h C.il_handle, optsJSON *C.char, out *C.il_handle, outID **C.char) C.il_status {
	return call("il_session_create", h, func(ee *engineEntry) error {
		if out == nil {
			return errNilOut("out_session")
		}
		o, err := ee.e.DecodeSessionSpec(goString(optsJSON))
		if err != nil {
			return errorf(C.IL_ERR_INVALID_ARGUMENT, "session options: %v: fix the JSON (see interlock.h for the fields)", err)
		}
		var sandbox *contain.Policy
		if len(o.Sandbox) > 0 && string(o.Sandbox) != "null" {
			sandbox = new(contain.Policy)
			if err := decodeJSONBytes("session options: sandbox", o.Sandbox, sandbox); err != nil {
				return err
			}
		}
		// A NUL would cut the id at the C boundary (every id out is a C string).
		if strings.ContainsRune(o.ID, 0) || !utf8.ValidString(o.ID) || strings.ContainsRune(o.ID, utf8.RuneError) {
			return errorf(C.IL_ERR_INVALID_ARGUMENT, "session options: id %q has a NUL or is not valid UTF-8 (a lone surrogate arrives as U+FFFD): choose an id of printable text", o.ID)
		}
		p, err := ee.e.ScriptProvider(o.Script)
		if err != nil {
			return fmt.Errorf("session options: script: %w", err)
		}
		if len(o.Provider) > 0 && string(o.Provider) != "null" {
			if p != nil {
				return errorf(C.IL_ERR_INVALID_ARGUMENT, "session options: both script and provider are set: a session has one model, pass one of them")
			}
			if p, err = modelProvider("session options: provider", o.Provider); err != nil {
				return err
			}
		}
		var bashTool *bash.Tool
		if sandbox != nil {
			if err := sandbox.Validate("session options: sandbox"); err != nil {
				return errorf(C.IL_ERR_INVALID_ARGUMENT, "%v", err)
			}
			t, _ := ee.e.Tools().Lookup("bash")
			if bashTool, _ = t.(*bash.Tool); bashTool == nil {
				return errorf(C.IL_ERR_INVALID_ARGUMENT, "session options: sandbox: the engine has no bash tool to apply it to")
			}
		}
		return ee.whileOpen(func() error {
			so := engine.SessionOptions{ID: o.ID, Dir: o.WorkDir, Environ: o.Environ(), Provider: p}
			if o.Tools != nil {
				so.Tools = *o.Tools
			}
			se, sh, err := ee.newSession(so)
			if err != nil {
				return err
			}
			if bashTool != nil {
				bashTool.SetSandbox(se.s, *sandbox) // validated above
			}
			*out = sh
			if outID != nil {
				putString(outID, se.s.ID())
			}
			return nil
		})
	})
}

//export il_session_close
func il_session_close(h C.il_handle) C.il_status {
	return call("il_session_close", h, func(se *sessionEntry) error {
		err := se.s.Close() // the handle stays usable while the run unwinds
		handles.remove(h)
		return err
	})
}

//export il_session_get_status
func il_session_get_status(h C.il_handle, out *C.int32_t) C.il_status {
	return call("il_session_get_status", h, func(se *sessionEntry) error {
		if out == nil {
			return errNilOut("out_status")
		}
		*out = C.int32_t(se.s.Status())
		return nil
	})
}

//export il_session_get_version
func il_session_get_version(h C.il_handle, out *C.uint64_t) C.il_status {
	return call("il_session_get_version", h, func(se *sessionEntry) error {
		if out == nil {
			return errNilOut("out_version")
		}
		*out = C.uint64_t(se.s.Version())
		return nil
	})
}

//export il_session_get_pause_state
func il_session_get_pause_state(h C.il_handle, out **C.char) C.il_status {
	return call("il_session_get_pause_state", h, func(se *sessionEntry) error {
		if out == nil {
			return errNilOut("out_json")
		}
		if p, ok := se.s.Pause(); ok {
			return putJSON(out, p)
		}
		putString(out, "null")
		return nil
	})
}

//export il_session_snapshot
func il_session_snapshot(h C.il_handle, out **C.char) C.il_status {
	return call("il_session_snapshot", h, func(se *sessionEntry) error {
		if out == nil {
			return errNilOut("out_json")
		}
		return putJSON(out, se.s.Snapshot())
	})
}

//export il_session_history
func il_session_history(h C.il_handle, out **C.char) C.il_status {
	return call("il_session_history", h, func(se *sessionEntry) error {
		if out == nil {
			return errNilOut("out_json")
		}
		hist := se.s.History()
		if hist == nil {
			hist = []engine.Message{} // "[]", not "null"
		}
		return putJSON(out, hist)
	})
}

//export il_session_id
func il_session_id(h C.il_handle, out **C.char) C.il_status {
	return call("il_session_id", h, func(se *sessionEntry) error {
		if out == nil {
			return errNilOut("out_id")
		}
		putString(out, se.s.ID())
		return nil
	})
}

//export il_session_pause_resume
func il_session_pause_resume(h C.il_handle, pauseID *C.char) C.il_status {
	return call("il_session_pause_resume", h, func(se *sessionEntry) error {
		return se.s.Resume(goString(pauseID))
	})
}

//export il_session_pause_confirm
func il_session_pause_confirm(h C.il_handle, pauseID *C.char, approved C.int32_t, reason, remember *C.char) C.il_status {
	return call("il_session_pause_confirm", h, func(se *sessionEntry) error {
		return se.s.Confirm(goString(pauseID), approved != 0, engine.WithReason(goString(reason)), engine.Remember(goString(remember)))
	})
}

//export il_session_interrupt
func il_session_interrupt(h C.il_handle, reason *C.char) C.il_status {
	return call("il_session_interrupt", h, func(se *sessionEntry) error {
		return se.s.Interrupt(engine.Reason(goString(reason)))
	})
}

//export il_session_signal
func il_session_signal(h C.il_handle, signal *C.char) C.il_status {
	return call("il_session_signal", h, func(se *sessionEntry) error {
		return se.s.Signal(engine.Signal(goString(signal)))
	})
}

//export il_session_get_run_state
func il_session_get_run_state(h C.il_handle, out **C.char) C.il_status {
	return call("il_session_get_run_state", h, func(se *sessionEntry) error {
		if out == nil {
			return errNilOut("out_state")
		}
		putString(out, string(se.s.RunState()))
		return nil
	})
}

//export il_session_eligibility
func il_session_eligibility(h C.il_handle, out **C.char) C.il_status {
	return call("il_session_eligibility", h, func(se *sessionEntry) error {
		if out == nil {
			return errNilOut("out_json")
		}
		return putJSON(out, se.s.Eligibility())
	})
}

//export il_session_check
func il_session_check(h C.il_handle, cmd *C.char, out **C.char) C.il_status {
	return call("il_session_check", h, func(se *sessionEntry) error {
		if cmd == nil {
			return errorf(C.IL_ERR_INVALID_ARGUMENT, "cmd is NULL: pass the command line to check")
		}
		if out == nil {
			return errNilOut("out_json")
		}
		return putJSON(out, se.eng.bash.Judge(se.s.Env(), goString(cmd)))
	})
}

//export il_session_prompt
func il_session_prompt(h C.il_handle, text *C.char, out *C.uint64_t) C.il_status {
	return call("il_session_prompt", h, func(se *sessionEntry) error {
		if out == nil {
			return errNilOut("out_run")
		}
		if text == nil {
			return errorf(C.IL_ERR_INVALID_ARGUMENT, "text is NULL: pass the prompt text (\"\" is allowed)")
		}
		prompt := C.GoString(text)
		return se.eng.whileOpen(func() error {
			run, _, err := se.s.Start(context.Background(), prompt)
			if err == nil {
				*out = C.uint64_t(run)
			}
			return err
		})
	})
}

//export il_session_continue
func il_session_continue(h C.il_handle, out *C.uint64_t) C.il_status {
	return call("il_session_continue", h, func(se *sessionEntry) error {
		if out == nil {
			return errNilOut("out_run")
		}
		return se.eng.whileOpen(func() error {
			run, _, err := se.s.StartContinue(context.Background())
			if err == nil {
				*out = C.uint64_t(run)
			}
			return err
		})
	})
}

//export il_sessions_confirm
func il_sessions_confirm(h C.il_handle, entries *C.il_confirm, n C.size_t, outStatuses *C.il_status, outErrors **C.char) C.il_status {
	return call("il_sessions_confirm", h, func(ee *engineEntry) error {
		if n == 0 {
			return nil
		}
		if entries == nil || outStatuses == nil {
			return errorf(C.IL_ERR_INVALID_ARGUMENT, "entries or out_statuses is NULL with n = %d: pass arrays of n entries", uint64(n))
		}
		in := unsafe.Slice(entries, int(n))
		statuses := unsafe.Slice(outStatuses, int(n))
		var errs []*C.char
		if outErrors != nil {
			errs = unsafe.Slice(outErrors, int(n))
		}
		for i := range in {
			err := ee.confirmOne(&in[i])
			statuses[i] = C.IL_OK
			if errs != nil {
				errs[i] = nil
			}
			if err != nil {
				statuses[i] = statusOf(err)
				if errs != nil {
					errs[i] = C.CString("il_sessions_confirm: " + err.Error())
				}
			}
		}
		return nil
	})
}

// confirmOne applies one entry of il_sessions_confirm.
func (ee *engineEntry) confirmOne(c *C.il_confirm) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = errorf(C.IL_ERR_PANIC, "session handle %d: internal error (panic: %v); the answer was not applied. This is a bug in libinterlock %s: please report it", uint64(c.session), p, version)
		}
	}()
	se, err := resolve[*sessionEntry](c.session)
	if err != nil {
		return err
	}
	if se.eng != ee {
		return errorf(C.IL_ERR_INVALID_HANDLE, "session handle %d belongs to another engine: answer it through its own engine", uint64(c.session))
	}
	return se.s.Confirm(goString(c.pause_id), c.approved != 0, engine.WithReason(goString(c.reason)), engine.Remember(goString(c.remember)))
}
