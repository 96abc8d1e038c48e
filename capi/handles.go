package main

/*
#include "interlock.h"
*/
import "C"

import (
	"fmt"
	"sync"
)

// handles is the one table of open handles. Handles count up from 1 and are
// never reused, so a stale handle can never reach a newer object.
var handles = handleTable{slots: make(map[C.il_handle]*slot)}

type handleTable struct {
	mu    sync.Mutex
	slots map[C.il_handle]*slot
	last  C.il_handle
	// noHandleErr is the last error of calls without a handle, or whose
	// handle did not resolve (handle 0).
	noHandleErr string
}

// slot is one open handle: an *engineEntry, *sessionEntry or *loopEntry,
// and the message of the last call on it that failed.
type slot struct {
	obj     any
	lastErr string
}

// add registers obj and returns its new handle.
func (t *handleTable) add(obj any) C.il_handle {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.last++
	t.slots[t.last] = &slot{obj: obj}
	return t.last
}

// remove forgets h. Removing a handle that is not open does nothing.
func (t *handleTable) remove(h C.il_handle) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.slots, h)
}

// removeIf forgets every handle whose object matches.
func (t *handleTable) removeIf(match func(obj any) bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for h, s := range t.slots {
		if match(s.obj) {
			delete(t.slots, h)
		}
	}
}

// each calls fn for every open handle's object (under the lock: fn must
// not call back into the table).
func (t *handleTable) each(fn func(h C.il_handle, obj any)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for h, s := range t.slots {
		fn(h, s.obj)
	}
}

// len is the number of open handles.
func (t *handleTable) len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.slots)
}

// resolve returns the object of handle h if it is open and of type K.
// It allocates nothing on success: il_session_get_status depends on it.
func resolve[K any](h C.il_handle) (K, error) {
	t := &handles
	t.mu.Lock()
	s, open := t.slots[h]
	var obj any
	if open {
		obj = s.obj
	}
	last := t.last
	t.mu.Unlock()
	if k, ok := obj.(K); ok {
		return k, nil
	}
	var zero K
	want := kindName(zero)
	switch {
	case h == 0:
		return zero, errorf(C.IL_ERR_INVALID_HANDLE, "handle 0 is never valid: pass the %s handle you got when you created it", want)
	case open:
		return zero, errorf(C.IL_ERR_INVALID_HANDLE, "handle %d is %s, not %s: pass the %s handle", h, article(kindName(obj)), article(want), want)
	case h <= last:
		return zero, errorf(C.IL_ERR_INVALID_HANDLE, "handle %d is closed (by its own close call, or when its engine closed): create a new %s", h, want)
	}
	return zero, errorf(C.IL_ERR_INVALID_HANDLE, "handle %d was never created: pass a handle returned by this library", h)
}

func kindName(obj any) string {
	switch obj.(type) {
	case *engineEntry:
		return "engine"
	case *sessionEntry:
		return "session"
	case *loopEntry:
		return "task loop"
	case *hostEntry:
		return "host work"
	}
	return fmt.Sprintf("%T", obj)
}

func article(noun string) string {
	if noun != "" && (noun[0] == 'e' || noun[0] == 'a') {
		return "an " + noun
	}
	return "a " + noun
}

// setLastError records msg as the last error of h, or of handle 0 when h
// is not open.
func (t *handleTable) setLastError(h C.il_handle, msg string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s, ok := t.slots[h]; ok && h != 0 {
		s.lastErr = msg
		return
	}
	t.noHandleErr = msg
}

// lastError returns the last error of h, or of handle 0 when h is not open.
func (t *handleTable) lastError(h C.il_handle) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s, ok := t.slots[h]; ok && h != 0 {
		return s.lastErr
	}
	return t.noHandleErr
}

//export il_open_handles
func il_open_handles(out *C.int64_t) C.il_status {
	return callNoHandle("il_open_handles", func() error {
		if out == nil {
			return errNilOut("out_count")
		}
		*out = C.int64_t(handles.len())
		return nil
	})
}
