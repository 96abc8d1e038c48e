package main

/*
#include <string.h>
#include "interlock.h"
*/
import "C"

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/bash"
	"github.com/interlock-dev/interlock/engine/bash/contain"
	"github.com/interlock-dev/interlock/engine/hub"
	"github.com/interlock-dev/interlock/engine/provider/openai"
)

// engineConfig is the JSON of il_engine_create.
type engineConfig struct {
	WorkDir             string     `json:"workDir"`
	DefaultPauseMode    bool       `json:"defaultPauseMode"`
	StreamIdleTimeoutMS *int64     `json:"streamIdleTimeoutMs"`
	Bash                bashConfig `json:"bash"`
	Web                 webConfig  `json:"web"`
	// Store is the path of the engine's store (":memory:" for one in
	// memory); "" keeps nothing.
	Store string `json:"store"`
	// Hub, when set, mirrors the engine to a fleet's PostgreSQL hub and
	// takes the commands addressed to this host (engine/hub).
	Hub *hubConfig `json:"hub"`
	// Provider is the model of sessions that name none (see modelProvider).
	Provider json.RawMessage `json:"provider"`
	// Tools, when set, are the built-in tools offered to the model
	// (engine.WithBuiltinTools); nil offers them all.
	Tools *[]string `json:"tools"`
}

type bashConfig struct {
	TimeoutMS *int64 `json:"timeoutMs"`
	GraceMS   *int64 `json:"graceMs"`
	// Policy is the engine tier's policy, a document of the policy format
	// (engine/policy's schema), passed as the host wrote it (camelCase).
	Policy  json.RawMessage `json:"policy"`
	Sandbox *contain.Policy `json:"sandbox"`
	Env     *bash.EnvFilter `json:"env"`
	// UserPolicy is the user's policy file (bash.WithUserPolicy).
	UserPolicy string `json:"userPolicy"`
	// ProjectPolicy uses trusted project policy files (bash.WithProjectPolicy).
	ProjectPolicy *struct {
		TrustFile string `json:"trustFile"`
	} `json:"projectPolicy"`
}

type hubConfig struct {
	URL         string `json:"url"`
	Host        string `json:"host"`
	HeartbeatMS int64  `json:"heartbeatMs"`
	// RetentionDays: hub.Config.Retention in days (0: the default).
	RetentionDays float64 `json:"retentionDays"`
}

type webConfig struct {
	SearchURL    string `json:"searchUrl"`
	AutoDevtools bool   `json:"autoDevtools"`
}

// engineEntry is an engine handle: the engine, its event delivery and its
// host line.
type engineEntry struct {
	e      *engine.Engine
	bash   *bash.Tool // the engine's "bash" tool: host runs judge commands with it
	hubURL string     // the hub of its config, if any
	events *engine.Delivery
	host   *engine.HostLine // host work and its messages (host.go)
	// cbThread is the OS thread running the event callback, 0 when none
	// (events.go).
	cbThread atomic.Uint64
	handle   atomic.Uint64 // its own handle, for report
	closing  atomic.Bool

	// openMu makes "create or start something" atomic with respect to
	// Close (see whileOpen).
	openMu sync.RWMutex
	closed bool
}

// whileOpen runs fn unless the engine is closed. Close waits for fn, and
// fn runs before Close forgets the engine's handles and stops the event
// delivery: a handle fn adds is closed with the engine, and a run fn
// starts delivers its terminal event.
func (ee *engineEntry) whileOpen(fn func() error) error {
	ee.openMu.RLock()
	defer ee.openMu.RUnlock()
	if ee.closed {
		return fmt.Errorf("engine: %w: create a new engine", engine.ErrClosed)
	}
	return fn()
}

// report records msg as the last error of the engine's handle: for
// failures on library goroutines, which have no caller to return to.
func (ee *engineEntry) report(msg string) {
	if h := C.il_handle(ee.handle.Load()); h != 0 {
		handles.setLastError(h, msg)
	}
}

// close stops new work, closes the engine (its sessions and their task
// loops), delivers the last events and forgets every handle of the engine.
func (ee *engineEntry) close() error {
	ee.openMu.Lock() // waits for creations and starts in progress
	ee.closed = true
	ee.openMu.Unlock()
	var servers []*serverEntry
	handles.each(func(_ C.il_handle, obj any) {
		if s, ok := obj.(*serverEntry); ok && s.eng == ee {
			servers = append(servers, s)
		}
	})
	for _, s := range servers {
		s.srv.Close()
	}
	err := ee.e.Close()
	ee.host.Close()
	ee.events.Close()
	handles.removeIf(func(obj any) bool { return ownedBy(obj) == ee })
	return err
}

// ownedBy returns the engine a handle's object belongs to.
func ownedBy(obj any) *engineEntry {
	switch o := obj.(type) {
	case *engineEntry:
		return o
	case *sessionEntry:
		return o.eng
	case *loopEntry:
		return o.eng
	case *serverEntry:
		return o.eng
	case *hostEntry:
		return o.eng
	}
	return nil
}

// decodeJSON decodes a borrowed JSON argument into v, rejecting unknown
// fields and trailing data. NULL or "" leaves v as it is.
func decodeJSON(what string, src *C.char, v any) error {
	if src == nil {
		return nil
	}
	// Read in place: the caller's string lives for the call, and decoding
	// copies what it keeps.
	return decodeJSONBytes(what, unsafe.Slice((*byte)(unsafe.Pointer(src)), C.strlen(src)), v)
}

