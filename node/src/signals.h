// The signal guard: keeps every installed signal handler safe to run on a Go
// thread.
//
// Go runs signal handlers on the goroutine's alternate signal stack and needs
// every handler installed with SA_ONSTACK. libuv installs its handlers after
// the Go library has loaded (SIGCHLD for child_process, SIGINT & co. for
// process.on, SIGWINCH on the first TTY write) and without SA_ONSTACK; when
// such a signal lands on a Go thread the process dies ("unknown caller pc").
//
// The guard therefore
//   1. ORs SA_ONSTACK into every installed handler (sigaction read-modify-write
//      over all signals) at load and whenever JS may have installed a new one
//      (node/index.js calls FixSignalHandlers after process.on('SIG...'), after
//      child processes are spawned and when an engine or run starts), and
//   2. keeps one permanent, unref'd SIGCHLD watcher on the event loop of
//      every environment (main thread, worker) that loaded the addon, so
//      libuv installs its SIGCHLD handler exactly once (now, fixed) and never
//      again when child_process watchers, or environments, come and go.
//
// INTERLOCK_UNSAFE_NO_SIGNAL_GUARD=1 in the environment turns both off, for
// diagnosis only (node/test/signals.test.js uses it to show the crash).
#ifndef INTERLOCK_NODE_SIGNALS_H_
#define INTERLOCK_NODE_SIGNALS_H_

#include <napi.h>

namespace interlock {

// InstallSignalGuard starts env's permanent SIGCHLD watcher on its loop
// (closed at env's teardown) and fixes every installed handler. Call it after the Go
// runtime has initialised (after any call into the library).
void InstallSignalGuard(Napi::Env env);

// FixSignalHandlers ORs SA_ONSTACK into every installed handler that lacks
// it and returns how many it changed.
int FixSignalHandlers();

// fixSignals() -> number: JS entry to FixSignalHandlers.
Napi::Value JsFixSignals(const Napi::CallbackInfo& info);

// signalReport() -> [{signal, onstack}]: one entry per installed handler
// (not SIG_DFL / SIG_IGN), for tests.
Napi::Value JsSignalReport(const Napi::CallbackInfo& info);

}  // namespace interlock

#endif  // INTERLOCK_NODE_SIGNALS_H_
