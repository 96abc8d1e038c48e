// The library calls exposed to JS (node/native.d.ts lists them).
#ifndef INTERLOCK_NODE_CALLS_H_
#define INTERLOCK_NODE_CALLS_H_

#include <napi.h>

namespace interlock {

// RegisterCalls adds the engine, session, task-loop and command functions
// to exports.
void RegisterCalls(Napi::Env env, Napi::Object exports);

}  // namespace interlock

#endif  // INTERLOCK_NODE_CALLS_H_
