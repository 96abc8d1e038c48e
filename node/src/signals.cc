#include "signals.h"

#include <signal.h>
#include <uv.h>

#include <cstdlib>
#include <mutex>

#include "addon.h"

namespace interlock {
namespace {

// INTERLOCK_UNSAFE_NO_SIGNAL_GUARD=1 turns the guard off. Diagnosis only:
// it lets the regression test show that it catches the crash.
const bool guard_disabled = [] {
  const char* v = std::getenv("INTERLOCK_UNSAFE_NO_SIGNAL_GUARD");
  return v != nullptr && v[0] == '1';
}();

// One sigaction read-modify-write at a time (several Node environments, e.g.
// worker threads, may load the addon).
std::mutex fix_mu;

bool Installed(const struct sigaction& sa) {
  // sa_handler and sa_sigaction share storage; comparing sa_handler is right
  // for both SA_SIGINFO and plain handlers.
  return sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN;
}

void OnSigchld(uv_signal_t*, int) {}  // libuv's own child watcher reaps

// At environment teardown its loop goes away: close its watcher (a worker
// thread's loop must be empty to close); the memory is freed once closed.
// Other environments' watchers stay, and with them libuv's handler.
void CloseSigchldWatcher(void* watcher) {
  uv_close(static_cast<uv_handle_t*>(watcher), [](uv_handle_t* h) { delete reinterpret_cast<uv_signal_t*>(h); });
}

}  // namespace

int FixSignalHandlers() {
  if (guard_disabled) return 0;
  std::lock_guard<std::mutex> lock(fix_mu);
  int changed = 0;
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig == SIGKILL || sig == SIGSTOP) continue;
    struct sigaction sa;
    // glibc refuses its reserved realtime signals: nothing to fix there.
    if (sigaction(sig, nullptr, &sa) != 0) continue;
    if (!Installed(sa) || (sa.sa_flags & SA_ONSTACK)) continue;
    sa.sa_flags |= SA_ONSTACK;
    if (sigaction(sig, &sa, nullptr) == 0) ++changed;
  }
  return changed;
}

void InstallSignalGuard(Napi::Env env) {
  if (guard_disabled) return;
  uv_loop_t* loop = nullptr;
  if (napi_get_uv_event_loop(env, &loop) == napi_ok && loop != nullptr) {
    // One watcher per environment, on its own loop and in its own memory:
    // libuv's SIGCHLD handler stays installed while any environment that
    // loaded the addon lives, whichever came first and whichever goes.
    auto* watcher = new uv_signal_t;
    if (uv_signal_init(loop, watcher) != 0) {
      delete watcher;
    } else {
      std::unique_lock<std::mutex> lock(fix_mu);
      if (uv_signal_start(watcher, OnSigchld, SIGCHLD) != 0) {
        lock.unlock();
        CloseSigchldWatcher(watcher);
      } else {
        lock.unlock();
        uv_unref(reinterpret_cast<uv_handle_t*>(watcher));
        napi_add_env_cleanup_hook(env, Quiet<CloseSigchldWatcher>::Call, watcher);
      }
    }
  }
  FixSignalHandlers();
}

Napi::Value JsFixSignals(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), FixSignalHandlers());
}

Napi::Value JsSignalReport(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Array out = Napi::Array::New(env);
  std::lock_guard<std::mutex> lock(fix_mu);
  uint32_t n = 0;
  for (int sig = 1; sig < NSIG; ++sig) {
    struct sigaction sa;
    if (sig == SIGKILL || sig == SIGSTOP || sigaction(sig, nullptr, &sa) != 0 || !Installed(sa)) continue;
    Napi::Object entry = Napi::Object::New(env);
    entry.Set("signal", sig);
    entry.Set("onstack", (sa.sa_flags & SA_ONSTACK) != 0);
    out.Set(n++, entry);
  }
  return out;
}

}  // namespace interlock
