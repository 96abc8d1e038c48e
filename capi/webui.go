package main

/*
#include "interlock.h"
*/
import "C"

import (
	"context"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/webui"
)

// serverEntry is a web UI served for an engine, closed with it, or a
// fleet view served alone (eng nil, il_fleet_serve).
type serverEntry struct {
	eng *engineEntry
	srv *webui.Server
}

//export il_engine_serve
func il_engine_serve(h C.il_handle, configJSON *C.char, out *C.il_handle, outURL **C.char) C.il_status {
	return call("il_engine_serve", h, func(ee *engineEntry) error {
		if out == nil {
			return errNilOut("out_server")
		}
		if outURL == nil {
			return errNilOut("out_url")
		}
		var cfg webui.Config
		if err := decodeJSON("serve config", configJSON, &cfg); err != nil {
			return err
		}
		cfg.HubURL = ee.hubURL // fleet: true serves the engine's own hub
		opts, err := cfg.Options()
		if err != nil {
			return err
		}
		if ee.bash != nil { // the page offers to trust a session's project policy file
			opts = append(opts, webui.WithProjectPolicies(ee.bash))
		}
		return ee.whileOpen(func() error {
			srv, err := webui.Serve(context.Background(), ee.e, opts...)
			if err != nil {
				return err
			}
			*out = handles.add(&serverEntry{eng: ee, srv: srv})
			putString(outURL, srv.URL())
			return nil
		})
	})
}

//export il_fleet_serve
func il_fleet_serve(configJSON *C.char, out *C.il_handle, outURL **C.char) C.il_status {
	return callNoHandle("il_fleet_serve", func() error {
		if out == nil {
			return errNilOut("out_server")
		}
		if outURL == nil {
			return errNilOut("out_url")
		}
		var cfg webui.Config
		if err := decodeJSON("serve config", configJSON, &cfg); err != nil {
			return err
		}
		cfg.Fleet = true
		opts, err := cfg.Options()
		if err != nil {
			return err
		}
		srv, err := webui.Serve(context.Background(), nil, opts...)
		if err != nil {
			return err
		}
		*out = handles.add(&serverEntry{srv: srv})
		putString(outURL, srv.URL())
		return nil
	})
}

//export il_server_close
func il_server_close(h C.il_handle) C.il_status {
	return call("il_server_close", h, func(se *serverEntry) error {
		handles.remove(h)
		return se.srv.Close()
	})
}

//export il_engine_counts
func il_engine_counts(h C.il_handle, out **C.char) C.il_status {
	return call("il_engine_counts", h, func(ee *engineEntry) error {
		if out == nil {
			return errNilOut("out_json")
		}
		return putJSON(out, ee.e.Counts())
	})
}

//export il_engine_resume_all
func il_engine_resume_all(h C.il_handle, out **C.char) C.il_status {
	return call("il_engine_resume_all", h, func(ee *engineEntry) error {
		return resumeAll(ee, nil, out)
	})
}

//export il_engine_resume_sessions
func il_engine_resume_sessions(h C.il_handle, idsJSON *C.char, out **C.char) C.il_status {
	return call("il_engine_resume_sessions", h, func(ee *engineEntry) error {
		var ids []string
		if idsJSON != nil {
			if err := decodeJSON("ids_json", idsJSON, &ids); err != nil {
				return err
			}
		}
		if ids == nil { // NULL, "" or null
			return errorf(C.IL_ERR_INVALID_ARGUMENT, "ids_json: a JSON array of session ids is needed ([] resumes none; il_engine_resume_all resumes every eligible session)")
		}
		return resumeAll(ee, ids, out)
	})
}

// resumeAll resumes the eligible sessions among ids, or all with ids nil.
func resumeAll(ee *engineEntry, ids []string, out **C.char) error {
	if out == nil {
		return errNilOut("out_json")
	}
	rep := engine.ResumeReport{Resumed: []string{}, Skipped: map[string]string{}}
	err := ee.whileOpen(func() error {
		if ids == nil || len(ids) > 0 { // the engine's ResumeAll takes no ids as all
			rep = ee.e.ResumeAll(context.Background(), ids...)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return putJSON(out, rep)
}
