package main

/*
#include <stdlib.h>
#include <string.h>
#include "interlock.h"
*/
import "C"

import (
	"encoding/json"
	"errors"
	"fmt"
	"unsafe"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/policy"
	"github.com/interlock-dev/interlock/engine/store"
	"github.com/interlock-dev/interlock/engine/webui"
)

// apiError is an error this layer finds itself (bad handle, bad argument):
// it carries its status code.
type apiError struct {
	status C.il_status
	msg    string
}

func (e *apiError) Error() string { return e.msg }

func errorf(status C.il_status, format string, args ...any) error {
	return &apiError{status: status, msg: fmt.Sprintf(format, args...)}
}

// errNilOut is returned for a NULL out-parameter.
func errNilOut(name string) error {
	return errorf(C.IL_ERR_INVALID_ARGUMENT, "%s is NULL: pass the address of a variable to receive the result", name)
}

// statusOf maps an error to its status code. The order matters where an
// error wraps several sentinels (an idle timeout is also an interruption).
func statusOf(err error) C.il_status {
	var api *apiError
	if errors.As(err, &api) {
		return api.status
	}
	for _, m := range sentinelStatus {
		if errors.Is(err, m.err) {
			return m.status
		}
	}
	return C.IL_ERR_INTERNAL
}

var sentinelStatus = []struct {
	err    error
	status C.il_status
}{
	{store.ErrLocked, C.IL_ERR_STORE},
	{store.ErrCorrupt, C.IL_ERR_STORE},
	{store.ErrForeign, C.IL_ERR_STORE},
	{store.ErrNewerSchema, C.IL_ERR_STORE},
	{store.ErrReadOnly, C.IL_ERR_STORE},
	{store.ErrFull, C.IL_ERR_STORE},
	{store.ErrNotFound, C.IL_ERR_STORE},
	{engine.ErrClosed, C.IL_ERR_CLOSED},
	{engine.ErrSubscriptionClosed, C.IL_ERR_CLOSED},
	{engine.ErrUnknownSession, C.IL_ERR_UNKNOWN_SESSION},
	{engine.ErrDuplicateSession, C.IL_ERR_DUPLICATE},
	{engine.ErrNotPaused, C.IL_ERR_NOT_PAUSED},
	{engine.ErrUnknownPause, C.IL_ERR_UNKNOWN_PAUSE},
	{engine.ErrWrongPauseKind, C.IL_ERR_WRONG_PAUSE_KIND},
	{engine.ErrRunning, C.IL_ERR_RUNNING},
	{engine.ErrNotRunning, C.IL_ERR_NOT_RUNNING},
	{engine.ErrNotResumable, C.IL_ERR_NOT_RESUMABLE},
	{engine.ErrInterrupted, C.IL_ERR_INTERRUPTED},
	{engine.ErrInvalidArgument, C.IL_ERR_INVALID_ARGUMENT},
	{engine.ErrUnknownGrant, C.IL_ERR_INVALID_ARGUMENT},
	{policy.ErrChanged, C.IL_ERR_INVALID_ARGUMENT},
	{policy.ErrInvalid, C.IL_ERR_INVALID_ARGUMENT},
	{webui.ErrNonLoopback, C.IL_ERR_INVALID_ARGUMENT},
	{webui.ErrWeakToken, C.IL_ERR_INVALID_ARGUMENT},
}

// statusNames are the il_status_name strings, indexed by status code.
var statusNames = [...]string{
	C.IL_OK:                   "OK",
	C.IL_ERR_INVALID_HANDLE:   "ERR_INVALID_HANDLE",
	C.IL_ERR_INVALID_ARGUMENT: "ERR_INVALID_ARGUMENT",
	C.IL_ERR_CLOSED:           "ERR_CLOSED",
	C.IL_ERR_UNKNOWN_SESSION:  "ERR_UNKNOWN_SESSION",
	C.IL_ERR_NOT_PAUSED:       "ERR_NOT_PAUSED",
	C.IL_ERR_UNKNOWN_PAUSE:    "ERR_UNKNOWN_PAUSE",
	C.IL_ERR_WRONG_PAUSE_KIND: "ERR_WRONG_PAUSE_KIND",
	C.IL_ERR_RUNNING:          "ERR_RUNNING",
	C.IL_ERR_NOT_RUNNING:      "ERR_NOT_RUNNING",
	C.IL_ERR_NOT_RESUMABLE:    "ERR_NOT_RESUMABLE",
	C.IL_ERR_DUPLICATE:        "ERR_DUPLICATE",
	C.IL_ERR_INTERRUPTED:      "ERR_INTERRUPTED",
	C.IL_ERR_PANIC:            "ERR_PANIC",
	C.IL_ERR_INTERNAL:         "ERR_INTERNAL",
	C.IL_ERR_STORE:            "ERR_STORE",
}

