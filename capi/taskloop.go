package main

/*
#include "interlock.h"
*/
import "C"

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/interlock-dev/interlock/engine"
)

// loopEntry is a task-loop handle.
type loopEntry struct {
	tl  *engine.TaskLoop
	eng *engineEntry
}

// taskLoopOptions is the JSON of il_taskloop_create.
type taskLoopOptions struct {
	Tasks []struct {
		Title  string          `json:"title"`
		Prompt string          `json:"prompt"`
		Script json.RawMessage `json:"script"`
	} `json:"tasks"`
	PauseMode *bool `json:"pauseMode"`
}

//export il_taskloop_create
func il_taskloop_create(h C.il_handle, optsJSON *C.char, outLoop, outSession *C.il_handle) C.il_status {
	return call("il_taskloop_create", h, func(ee *engineEntry) error {
		if outLoop == nil || outSession == nil {
			return errNilOut("out_loop or out_session")
		}
		var o taskLoopOptions
		if err := decodeJSON("task loop", optsJSON, &o); err != nil {
			return err
		}
		tasks := make([]engine.Task, len(o.Tasks))
		for i, t := range o.Tasks {
			p, err := ee.e.ScriptProvider(t.Script)
			if err != nil {
				return fmt.Errorf("task loop: tasks[%d].script: %w", i, err)
			}
			tasks[i] = engine.Task{Title: t.Title, Prompt: t.Prompt, Provider: p}
		}
		var opts []engine.TaskOption
		if o.PauseMode != nil {
			opts = append(opts, engine.WithTaskPauseMode(*o.PauseMode))
		}
		return ee.whileOpen(func() error {
			se, sh, err := ee.newSession(engine.SessionOptions{})
			if err != nil {
				return err
			}
			tl, err := se.s.NewTaskLoop(tasks, opts...)
			if err != nil {
				handles.remove(sh)
				return errors.Join(fmt.Errorf("task loop: %w", err), se.s.Close())
			}
			*outLoop, *outSession = handles.add(&loopEntry{tl: tl, eng: ee}), sh
			return nil
		})
	})
}

//export il_session_task_loop
func il_session_task_loop(h C.il_handle, outLoop *C.il_handle) C.il_status {
	return call("il_session_task_loop", h, func(se *sessionEntry) error {
		if outLoop == nil {
			return errNilOut("out_loop")
		}
		*outLoop = 0
		loops := se.s.TaskLoops()
		if len(loops) == 0 {
			return nil
		}
		return se.eng.whileOpen(func() error {
			*outLoop = handles.add(&loopEntry{tl: loops[len(loops)-1], eng: se.eng})
			return nil
		})
	})
}

//export il_taskloop_run
func il_taskloop_run(h C.il_handle, out *C.uint64_t) C.il_status {
	return call("il_taskloop_run", h, func(le *loopEntry) error {
		if out == nil {
			return errNilOut("out_run")
		}
		return le.eng.whileOpen(func() error {
			run, _, err := le.tl.Start(context.Background())
			if err == nil {
				*out = C.uint64_t(run)
			}
			return err
		})
	})
}

//export il_taskloop_set_pause_mode
func il_taskloop_set_pause_mode(h C.il_handle, on C.int32_t) C.il_status {
	return call("il_taskloop_set_pause_mode", h, func(le *loopEntry) error {
		le.tl.SetPauseMode(on != 0)
		return nil
	})
}

//export il_taskloop_is_pause_mode
func il_taskloop_is_pause_mode(h C.il_handle, out *C.int32_t) C.il_status {
	return call("il_taskloop_is_pause_mode", h, func(le *loopEntry) error {
		if out == nil {
			return errNilOut("out_on")
		}
		*out = 0
		if le.tl.IsPauseMode() {
			*out = 1
		}
		return nil
	})
}

//export il_taskloop_continue
func il_taskloop_continue(h C.il_handle, out *C.uint64_t) C.il_status {
	return call("il_taskloop_continue", h, func(le *loopEntry) error {
		if out == nil {
			return errNilOut("out_run")
		}
		return le.eng.whileOpen(func() error {
			run, err := le.tl.Continue()
			*out = C.uint64_t(run)
			return err
		})
	})
}

//export il_taskloop_continue_all
func il_taskloop_continue_all(h C.il_handle) C.il_status {
	return call("il_taskloop_continue_all", h, func(le *loopEntry) error {
		le.tl.ContinueAll()
		return nil
	})
}

//export il_taskloop_state
func il_taskloop_state(h C.il_handle, out **C.char) C.il_status {
	return call("il_taskloop_state", h, func(le *loopEntry) error {
		if out == nil {
			return errNilOut("out_json")
		}
		return putJSON(out, le.tl.State())
	})
}

//export il_taskloop_close
func il_taskloop_close(h C.il_handle) C.il_status {
	return call("il_taskloop_close", h, func(le *loopEntry) error {
		le.tl.Close()
		handles.remove(h)
		return nil
	})
}
