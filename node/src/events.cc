#include "events.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "addon.h"

namespace interlock {

// One engine's forwarding state. Created and destroyed on the JS thread of
// its environment; OnEvent runs on library threads.
struct EventSink {
  il_handle engine;
  EventSinks* owner;                      // its environment's (outlives it)
  std::mutex mu;                          // held across every queue call
  napi_threadsafe_function tsfn = nullptr;  // null once released or finalized
  bool registered = false;                // the library callback points here (JS thread only)
};

namespace {

EventSinks& SinksOf(Napi::Env env) { return env.GetInstanceData<AddonData>()->events; }

// One batch of events (a JSON array), copied off the library's buffer.
// malloc'ed, so the copy in OnEvent cannot throw into Go's stack.
struct EventCopy {
  il_handle engine;  // told when the batch was delivered
  EventSinks* owner;  // counts it
  size_t len;
  char json[1];  // len bytes
};

EventCopy* CopyEvent(EventSink* sink, const char* json, size_t len) {
  auto* copy = static_cast<EventCopy*>(std::malloc(sizeof(EventCopy) + len));
  if (copy == nullptr) return nullptr;
  copy->engine = sink->engine;
  copy->owner = sink->owner;
  copy->len = len;
  std::memcpy(copy->json, json, len);
  sink->owner->queued.fetch_add(1, std::memory_order_relaxed);
  return copy;
}

void FreeEvent(EventCopy* copy) {
  if (copy == nullptr) return;
  copy->owner->queued.fetch_sub(1, std::memory_order_relaxed);
  std::free(copy);
}

// env's sink of engine (handles are never reused), for close and ref; null
// for an engine of another environment.
EventSink* FindSink(Napi::Env env, il_handle engine) {
  EventSinks& all = SinksOf(env);
  std::lock_guard<std::mutex> lock(all.mu);
  auto it = all.by_engine.find(engine);
  return it == all.by_engine.end() ? nullptr : it->second;
}

// Library thread: copy and queue one batch and hold it until the JS thread
// has delivered it (CallJs calls il_engine_events_done): the library holds
// back the next while two are held, so at most two wait in the function's
// queue and the library merges deltas meanwhile. Never blocks.
int OnEvent(void* user, const char* json, size_t len) {
  auto* sink = static_cast<EventSink*>(user);
  std::lock_guard<std::mutex> lock(sink->mu);
  if (sink->tsfn == nullptr) return 0;
  EventCopy* copy = CopyEvent(sink, json, len);
  if (copy == nullptr) {  // out of memory: drop this batch rather than crash
    sink->owner->dropped.fetch_add(1, std::memory_order_relaxed);
    return 0;
  }
  napi_status st = napi_call_threadsafe_function(sink->tsfn, copy, napi_tsfn_nonblocking);
  if (st != napi_ok) {  // napi_closing: the environment is going away
    FreeEvent(copy);
    sink->owner->dropped.fetch_add(1, std::memory_order_relaxed);
    if (st == napi_closing) sink->tsfn = nullptr;
    return 0;
  }
  return IL_EVENTS_HELD;
}

// JS thread (or, with env == nullptr, the function's teardown): deliver one
// batch, free it and let the library send the next (after teardown the
// library no longer waits: the finalizer unregistered the callback). ctx
// must not be used: the sink may already be gone.
void CallJs(napi_env env, napi_value fn, void* /*ctx*/, void* data) {
  auto* copy = static_cast<EventCopy*>(data);
  if (env == nullptr || fn == nullptr) {
    FreeEvent(copy);
    return;
  }
  napi_value arg = nullptr;
  size_t argc = 0;
  il_handle engine = 0;  // set for a batch: told once JS has taken it
  if (copy != nullptr) {
    napi_status st = napi_create_string_utf8(env, copy->json, copy->len, &arg);
    engine = copy->engine;
    FreeEvent(copy);
    if (st != napi_ok) {
      il_engine_events_done(engine);
      return;
    }
    argc = 1;
  }
  napi_value undefined;
  napi_get_undefined(env, &undefined);
  napi_status called = napi_call_function(env, undefined, fn, argc, &arg, nullptr);
  // After the listeners, not before: telling the library is a call into Go,
  // which may wait for a Go scheduler slot, and must not delay this batch.
  // After il_engine_close it fails harmlessly (IL_ERR_INVALID_HANDLE).
  if (engine != 0) il_engine_events_done(engine);
  if (called == napi_pending_exception) {
    // node/lib catches listener errors itself; anything left is an
    // uncaught exception like any other.
    napi_value err;
    if (napi_get_and_clear_last_exception(env, &err) == napi_ok) napi_fatal_exception(env, err);
  }
}

// JS thread: the function is gone (released and drained, or torn down with
// the environment). Make sure the library never calls this sink again, then
// free it.
void Finalize(napi_env /*env*/, void* data, void* /*hint*/) {
  auto* sink = static_cast<EventSink*>(data);
  if (sink->registered) {
    // Waits for a call in progress; that call only takes sink->mu briefly.
    il_engine_set_event_callback(sink->engine, nullptr, nullptr);
    sink->registered = false;
  }
  {
    std::lock_guard<std::mutex> lock(sink->mu);
    sink->tsfn = nullptr;
  }
  EventSinks* owner = sink->owner;
  {
    std::lock_guard<std::mutex> lock(owner->mu);
    auto it = owner->by_engine.find(sink->engine);
    if (it != owner->by_engine.end() && it->second == sink) owner->by_engine.erase(it);
  }
  delete sink;
  owner->live.fetch_sub(1, std::memory_order_relaxed);
}

}  // namespace

void AttachEvents(Napi::Env env, il_handle engine, Napi::Function fn) {
  EventSinks& all = SinksOf(env);
  auto* sink = new EventSink{engine, &all};
  all.live.fetch_add(1, std::memory_order_relaxed);
  napi_value name = Napi::String::New(env, "interlock.events");
  napi_status st = napi_create_threadsafe_function(env, fn, nullptr, name, /*max_queue_size=*/0,
                                                   /*initial_thread_count=*/1, sink, Quiet<Finalize>::Call, nullptr,
                                                   Quiet<CallJs>::Call, &sink->tsfn);
  if (st != napi_ok) {
    delete sink;
    all.live.fetch_sub(1, std::memory_order_relaxed);
    NAPI_THROW_VOID(Napi::Error::New(env, "interlock: cannot create the event thread-safe function"));
  }
  napi_unref_threadsafe_function(env, sink->tsfn);
  {
    std::lock_guard<std::mutex> lock(all.mu);
    all.by_engine[engine] = sink;
  }
  // OnEvent only queues, so the library may also call it from inside a
  // signal call on the JS thread (see il_event_cb).
  il_status rc = il_engine_set_event_callback(engine, OnEvent, sink);
  if (rc != IL_OK) {
    DetachEvents(env, engine);  // finalizes and frees the sink later
    ThrowStatus(env, rc, engine);
  }
  sink->registered = true;
}

void DetachEvents(Napi::Env env, il_handle engine) {
  EventSink* sink = FindSink(env, engine);
  if (sink == nullptr) return;
  if (sink->registered) {
    // After il_engine_close this fails (the handle is closed) and need not
    // wait: close already guaranteed no further calls.
    il_engine_set_event_callback(engine, nullptr, nullptr);
    sink->registered = false;
  }
  {
    EventSinks& all = SinksOf(env);
    std::lock_guard<std::mutex> lock(all.mu);
    all.by_engine.erase(engine);
  }
  std::lock_guard<std::mutex> lock(sink->mu);
  if (sink->tsfn == nullptr) return;  // already being torn down; Finalize frees it
  napi_call_threadsafe_function(sink->tsfn, nullptr, napi_tsfn_nonblocking);  // end marker
  napi_release_threadsafe_function(sink->tsfn, napi_tsfn_release);
  sink->tsfn = nullptr;
}

void RefEvents(Napi::Env env, il_handle engine, bool ref) {
  EventSink* sink = FindSink(env, engine);
  if (sink == nullptr) return;
  std::lock_guard<std::mutex> lock(sink->mu);
  if (sink->tsfn == nullptr) return;
  if (ref) {
    napi_ref_threadsafe_function(env, sink->tsfn);
  } else {
    napi_unref_threadsafe_function(env, sink->tsfn);
  }
}

EventCounters GetEventCounters(Napi::Env env) {
  EventSinks& all = SinksOf(env);
  return EventCounters{all.live.load(), all.queued.load(), all.dropped.load()};
}

}  // namespace interlock