const unknownStatusName = "ERR_UNKNOWN"

func statusName(st C.il_status) string {
	if st < 0 || int(st) >= len(statusNames) {
		return unknownStatusName
	}
	return statusNames[st]
}

// Static C strings, made once and never freed: il_version, il_status_name,
// il_reason_labels.
var (
	cVersion           = C.CString(version)
	cReasonLabels      = C.CString(reasonLabelsJSON())
	cStatusNames       = makeCStatusNames()
	cUnknownStatusName = C.CString(unknownStatusName)
)

func makeCStatusNames() []*C.char {
	out := make([]*C.char, len(statusNames))
	for i, n := range statusNames {
		out[i] = C.CString(n)
	}
	return out
}

// call is the one wrapper every export with a handle goes through: resolve
// h to a K, recover a panic, run fn, map its error to a status code and
// record the message as h's last error. op names the export in messages.
func call[K any](op string, h C.il_handle, fn func(K) error) (st C.il_status) {
	defer recoverPanic(op, h, &st)
	k, err := resolve[K](h)
	if err == nil {
		err = fn(k)
	}
	if err == nil {
		return C.IL_OK
	}
	return fail(op, h, err)
}

// callNoHandle is call for exports without a handle; errors go to handle 0.
func callNoHandle(op string, fn func() error) (st C.il_status) {
	defer recoverPanic(op, 0, &st)
	if err := fn(); err != nil {
		return fail(op, 0, err)
	}
	return C.IL_OK
}

func fail(op string, h C.il_handle, err error) C.il_status {
	handles.setLastError(h, op+": "+err.Error())
	return statusOf(err)
}

// recoverPanic turns a panic into IL_ERR_PANIC: a Go panic crossing into C
// would take the whole host process (Node) down.
func recoverPanic(op string, h C.il_handle, st *C.il_status) {
	if p := recover(); p != nil {
		handles.setLastError(h, fmt.Sprintf("%s: internal error (panic: %v); the call did not complete. This is a bug in libinterlock %s: please report it with this message", op, p, version))
		*st = C.IL_ERR_PANIC
	}
}

// goString copies a borrowed C string; NULL is "".
func goString(p *C.char) string {
	if p == nil {
		return ""
	}
	return C.GoString(p)
}

// putString hands a new malloc'd copy of s to the caller (freed by il_free).
func putString(out **C.char, s string) { *out = C.CString(s) }

// putJSON hands v in the engine's wire format (camelCase JSON) to the
// caller, in a new malloc'd string.
func putJSON(out **C.char, v any) error {
	b, err := engine.AppendWireJSON(nil, v)
	if err != nil {
		return fmt.Errorf("encoding the result as JSON: %w", err)
	}
	*out = (*C.char)(C.CBytes(append(b, 0)))
	return nil
}

//export il_version
func il_version() *C.char { return cVersion }

//export il_reason_labels
func il_reason_labels() *C.char { return cReasonLabels }

// reasonLabelsJSON is il_reason_labels' JSON: the engine's label of every
// interruption reason, and of one it does not know.
func reasonLabelsJSON() string {
	b, err := json.Marshal(struct {
		Labels  map[engine.Reason]string `json:"labels"`
		Unknown string                   `json:"unknown"`
	}{engine.ReasonLabels(), engine.UnknownReasonLabel})
	if err != nil { // a map of strings always encodes
		panic(err)
	}
	return string(b)
}

//export il_status_name
func il_status_name(st C.il_status) *C.char {
	if st < 0 || int(st) >= len(cStatusNames) {
		return cUnknownStatusName
	}
	return cStatusNames[st]
}

//export il_last_error
func il_last_error(h C.il_handle, buf *C.char, capacity C.size_t, needed *C.size_t) (st C.il_status) {
	defer recoverPanic("il_last_error", 0, &st)
	msg := handles.lastError(h)
	if needed != nil {
		*needed = C.size_t(len(msg) + 1)
	}
	if capacity == 0 {
		if len(msg) == 0 {
			return C.IL_OK
		}
		return C.IL_ERR_INVALID_ARGUMENT
	}
	if buf == nil {
		return C.IL_ERR_INVALID_ARGUMENT
	}
	dst := unsafe.Slice((*byte)(unsafe.Pointer(buf)), int(capacity))
	n := copy(dst[:len(dst)-1], msg)
	for n < len(msg) && n > 0 && msg[n]&0xC0 == 0x80 { // never cut a UTF-8 sequence
		n--
	}
	dst[n] = 0
	if n < len(msg) {
		return C.IL_ERR_INVALID_ARGUMENT
	}
	return C.IL_OK
}
