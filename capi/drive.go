//go:build !libinterlock

package main

// Go-typed entry points over the exports, for capi_test.go: test files
// cannot use cgo. Each converts arguments, calls the export exactly as C
// would, and converts the results back. Nothing here adds behaviour. Test
// scaffolding only: the shipped library is built with -tags libinterlock
// (node/build.js), which leaves this file out.

/*
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "interlock.h"

void il_free(char *p); // free.c (the package's cgo sees interlock.h's types only)

// il_capi_sink records the event batches passed to il_capi_sink_cb (one JSON
// array per line): a C callback like the Node addon's, with an optional
// delay inside each call.
typedef struct {
	pthread_mutex_t mu;
	char *buf;          // events, each followed by '\n'
	size_t len, cap;
	int calls;
	int in_call;        // a call is in progress
	int delay_ms;       // sleep inside each call
	il_handle reenter;  // when set, the next call unregisters and closes from inside the callback
	il_status reenter_status, reenter_close_status;
	pthread_t watched;  // calls on this thread are counted in calls_on_watched
	int watching, calls_on_watched;
} il_capi_sink;

static inline il_capi_sink *il_capi_sink_new(int delay_ms) {
	il_capi_sink *s = calloc(1, sizeof *s);
	pthread_mutex_init(&s->mu, NULL);
	s->delay_ms = delay_ms;
	s->reenter_status = -1;
	return s;
}

static inline void il_capi_sink_free(il_capi_sink *s) {
	pthread_mutex_destroy(&s->mu);
	free(s->buf);
	free(s);
}

static inline int il_capi_sink_cb(void *user, const char *json, size_t len) {
	il_capi_sink *s = user;
	pthread_mutex_lock(&s->mu);
	s->in_call = 1;
	int delay = s->delay_ms;
	il_handle reenter = s->reenter;
	s->reenter = 0;
	pthread_mutex_unlock(&s->mu);
	if (reenter != 0) {
		extern il_status il_engine_set_event_callback(il_handle, il_event_cb, void *);
		extern il_status il_engine_close(il_handle);
		il_status st = il_engine_set_event_callback(reenter, NULL, NULL);
		il_status close_st = il_engine_close(reenter);
		pthread_mutex_lock(&s->mu);
		s->reenter_status = st;
		s->reenter_close_status = close_st;
		pthread_mutex_unlock(&s->mu);
	}
	if (delay > 0) {
		struct timespec ts = {delay / 1000, (long)(delay % 1000) * 1000000L};
		nanosleep(&ts, NULL);
	}
	pthread_mutex_lock(&s->mu);
	if (s->len + len + 1 > s->cap) {
		s->cap = (s->len + len + 1) * 2;
		s->buf = realloc(s->buf, s->cap);
	}
	memcpy(s->buf + s->len, json, len);
	s->len += len;
	s->buf[s->len++] = '\n';
	s->calls++;
	if (s->watching && pthread_equal(pthread_self(), s->watched)) s->calls_on_watched++;
	s->in_call = 0;
	pthread_mutex_unlock(&s->mu);
	return 0;
}

// il_capi_sink_take moves the recorded events out (free with free).
static inline char *il_capi_sink_take(il_capi_sink *s, size_t *len, int *in_call) {
	pthread_mutex_lock(&s->mu);
	char *out = malloc(s->len + 1);
	memcpy(out, s->buf ? s->buf : "", s->len);
	*len = s->len;
	*in_call = s->in_call;
	s->len = 0;
	pthread_mutex_unlock(&s->mu);
	return out;
}

// il_capi_sink_count counts where what occurs in the recorded batches
// and forgets everything recorded (no copy: for benchmarks).
static inline int il_capi_sink_count(il_capi_sink *s, const char *what) {
	size_t n = strlen(what);
	int count = 0;
	pthread_mutex_lock(&s->mu);
	for (size_t i = 0; n > 0 && i + n <= s->len;) {
		char *c = memchr(s->buf + i, what[0], s->len - i - n + 1);
		if (c == NULL) break;
		i = (size_t)(c - s->buf);
		if (memcmp(c, what, n) == 0) {
			count++;
			i += n;
		} else {
			i++;
		}
	}
	s->len = 0;
	pthread_mutex_unlock(&s->mu);
	return count;
}

// il_capi_sink_watch counts the calls made on the calling thread from now on.
static inline void il_capi_sink_watch(il_capi_sink *s) {
	pthread_mutex_lock(&s->mu);
	s->watched = pthread_self();
	s->watching = 1;
	pthread_mutex_unlock(&s->mu);
}

static inline int il_capi_sink_calls_on_watched(il_capi_sink *s) {
	pthread_mutex_lock(&s->mu);
	int n = s->calls_on_watched;
	pthread_mutex_unlock(&s->mu);
	return n;
}

static inline void il_capi_sink_reenter(il_capi_sink *s, il_handle engine) {
	pthread_mutex_lock(&s->mu);
	s->reenter = engine;
	pthread_mutex_unlock(&s->mu);
}

static inline il_status il_capi_sink_reenter_status(il_capi_sink *s, il_status *close_st) {
	pthread_mutex_lock(&s->mu);
	il_status st = s->reenter_status;
	*close_st = s->reenter_close_status;
	pthread_mutex_unlock(&s->mu);
	return st;
}

static inline il_status il_capi_sink_register(il_handle engine, il_capi_sink *s) {
	extern il_status il_engine_set_event_callback(il_handle, il_event_cb, void *);
	return il_engine_set_event_callback(engine, il_capi_sink_cb, s);
}

// il_capi_host_sink_cb records host messages in a sink, one per line.
static inline void il_capi_host_sink_cb(void *user, const char *json, size_t len) {
	il_capi_sink_cb(user, json, len);
}

static inline il_status il_capi_host_sink_register(il_handle engine, il_capi_sink *s) {
	extern il_status il_engine_set_host_callback(il_handle, il_host_cb, void *);
	return il_engine_set_host_callback(engine, il_capi_host_sink_cb, s);
}
*/
import "C"

