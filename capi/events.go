package main

/*
#include <pthread.h>
#include <stdint.h>
#include "interlock.h"

static inline void il_capi_invoke_event_cb(il_event_cb cb, void *user, const char *json, size_t len) {
	cb(user, json, len);
}

static inline uint64_t il_capi_thread_id(void) { return (uint64_t)(uintptr_t)pthread_self(); }
*/
import "C"

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/interlock-dev/interlock/engine"
)

// dispatcher delivers one engine's events to its C callback from one
// goroutine, in engine order. It reads the engine's event log at its own
// pace, so a slow callback never blocks the engine (the log coalesces for
// it), and merges in the events this layer makes itself: task-loop events
// and the completion events of background runs (prompt_done,
// taskloop_done). A completion event waits until its session's terminal
// event has been delivered.
type dispatcher struct {
	sub      *engine.Subscription[engine.Event]
	reportTo func(msg string) // records a recovered panic as the engine's last error

	// cbMu is held across every callback call, so unregistering (which
	// takes it) waits until no call is in progress.
	cbMu     sync.Mutex
	cb       C.il_event_cb
	cbUser   unsafe.Pointer
	cbThread atomic.Uint64 // OS thread running the callback, 0 when none
	hasCb    atomic.Bool   // a callback is registered: skip encoding when not

	mu            sync.Mutex
	queue         []queuedEvent
	wake          context.CancelFunc // ends the dispatcher's wait; nil when it does not wait
	producersDone chan struct{}      // closed once nothing will be queued any more
	exited        chan struct{}

	delivered map[string]uint64 // session id -> last version delivered; dispatcher goroutine only
}

// queuedEvent is an event made by this layer. It is ready once the
// dispatcher has delivered version after of session (or has caught up with
// the engine's log since it was queued).
type queuedEvent struct {
	json    []byte
	session string
	after   uint64
}

func newDispatcher(e *engine.Engine, reportTo func(string)) *dispatcher {
	d := &dispatcher{
		sub:           e.Subscribe(),
		reportTo:      reportTo,
		producersDone: make(chan struct{}),
		exited:        make(chan struct{}),
		delivered:     make(map[string]uint64),
	}
	go d.run()
	return d
}

// setCallback registers cb (nil unregisters) and waits until no call of
// the previous one is in progress.
func (d *dispatcher) setCallback(cb C.il_event_cb, user unsafe.Pointer) error {
	if d.inCallback() {
		return errorf(C.IL_ERR_INVALID_ARGUMENT, "called from inside the event callback, which would wait for itself: change the callback from another thread")
	}
	d.cbMu.Lock()
	defer d.cbMu.Unlock()
	d.cb, d.cbUser = cb, user
	d.hasCb.Store(cb != nil)
	return nil
}

// inCallback reports whether the calling thread is running the callback:
// then waiting for the callback to return would wait for ever.
func (d *dispatcher) inCallback() bool {
	t := d.cbThread.Load()
	return t != 0 && t == uint64(C.il_capi_thread_id())
}