// decodeJSONText is decodeJSON of a Go string.
func decodeJSONText(what, text string, v any) error {
	return decodeJSONBytes(what, unsafe.Slice(unsafe.StringData(text), len(text)), v)
}

func decodeJSONBytes(what string, data []byte, v any) error {
	if len(data) == 0 {
		return nil
	}
	if err := engine.DecodeStrict(data, v); err != nil {
		return errorf(C.IL_ERR_INVALID_ARGUMENT, "%s: %v: fix the JSON (see interlock.h for the fields)", what, err)
	}
	return nil
}

// maxMillis is the largest millisecond count a time.Duration holds (~292 years).
const maxMillis = int64(math.MaxInt64 / int64(time.Millisecond))

// millis converts a config field in milliseconds, refusing values that are
// negative or would overflow a time.Duration (they used to wrap around into
// tiny timeouts).
func millis(field string, v *int64) (time.Duration, error) {
	if *v < 0 || *v > maxMillis {
		return 0, errorf(C.IL_ERR_INVALID_ARGUMENT, "%s is %d: it must be from 0 to %d milliseconds", field, *v, maxMillis)
	}
	return time.Duration(*v) * time.Millisecond, nil
}

//export il_engine_create
func il_engine_create(configJSON *C.char, out *C.il_handle) C.il_status {
	return callNoHandle("il_engine_create", func() error {
		if out == nil {
			return errNilOut("out_engine")
		}
		var cfg engineConfig
		if err := decodeJSON("engine config", configJSON, &cfg); err != nil {
			return err
		}
		opts := []engine.Option{engine.WithDefaultPauseMode(cfg.DefaultPauseMode), engine.WithWorkDir(cfg.WorkDir), engine.WithEnvironment(processEnvironment)}
		if cfg.StreamIdleTimeoutMS != nil {
			d, err := millis("streamIdleTimeoutMs", cfg.StreamIdleTimeoutMS)
			if err != nil {
				return err
			}
			opts = append(opts, engine.WithStreamIdleTimeout(d))
		}
		p, err := modelProvider("engine config: provider", cfg.Provider)
		if err != nil {
			return err
		}
		if p != nil {
			opts = append(opts, engine.WithProvider(p))
		}
		toolOpts, bashTool, err := toolOptions(cfg)
		if err != nil {
			return err
		}
		if cfg.Store != "" {
			// A session's own model ("provider" or "script") comes back with it.
			opts = append(opts, engine.WithStore(cfg.Store), engine.WithProviderLoader("openai", openai.Load))
		}
		if cfg.Hub != nil {
			opts = append(opts, hub.With(hub.Config{URL: cfg.Hub.URL, Host: cfg.Hub.Host, Heartbeat: time.Duration(cfg.Hub.HeartbeatMS) * time.Millisecond,
				Retention: time.Duration(cfg.Hub.RetentionDays * float64(24*time.Hour))}))
		}
		if cfg.Tools != nil {
			opts = append(opts, engine.WithBuiltinTools(*cfg.Tools...))
		}
		e, err := engine.Open(context.Background(), append(opts, toolOpts...)...)
		if err != nil {
			return err
		}
		ee := &engineEntry{e: e, bash: bashTool}
		if cfg.Hub != nil {
			ee.hubURL = cfg.Hub.URL // serve({fleet: true}) serves this hub
		}
		ee.events = e.NewDelivery(func(err error) { ee.report(err.Error()) })
		ee.host = newHostLine(ee)
		h := handles.add(ee)
		ee.handle.Store(uint64(h))
		*out = h
		return nil
	})
}

//export il_engine_close
func il_engine_close(h C.il_handle) C.il_status {
	return call("il_engine_close", h, func(ee *engineEntry) error {
		if ee.inCallback() {
			return errorf(C.IL_ERR_INVALID_ARGUMENT, "called from inside the event callback, which close waits for: close the engine from another thread")
		}
		if !ee.closing.CompareAndSwap(false, true) {
			return fmt.Errorf("engine handle %d: %w: it is already being closed by another call", h, engine.ErrClosed)
		}
		return ee.close()
	})
}

//export il_engine_stats
func il_engine_stats(h C.il_handle, out **C.char) C.il_status {
	return call("il_engine_stats", h, func(ee *engineEntry) error {
		if out == nil {
			return errNilOut("out_json")
		}
		return putJSON(out, ee.e.Stats())
	})
}

//export il_engine_sessions
func il_engine_sessions(h C.il_handle, out **C.char) C.il_status {
	return call("il_engine_sessions", h, func(ee *engineEntry) error {
		if out == nil {
			return errNilOut("out_json")
		}
		b := ee.e.AppendWireSessions(nil)
		b = append(b, 0)
		*out = (*C.char)(C.CBytes(b))
		return nil
	})
}

//export il_engine_info
func il_engine_info(h C.il_handle, out **C.char) C.il_status {
	return call("il_engine_info", h, func(ee *engineEntry) error {
		if out == nil {
			return errNilOut("out_json")
		}
		return putJSON(out, ee.e.Info())
	})
}

//export il_engine_emergency_stop
func il_engine_emergency_stop(h C.il_handle, out **C.char) C.il_status {
	return call("il_engine_emergency_stop", h, func(ee *engineEntry) error {
		if out == nil {
			return errNilOut("out_json")
		}
		return putJSON(out, ee.e.EmergencyStop())
	})
}