import (
	"unsafe"
)

// status is an il_status for tests.
type status = int32

// driveErr returns the export's status and the handle's last error when
// the status is not IL_OK.
func lastErrorFor(h uint64, st C.il_status) (status, string) {
	if st == C.IL_OK {
		return status(st), ""
	}
	return status(st), handles.lastError(C.il_handle(h))
}

// cstr makes a C copy of s (nil for a nil *string); free it with freeC.
func cstr(s *string) *C.char {
	if s == nil {
		return nil
	}
	return C.CString(*s)
}

func freeC(p *C.char) { C.free(unsafe.Pointer(p)) }

// takeString converts and frees a string returned through an out-param.
func takeString(p *C.char) string {
	if p == nil {
		return ""
	}
	defer C.il_free(p)
	return C.GoString(p)
}

func driveVersion() string { return C.GoString(il_version()) }

func driveStatusName(st status) string { return C.GoString(il_status_name(C.il_status(st))) }

// driveLastError calls il_last_error with a buffer of capacity bytes.
func driveLastError(h uint64, capacity int) (msg string, needed int, st status) {
	var buf *C.char
	if capacity > 0 {
		buf = (*C.char)(C.malloc(C.size_t(capacity)))
		defer C.free(unsafe.Pointer(buf))
	}
	var n C.size_t
	st = status(il_last_error(C.il_handle(h), buf, C.size_t(capacity), &n))
	if buf != nil {
		msg = C.GoString(buf)
	}
	return msg, int(n), st
}

func driveEngineCreate(config *string) (uint64, status, string) {
	c := cstr(config)
	defer freeC(c)
	var h C.il_handle
	st, msg := lastErrorFor(0, il_engine_create(c, &h))
	return uint64(h), st, msg
}

func driveEngineClose(h uint64) (status, string) {
	return lastErrorFor(h, il_engine_close(C.il_handle(h)))
}

func driveEngineSessions(h uint64) (string, status, string) {
	var out *C.char
	st, msg := lastErrorFor(h, il_engine_sessions(C.il_handle(h), &out))
	return takeString(out), st, msg
}

func driveEngineInfo(h uint64) (string, status, string) {
	var out *C.char
	st, msg := lastErrorFor(h, il_engine_info(C.il_handle(h), &out))
	return takeString(out), st, msg
}

