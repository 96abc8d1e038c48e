// Go -> JS messages about host work (a JS tool's call, its abort, the answer
// to a pause or step it asked for): one thread-safe function per engine,
// apart from the event stream, so a JS tool's call is not batched with
// events nor held behind a batch JS has not finished.
//
// The library calls OnHost on the thread that made the message; it copies
// it and queues it (non-blocking). Teardown follows events.h: the
// finalizer unregisters the library callback (which waits for a call in
// progress) and OnHost holds the sink's lock across the queue call, so
// nothing is queued on a finalized function; after engine close the
// library never calls again. Without this function (unregistered or torn
// down) the library sends the same messages on the event stream.
#ifndef INTERLOCK_NODE_HOST_H_
#define INTERLOCK_NODE_HOST_H_

#include <napi.h>

#include <mutex>
#include <unordered_map>

#include "interlock.h"

namespace interlock {

struct HostSink;

// HostSinks is one environment's host-message forwarding (AddonData::host):
// its engines' sinks. Nothing of it is shared between environments.
struct HostSinks {
  std::mutex mu;  // guards by_engine
  std::unordered_map<il_handle, HostSink*> by_engine;
};

// AttachHost creates engine's host-message function around fn (called with
// one JSON object string per message) and registers the library callback.
// The function is unref'd: it never keeps the event loop alive by itself
// (a run in progress does, through the event function).
void AttachHost(Napi::Env env, il_handle engine, Napi::Function fn);

// DetachHost unregisters the callback (if the engine is still open) and
// releases the function. A no-op when detached, or when the engine is not
// env's.
void DetachHost(Napi::Env env, il_handle engine);

}  // namespace interlock

#endif  // INTERLOCK_NODE_HOST_H_