// enqueue adds an event made by this layer (see queuedEvent).
func (d *dispatcher) enqueue(v any, session string, after uint64) {
	b, err := json.Marshal(v)
	if err != nil {
		d.reportTo(fmt.Sprintf("event callback: encoding %T as JSON: %v (event dropped)", v, err))
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.queue = append(d.queue, queuedEvent{json: b, session: session, after: after})
	if d.wake != nil {
		d.wake()
		d.wake = nil
	}
}

// close waits until every event was delivered and the dispatcher stopped.
// The engine must be closed (its log ends) and nothing may enqueue any more.
func (d *dispatcher) close() {
	close(d.producersDone)
	<-d.exited
	d.sub.Close()
}

func (d *dispatcher) run() {
	defer close(d.exited)
	poll, cancel := context.WithCancel(context.Background())
	cancel() // an ended context makes Next return at once when nothing is there
	for !d.step(poll) {
	}
}

// step delivers what is available, then waits for more. It reports true
// when the engine's log has ended and every queued event was delivered.
func (d *dispatcher) step(poll context.Context) (finished bool) {
	defer func() {
		if p := recover(); p != nil {
			d.reportTo(fmt.Sprintf("event dispatcher: internal error (panic: %v); an event may have been lost. This is a bug in libinterlock %s: please report it", p, version))
		}
	}()
	before := d.queued()
	ev, err := d.sub.Next(poll)
	if err == nil {
		d.deliverEngineEvent(ev)
		d.flush(0)
		return false
	}
	// Caught up with the log: every event queued before the poll is ready.
	d.flush(before)
	logEnded := errors.Is(err, engine.ErrSubscriptionClosed)

	d.mu.Lock()
	if len(d.queue) > 0 {
		d.mu.Unlock()
		return false
	}
	// Nothing to do: wait for an engine event or an enqueue (which cancels wait).
	wait, stop := context.WithCancel(context.Background())
	d.wake = stop
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		d.wake = nil
		d.mu.Unlock()
		stop()
	}()
	if logEnded {
		select {
		case <-wait.Done():
			return false
		case <-d.producersDone:
			d.flush(d.queued()) // a last enqueue may have raced with the wait
			return true
		}
	}
	if ev, err := d.sub.Next(wait); err == nil {
		d.deliverEngineEvent(ev)
		d.flush(0)
	}
	return false
}

func (d *dispatcher) queued() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.queue)
}

// flush delivers queued events in order while they are ready; the first
// caughtUp of them are ready in any case.
func (d *dispatcher) flush(caughtUp int) {
	for ; ; caughtUp-- {
		d.mu.Lock()
		if len(d.queue) == 0 {
			d.mu.Unlock()
			return
		}
		q := d.queue[0]
		if caughtUp <= 0 && q.session != "" && d.delivered[q.session] < q.after {
			d.mu.Unlock()
			return
		}
		d.queue[0] = queuedEvent{}
		d.queue = d.queue[1:]
		d.mu.Unlock()
		d.deliver(q.json)
	}
}

func (d *dispatcher) deliverEngineEvent(ev engine.Event) {
	d.delivered[ev.Session] = ev.Version
	if !d.hasCb.Load() {
		return
	}
	b, err := json.Marshal(ev)
	if err != nil {
		d.reportTo(fmt.Sprintf("event callback: encoding a %s event of session %s as JSON: %v (event dropped)", ev.Type, ev.Session, err))
		return
	}
	d.deliver(b)
}

// deliver calls the callback, if one is registered, holding cbMu.
func (d *dispatcher) deliver(b []byte) {
	b = append(b, 0) // NUL-terminated for C, not counted in len
	d.cbMu.Lock()
	defer d.cbMu.Unlock()
	if d.cb == nil {
		return
	}
	// Pin the goroutine so the thread recorded is the one that calls.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	d.cbThread.Store(uint64(C.il_capi_thread_id()))
	defer d.cbThread.Store(0)
	C.il_capi_invoke_event_cb(d.cb, d.cbUser, (*C.char)(unsafe.Pointer(&b[0])), C.size_t(len(b)-1))
}

// completion is the JSON of a prompt_done or taskloop_done event.
type completion struct {
	Type    string                `json:"type"`
	Session string                `json:"session,omitempty"`
	Loop    string                `json:"loop,omitempty"`
	Run     uint64                `json:"run"`
	Result  *engine.RunResult     `json:"result,omitempty"`
	State   *engine.TaskLoopState `json:"state,omitempty"`
	Error   string                `json:"error,omitempty"`
	Code    string                `json:"code,omitempty"`
}

// setError fills Error and Code from how the run ended.
func (c *completion) setError(err error) {
	if err != nil {
		c.Error, c.Code = err.Error(), statusName(statusOf(err))
	}
}

//export il_engine_set_event_callback
func il_engine_set_event_callback(h C.il_handle, cb C.il_event_cb, user unsafe.Pointer) C.il_status {
	return call("il_engine_set_event_callback", h, func(ee *engineEntry) error {
		return ee.events.setCallback(cb, user)
	})
}