func driveEmergencyStop(h uint64) (string, status, string) {
	return driveStringOut(h, il_engine_emergency_stop)
}
func driveResumeAll(h uint64) (string, status, string) {
	return driveStringOut(h, il_engine_resume_all)
}
func driveResumeSessions(h uint64, ids *string) (string, status, string) {
	c := cstr(ids)
	defer freeC(c)
	var out *C.char
	st, msg := lastErrorFor(h, il_engine_resume_sessions(C.il_handle(h), c, &out))
	return takeString(out), st, msg
}
func driveCounts(h uint64) (string, status, string) { return driveStringOut(h, il_engine_counts) }
func driveRunState(h uint64) (string, status, string) {
	return driveStringOut(h, il_session_get_run_state)
}
func driveEligibility(h uint64) (string, status, string) {
	return driveStringOut(h, il_session_eligibility)
}

// sink is a C event callback that records every event it gets.
type sink struct{ c *C.il_capi_sink }

func newSink(delayMS int) *sink { return &sink{C.il_capi_sink_new(C.int(delayMS))} }

func (s *sink) free() { C.il_capi_sink_free(s.c) }

// take returns the events recorded since the last take (one JSON per
// line) and whether a call is in progress.
func (s *sink) take() (events string, inCall bool) {
	var n C.size_t
	var busy C.int
	p := C.il_capi_sink_take(s.c, &n, &busy)
	defer C.free(unsafe.Pointer(p))
	return C.GoStringN(p, C.int(n)), busy != 0
}

// count counts where what occurs in the recorded batches and forgets what
// was recorded, without copying it.
func (s *sink) count(what string) int {
	p := C.CString(what)
	defer C.free(unsafe.Pointer(p))
	return int(C.il_capi_sink_count(s.c, p))
}

// reenter makes the next callback call unregister the callback of engine
// and close engine from inside itself; reenterStatus is what those calls
// returned (-1 before they happened).
func (s *sink) reenter(engine uint64) { C.il_capi_sink_reenter(s.c, C.il_handle(engine)) }

// watchThisThread counts the calls made on the calling OS thread from now
// on (lock the goroutine to its thread first).
func (s *sink) watchThisThread() { C.il_capi_sink_watch(s.c) }

// callsOnWatched is how many calls were made on the watched thread.
func (s *sink) callsOnWatched() int { return int(C.il_capi_sink_calls_on_watched(s.c)) }

func (s *sink) reenterStatus() (unregister, close status) {
	var c C.il_status
	u := C.il_capi_sink_reenter_status(s.c, &c)
	return status(u), status(c)
}

func driveRegister(h uint64, s *sink) (status, string) {
	return lastErrorFor(h, C.il_capi_sink_register(C.il_handle(h), s.c))
}

// driveRegisterHost makes s the engine's host callback (nil: none).
func driveRegisterHost(h uint64, s *sink) (status, string) {
	if s == nil {
		return lastErrorFor(h, il_engine_set_host_callback(C.il_handle(h), nil, nil))
	}
	return lastErrorFor(h, C.il_capi_host_sink_register(C.il_handle(h), s.c))
}

func driveRegisterTool(h uint64, name, spec string) (status, string) {
	cn, cs := C.CString(name), C.CString(spec)
	defer freeC(cn)
	defer freeC(cs)
	return lastErrorFor(h, il_engine_register_tool(C.il_handle(h), cn, cs))
}

func driveBegin(h uint64, opts *string) (uint64, status, string) {
	c := cstr(opts)
	defer freeC(c)
	var out C.il_handle
	st, msg := lastErrorFor(h, il_session_begin(C.il_handle(h), c, &out))
	return uint64(out), st, msg
}

func driveHostEnd(h uint64, result string) (string, status, string) {
	c := C.CString(result)
	defer freeC(c)
	var out *C.char
	st, msg := lastErrorFor(h, il_host_end(C.il_handle(h), c, &out))
	return takeString(out), st, msg
}

func driveHostCheck(h uint64, cmd string) (string, status, string) {
	c := C.CString(cmd)
	defer freeC(c)
	var out *C.char
	st, msg := lastErrorFor(h, il_host_check(C.il_handle(h), c, &out))
	return takeString(out), st, msg
}

func driveHostStep(h uint64, request uint64) (status, string) {
	return lastErrorFor(h, il_host_step(C.il_handle(h), C.uint64_t(request)))
}

func driveHostPause(h uint64, request uint64, req string) (status, string) {
	c := C.CString(req)
	defer freeC(c)
	return lastErrorFor(h, il_host_pause(C.il_handle(h), C.uint64_t(request), c))
}

