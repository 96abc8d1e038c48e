// Go -> JS events: one thread-safe function per engine.
//
// The library calls OnEvent on its own threads with a batch of events (a
// JSON array of everything queued since the last call). OnEvent copies it
// to the heap, queues it (non-blocking) and returns IL_EVENTS_HELD; the JS
// thread turns it into a string for the engine's JS listener, frees the
// copy, calls the listener and then il_engine_events_done, which lets the
// library send the next batch. So at most one batch waits here however slow JS is; the
// library merges text and progress deltas meanwhile and keeps the rest. A
// null item, queued last when the engine closes, tells JS the stream has
// ended.
//
// Teardown, in every order:
//  - engine.close(): il_engine_close delivers the last events and returns
//    only when the library will never call again; then the end marker is
//    queued and the function released. Queued events are still delivered.
//  - environment teardown (process exit, worker end) finalizes the function
//    while Go may still emit: the finalizer first unregisters the Go callback
//    (which waits for a call in progress), and OnEvent holds the sink's lock
//    across napi_call_threadsafe_function, so nothing is queued on a
//    finalized function. Leftover items reach CallJs with a null env and are
//    only freed.
//  - unref'd (the default while no run is pending) while Go still emits:
//    same as teardown; nothing keeps the loop alive.
#ifndef INTERLOCK_NODE_EVENTS_H_
#define INTERLOCK_NODE_EVENTS_H_

#include <napi.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "interlock.h"

namespace interlock {

struct EventSink;

// EventSinks is one environment's event forwarding (AddonData::events): its
// engines' sinks and its counters. Nothing of it is shared between
// environments (the main thread, each worker).
struct EventSinks {
  std::mutex mu;  // guards by_engine
  std::unordered_map<il_handle, EventSink*> by_engine;
  std::atomic<int64_t> live{0};     // sinks not yet finalized
  std::atomic<int64_t> queued{0};   // event copies not yet freed
  std::atomic<int64_t> dropped{0};  // batches dropped (out of memory, or the environment was going away)
};

// AttachEvents creates engine's thread-safe function around fn (called with
// one JSON array string per batch of events, then once with no argument
// when the stream ends) and registers the library callback. The function starts unref'd.
void AttachEvents(Napi::Env env, il_handle engine, Napi::Function fn);

// DetachEvents ends engine's event stream: unregisters the callback if the
// engine is still open, queues the end marker and releases the function.
// Call it after il_engine_close. A no-op when already detached, or when the
// engine is not env's.
void DetachEvents(Napi::Env env, il_handle engine);

// RefEvents makes engine's event function keep the event loop alive (ref)
// or not. A no-op when detached, or when the engine is not env's.
void RefEvents(Napi::Env env, il_handle engine, bool ref);

// EventCounters reports env's live sinks, event copies not yet freed, and
// batches dropped.
struct EventCounters {
  int64_t sinks;
  int64_t queued;
  int64_t dropped;
};
EventCounters GetEventCounters(Napi::Env env);

}  // namespace interlock

#endif  // INTERLOCK_NODE_EVENTS_H_
