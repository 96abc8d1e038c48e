package main

/*
#include <pthread.h>
#include <stdint.h>
#include "interlock.h"

static inline int il_capi_invoke_event_cb(il_event_cb cb, void *user, const char *json, size_t len) {
	return cb(user, json, len);
}

static inline uint64_t il_capi_thread_id(void) { return (uint64_t)(uintptr_t)pthread_self(); }
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// The engine's Delivery (engine/delivery.go) batches the events, encodes
// them and holds the next batch back while the consumer holds two; this
// file hands its batches to the C callback and forwards
// il_engine_events_done.

// eventSink returns the Delivery's sink that calls cb. It records the OS
// thread running cb, so that a call from inside cb that would wait for cb
// to return is refused instead (inCallback).
func (ee *engineEntry) eventSink(cb C.il_event_cb, user unsafe.Pointer) func([]byte) bool {
	return func(b []byte) bool {
		// Pin the goroutine so the thread recorded is the one that calls.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		ee.cbThread.Store(uint64(C.il_capi_thread_id()))
		defer ee.cbThread.Store(0)
		// The Delivery's batch is followed by a 0 byte: a C string.
		return C.il_capi_invoke_event_cb(cb, user, (*C.char)(unsafe.Pointer(unsafe.SliceData(b))), C.size_t(len(b))) == C.IL_EVENTS_HELD
	}
}

// inCallback reports whether the calling thread is running the callback:
// then waiting for the callback to return would wait for ever.
func (ee *engineEntry) inCallback() bool {
	t := ee.cbThread.Load()
	return t != 0 && t == uint64(C.il_capi_thread_id())
}

//export il_engine_set_event_callback
func il_engine_set_event_callback(h C.il_handle, cb C.il_event_cb, user unsafe.Pointer) C.il_status {
	return call("il_engine_set_event_callback", h, func(ee *engineEntry) error {
		if ee.inCallback() {
			return errorf(C.IL_ERR_INVALID_ARGUMENT, "called from inside the event callback, which would wait for itself: change the callback from another thread")
		}
		if cb == nil {
			ee.events.SetSink(nil)
		} else {
			ee.events.SetSink(ee.eventSink(cb, user))
		}
		return nil
	})
}

//export il_engine_events_done
func il_engine_events_done(h C.il_handle) C.il_status {
	return call("il_engine_events_done", h, func(ee *engineEntry) error {
		ee.events.Done()
		return nil
	})
}