func driveUnregister(h uint64) (status, string) {
	return lastErrorFor(h, il_engine_set_event_callback(C.il_handle(h), nil, nil))
}

func driveSessionCreate(eng uint64, opts *string) (uint64, status, string) {
	c := cstr(opts)
	defer freeC(c)
	var h C.il_handle
	st, msg := lastErrorFor(eng, il_session_create(C.il_handle(eng), c, &h, nil))
	return uint64(h), st, msg
}

// driveSessionCreateID is driveSessionCreate asking for the id too.
func driveSessionCreateID(eng uint64, opts *string) (uint64, string, status, string) {
	c := cstr(opts)
	defer freeC(c)
	var h C.il_handle
	var id *C.char
	st, msg := lastErrorFor(eng, il_session_create(C.il_handle(eng), c, &h, &id))
	if id == nil {
		return uint64(h), "", st, msg
	}
	return uint64(h), takeString(id), st, msg
}

func driveSessionClose(h uint64) (status, string) {
	return lastErrorFor(h, il_session_close(C.il_handle(h)))
}

func driveStatus(h uint64) (int32, status) {
	var out C.int32_t
	st := il_session_get_status(C.il_handle(h), &out)
	return int32(out), status(st)
}

func driveVersionOf(h uint64) (uint64, status) {
	var out C.uint64_t
	st := il_session_get_version(C.il_handle(h), &out)
	return uint64(out), status(st)
}

// driveStringOut calls one of the exports that return a string.
func driveStringOut(h uint64, export func(C.il_handle, **C.char) C.il_status) (string, status, string) {
	var out *C.char
	st, msg := lastErrorFor(h, export(C.il_handle(h), &out))
	return takeString(out), st, msg
}

func drivePauseState(h uint64) (string, status, string) {
	return driveStringOut(h, il_session_get_pause_state)
}
func driveSnapshot(h uint64) (string, status, string) { return driveStringOut(h, il_session_snapshot) }
func driveHistory(h uint64) (string, status, string)  { return driveStringOut(h, il_session_history) }
func driveSessionID(h uint64) (string, status, string) {
	return driveStringOut(h, il_session_id)
}

func driveResume(h uint64, pauseID *string) (status, string) {
	c := cstr(pauseID)
	defer freeC(c)
	return lastErrorFor(h, il_session_pause_resume(C.il_handle(h), c))
}

func driveConfirm(h uint64, pauseID *string, approved bool, reason, remember *string) (status, string) {
	id, r, rem := cstr(pauseID), cstr(reason), cstr(remember)
	defer freeC(id)
	defer freeC(r)
	defer freeC(rem)
	a := C.int32_t(0)
	if approved {
		a = 1
	}
	return lastErrorFor(h, il_session_pause_confirm(C.il_handle(h), id, a, r, rem))
}

func driveInterrupt(h uint64, reason *string) (status, string) {
	c := cstr(reason)
	defer freeC(c)
	return lastErrorFor(h, il_session_interrupt(C.il_handle(h), c))
}

func driveSignal(h uint64, signal *string) (status, string) {
	c := cstr(signal)
	defer freeC(c)
	return lastErrorFor(h, il_session_signal(C.il_handle(h), c))
}

func drivePrompt(h uint64, text string) (uint64, status, string) {
	c := C.CString(text)
	defer freeC(c)
	var run C.uint64_t
	st, msg := lastErrorFor(h, il_session_prompt(C.il_handle(h), c, &run))
	return uint64(run), st, msg
}

func driveContinue(h uint64) (uint64, status, string) {
	var run C.uint64_t
	st, msg := lastErrorFor(h, il_session_continue(C.il_handle(h), &run))
	return uint64(run), st, msg
}

func driveTaskLoopCreate(eng uint64, opts *string) (loop, session uint64, st status, msg string) {
	c := cstr(opts)
	defer freeC(c)
	var l, s C.il_handle
	st, msg = lastErrorFor(eng, il_taskloop_create(C.il_handle(eng), c, &l, &s))
	return uint64(l), uint64(s), st, msg
}

func driveTaskLoopRun(h uint64) (uint64, status, string) {
	var run C.uint64_t
	st, msg := lastErrorFor(h, il_taskloop_run(C.il_handle(h), &run))
	return uint64(run), st, msg
}

