package main

/*
#include "interlock.h"
*/
import "C"

import (
	"context"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/store"
)

//export il_engine_audit_log
func il_engine_audit_log(h C.il_handle, session *C.char, out **C.char) C.il_status {
	return call("il_engine_audit_log", h, func(ee *engineEntry) error {
		if out == nil {
			return errNilOut("out_json")
		}
		log, err := ee.e.AuditLog(context.Background(), goString(session))
		if err != nil {
			return err
		}
		if log == nil {
			log = []store.AuditEntry{}
		}
		return putJSON(out, log)
	})
}

//export il_store_audit_log
func il_store_audit_log(path, session *C.char, out **C.char) C.il_status {
	return callNoHandle("il_store_audit_log", func() error {
		if path == nil {
			return errorf(C.IL_ERR_INVALID_ARGUMENT, "path is NULL: pass the path of a store file")
		}
		if out == nil {
			return errNilOut("out_json")
		}
		log, err := store.ReadAuditLog(context.Background(), C.GoString(path), goString(session))
		if err != nil {
			return err
		}
		if log == nil {
			log = []store.AuditEntry{}
		}
		return putJSON(out, log)
	})
}

//export il_engine_grants
func il_engine_grants(h C.il_handle, out **C.char) C.il_status {
	return call("il_engine_grants", h, func(ee *engineEntry) error {
		if out == nil {
			return errNilOut("out_json")
		}
		grants, err := ee.e.Grants(context.Background())
		if err != nil {
			return err
		}
		if grants == nil {
			grants = []engine.Grant{}
		}
		return putJSON(out, grants)
	})
}

//export il_engine_revoke_grant
func il_engine_revoke_grant(h C.il_handle, grantJSON *C.char) C.il_status {
	return call("il_engine_revoke_grant", h, func(ee *engineEntry) error {
		var g engine.Grant
		if err := decodeJSON("grant", grantJSON, &g); err != nil {
			return err
		}
		return ee.e.RevokeGrant(context.Background(), g)
	})
}

//export il_engine_check_store
func il_engine_check_store(h C.il_handle, out **C.char) C.il_status {
	return call("il_engine_check_store", h, func(ee *engineEntry) error {
		if out == nil {
			return errNilOut("out_json")
		}
		report, err := ee.e.CheckStore(context.Background())
		if err != nil {
			return err
		}
		return putJSON(out, report)
	})
}

//export il_engine_session_handle
func il_engine_session_handle(h C.il_handle, id *C.char, out *C.il_handle) C.il_status {
	return call("il_engine_session_handle", h, func(ee *engineEntry) error {
		if out == nil {
			return errNilOut("out_session")
		}
		return ee.whileOpen(func() error {
			s, err := ee.e.Session(goString(id))
			if err != nil {
				return err
			}
			var found C.il_handle
			handles.each(func(sh C.il_handle, obj any) {
				if se, ok := obj.(*sessionEntry); ok && se.s == s {
					found = sh
				}
			})
			if found == 0 {
				found = handles.add(&sessionEntry{s: s, eng: ee})
			}
			*out = found
			return nil
		})
	})
}
