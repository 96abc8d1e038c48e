#include "host.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "addon.h"

namespace interlock {

// One engine's host-message state. Created and destroyed on the JS thread of
// its environment; OnHost runs on library threads.
struct HostSink {
  il_handle engine;
  HostSinks* owner;                         // its environment's (outlives it)
  std::mutex mu;                            // held across every queue call
  napi_threadsafe_function tsfn = nullptr;  // null once released or finalized
  bool registered = false;                  // the library callback points here (JS thread only)
};

namespace {

// One message, copied off the library's buffer (malloc'ed: no throw into Go).
struct HostCopy {
  size_t len;
  char json[1];  // len bytes
};

HostSinks& HostSinksOf(Napi::Env env) { return env.GetInstanceData<AddonData>()->host; }

// env's sink of engine; null for an engine of another environment.
HostSink* FindHostSink(Napi::Env env, il_handle engine) {
  HostSinks& all = HostSinksOf(env);
  std::lock_guard<std::mutex> lock(all.mu);
  auto it = all.by_engine.find(engine);
  return it == all.by_engine.end() ? nullptr : it->second;
}

// Library thread: copy and queue one message. Never blocks.
void OnHost(void* user, const char* json, size_t len) {
  auto* sink = static_cast<HostSink*>(user);
  std::lock_guard<std::mutex> lock(sink->mu);
  if (sink->tsfn == nullptr) return;
  auto* copy = static_cast<HostCopy*>(std::malloc(sizeof(HostCopy) + len));
  if (copy == nullptr) return;  // out of memory: the engine's grace ends the call
  copy->len = len;
  std::memcpy(copy->json, json, len);
  napi_status st = napi_call_threadsafe_function(sink->tsfn, copy, napi_tsfn_nonblocking);
  if (st != napi_ok) {
    std::free(copy);
    if (st == napi_closing) sink->tsfn = nullptr;
  }
}

// JS thread (or, with env == nullptr, teardown): hand one message to JS.
void CallHostJs(napi_env env, napi_value fn, void* /*ctx*/, void* data) {
  auto* copy = static_cast<HostCopy*>(data);
  if (copy == nullptr) return;
  if (env == nullptr || fn == nullptr) {
    std::free(copy);
    return;
  }
  napi_value arg = nullptr;
  napi_status st = napi_create_string_utf8(env, copy->json, copy->len, &arg);
  std::free(copy);
  if (st != napi_ok) return;
  napi_value undefined;
  napi_get_undefined(env, &undefined);
  if (napi_call_function(env, undefined, fn, 1, &arg, nullptr) == napi_pending_exception) {
    napi_value err;
    if (napi_get_and_clear_last_exception(env, &err) == napi_ok) napi_fatal_exception(env, err);
  }
}

// JS thread: the function is gone. Make sure the library never calls this
// sink again (it falls back to the event stream), then free it.
void FinalizeHost(napi_env /*env*/, void* data, void* /*hint*/) {
  auto* sink = static_cast<HostSink*>(data);
  if (sink->registered) {
    il_engine_set_host_callback(sink->engine, nullptr, nullptr);  // waits for a call in progress
    sink->registered = false;
  }
  {
    std::lock_guard<std::mutex> lock(sink->mu);
    sink->tsfn = nullptr;
  }
  {
    std::lock_guard<std::mutex> lock(sink->owner->mu);
    auto it = sink->owner->by_engine.find(sink->engine);
    if (it != sink->owner->by_engine.end() && it->second == sink) sink->owner->by_engine.erase(it);
  }
  delete sink;
}

}  // namespace

void AttachHost(Napi::Env env, il_handle engine, Napi::Function fn) {
  HostSinks& all = HostSinksOf(env);
  auto* sink = new HostSink{engine, &all};
  napi_value name = Napi::String::New(env, "interlock.host");
  napi_status st = napi_create_threadsafe_function(env, fn, nullptr, name, /*max_queue_size=*/0,
                                                   /*initial_thread_count=*/1, sink, Quiet<FinalizeHost>::Call, nullptr,
                                                   Quiet<CallHostJs>::Call, &sink->tsfn);
  if (st != napi_ok) {
    delete sink;
    NAPI_THROW_VOID(Napi::Error::New(env, "interlock: cannot create the host-message thread-safe function"));
  }
  napi_unref_threadsafe_function(env, sink->tsfn);
  {
    std::lock_guard<std::mutex> lock(all.mu);
    all.by_engine[engine] = sink;
  }
  il_status rc = il_engine_set_host_callback(engine, OnHost, sink);
  if (rc != IL_OK) {
    DetachHost(env, engine);
    ThrowStatus(env, rc, engine);
  }
  sink->registered = true;
}

void DetachHost(Napi::Env env, il_handle engine) {
  HostSink* sink = FindHostSink(env, engine);
  if (sink == nullptr) return;
  if (sink->registered) {
    il_engine_set_host_callback(engine, nullptr, nullptr);  // fails harmlessly after close
    sink->registered = false;
  }
  {
    HostSinks& all = HostSinksOf(env);
    std::lock_guard<std::mutex> lock(all.mu);
    all.by_engine.erase(engine);
  }
  std::lock_guard<std::mutex> lock(sink->mu);
  if (sink->tsfn == nullptr) return;  // being torn down; FinalizeHost frees it
  napi_release_threadsafe_function(sink->tsfn, napi_tsfn_release);
  sink->tsfn = nullptr;
}

}  // namespace interlock