func driveTaskLoopSetPauseMode(h uint64, on bool) (status, string) {
	v := C.int32_t(0)
	if on {
		v = 1
	}
	return lastErrorFor(h, il_taskloop_set_pause_mode(C.il_handle(h), v))
}

func driveTaskLoopIsPauseMode(h uint64) (bool, status, string) {
	var v C.int32_t
	st, msg := lastErrorFor(h, il_taskloop_is_pause_mode(C.il_handle(h), &v))
	return v != 0, st, msg
}

func driveTaskLoopContinue(h uint64) (status, string) {
	_, st, msg := driveTaskLoopContinueRun(h)
	return st, msg
}
func driveTaskLoopContinueRun(h uint64) (uint64, status, string) {
	var run C.uint64_t
	st, msg := lastErrorFor(h, il_taskloop_continue(C.il_handle(h), &run))
	return uint64(run), st, msg
}
func driveTaskLoopContinueAll(h uint64) (status, string) {
	return lastErrorFor(h, il_taskloop_continue_all(C.il_handle(h)))
}
func driveTaskLoopState(h uint64) (string, status, string) {
	return driveStringOut(h, il_taskloop_state)
}
func driveTaskLoopClose(h uint64) (status, string) {
	return lastErrorFor(h, il_taskloop_close(C.il_handle(h)))
}

func driveCheckCommand(cmd string) (string, status, string) {
	c := C.CString(cmd)
	defer freeC(c)
	var out *C.char
	st, msg := lastErrorFor(0, il_check_command(c, &out))
	return takeString(out), st, msg
}

// driveNilOut calls exports with a NULL out-parameter.
func driveNilOut(h uint64) status {
	return status(il_session_get_status(C.il_handle(h), nil))
}

// drivePanic runs a panicking function through the one wrapper, as an
// export whose code panics would.
func drivePanic(h uint64) (status, string) {
	return lastErrorFor(h, call("il_test_panic", C.il_handle(h), func(*engineEntry) error { panic("boom") }))
}

// openHandles is the number of open handles, through il_open_handles.
func openHandles() int {
	var n C.int64_t
	if st := il_open_handles(&n); st != C.IL_OK {
		panic("il_open_handles: " + statusName(st))
	}
	return int(n)
}

// confirmEntry is one answer for driveSessionsConfirm.
type confirmEntry struct {
	session          uint64
	pauseID          *string
	approved         bool
	reason, remember *string
}

// driveSessionsConfirm calls il_sessions_confirm with entries in C memory
// and returns each answer's status and message.
func driveSessionsConfirm(h uint64, entries []confirmEntry) (statuses []status, msgs []string, st status, msg string) {
	n := len(entries)
	if n == 0 {
		st, msg = lastErrorFor(h, il_sessions_confirm(C.il_handle(h), nil, 0, nil, nil))
		return nil, nil, st, msg
	}
	in := (*C.il_confirm)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(C.il_confirm{}))))
	defer C.free(unsafe.Pointer(in))
	outSt := (*C.il_status)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(C.il_status(0)))))
	defer C.free(unsafe.Pointer(outSt))
	outErr := (**C.char)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof((*C.char)(nil)))))
	defer C.free(unsafe.Pointer(outErr))
	cs := unsafe.Slice(in, n)
	for i, e := range entries {
		cs[i] = C.il_confirm{session: C.il_handle(e.session), pause_id: cstr(e.pauseID), reason: cstr(e.reason), remember: cstr(e.remember)}
		if e.approved {
			cs[i].approved = 1
		}
	}
	defer func() {
		for i := range cs {
			freeC(cs[i].pause_id)
			freeC(cs[i].reason)
			freeC(cs[i].remember)
		}
	}()
	st, msg = lastErrorFor(h, il_sessions_confirm(C.il_handle(h), in, C.size_t(n), outSt, outErr))
	for i, s := range unsafe.Slice(outSt, n) {
		statuses = append(statuses, status(s))
		msgs = append(msgs, takeString(unsafe.Slice(outErr, n)[i]))
	}
	return statuses, msgs, st, msg
}

// driveSessionsConfirmNull calls il_sessions_confirm with NULL arrays.
func driveSessionsConfirmNull(h uint64, n int) (status, string) {
	return lastErrorFor(h, il_sessions_confirm(C.il_handle(h), nil, C.size_t(n), nil, nil))
}
