// Shared pieces of the addon: the N-API boundary, per-environment data,
// argument checking and turning il_status codes into JS errors. Every
// exported function follows the same shape: check the arguments (TypeError
// naming the usage), convert them to plain C data, call the library, convert
// the result back.
//
// The boundary: C++ exceptions carry errors inside the addon (built with
// them on) and stop at every place Node calls in (exported functions, module
// init, async work completion, finalizers, cleanup hooks). There they become
// the pending JS exception, or are dropped when the environment can no
// longer run JS: a worker being terminated runs async completions and
// finalizers with JS off, napi_throw fails there, and node-addon-api's own
// wrapper (Napi::Function::New, Napi::AsyncWorker, NODE_API_MODULE) then
// throws again from its catch block, which ends in std::terminate and
// aborts every thread of the process. So none of those is used here.
#ifndef INTERLOCK_NODE_ADDON_H_
#define INTERLOCK_NODE_ADDON_H_

#include <napi.h>

#include <exception>
#include <optional>
#include <string>

#include "events.h"
#include "host.h"
#include "interlock.h"

namespace interlock {

// ThrowToJs makes err the pending JS exception. It never throws: when an
// exception is already pending that one stays, and when the environment can
// no longer run JS (being torn down) err is dropped, as nobody could catch it.
void ThrowToJs(napi_env env, const Napi::Error& err) noexcept;

// ThrowMessageToJs is ThrowToJs for a plain message (a std::exception).
void ThrowMessageToJs(napi_env env, const char* message) noexcept;

// Guard runs body, the whole of a callback Node calls with a JS result, and
// turns every C++ exception into a JS exception (ThrowToJs): nothing
// escapes to Node.
template <typename Body>
napi_value Guard(napi_env env, Body&& body) noexcept {
  try {
    return body();
  } catch (const Napi::Error& err) {
    ThrowToJs(env, err);
  } catch (const std::exception& err) {
    ThrowMessageToJs(env, err.what());
  } catch (...) {
    ThrowMessageToJs(env, "interlock: an unknown C++ exception in the addon");
  }
  return nullptr;
}

// GuardQuiet runs body, the whole of a callback with no JS result (a
// finalizer, a cleanup hook), and drops any C++ exception: there is no JS
// caller to tell, and it must not reach Node.
template <typename Body>
void GuardQuiet(Body&& body) noexcept {
  try {
    body();
  } catch (...) {
  }
}

// Quiet<Fn>::Call is Fn behind GuardQuiet, for the plain C callbacks Node
// calls (finalizers, cleanup hooks, thread-safe function calls):
// napi_add_env_cleanup_hook(env, Quiet<CloseOnTeardown>::Call, arg).
template <auto Fn>
struct Quiet;
template <typename... A, void (*Fn)(A...)>
struct Quiet<Fn> {
  static void Call(A... args) noexcept {
    GuardQuiet([&] { Fn(args...); });
  }
};

// JsFunction is the C++ shape of every function the addon exports.
using JsFunction = Napi::Value (*)(const Napi::CallbackInfo&);

// Export sets exports[name] to a JS function running fn behind Guard.
void Export(Napi::Env env, Napi::Object exports, const char* name, JsFunction fn);

// Per-environment state (napi instance data).
struct AddonData {
  // The class errors are built with (InterlockError from node/index.js);
  // plain Error until init() sets it.
  Napi::FunctionReference error_class;
  // Its engines' event and host-message forwarding (events.cc, host.cc).
  EventSinks events;
  HostSinks host;
};

// LastError is the library's last error message for handle h.
std::string LastError(il_handle h);

// ThrowStatus throws the error of a failed call on handle h: an
// InterlockError with code il_status_name(status) ("ERR_NOT_PAUSED") and the
// library's last error message for h.
[[noreturn]] void ThrowStatus(Napi::Env env, il_status status, il_handle h);

// MakeError is the error ThrowStatus throws, for a status and message
// (empty: the code says it).
Napi::Object MakeError(Napi::Env env, il_status status, std::string message);

// Check calls ThrowStatus unless status is IL_OK.
inline void Check(Napi::Env env, il_status status, il_handle h) {
  if (status != IL_OK) ThrowStatus(env, status, h);
}

// The codes of argument TypeErrors, as Node's own: a wrong type, a wrong
// value of the right type (a NUL inside a string), a wrong number.
inline constexpr const char* kArgType = "ERR_INVALID_ARG_TYPE";
inline constexpr const char* kArgValue = "ERR_INVALID_ARG_VALUE";
inline constexpr const char* kArgCount = "ERR_INVALID_ARG_COUNT";

// ThrowTypeError throws a TypeError with message and code.
[[noreturn]] void ThrowTypeError(Napi::Env env, const std::string& message, const char* code);

// Args checks and converts the arguments of one JS call. usage is the
// public signature shown in every TypeError, e.g.
// "session.confirm(approved: boolean, reason?: string, pauseId?: string)".
// Raw functions take the handle first; user arguments follow it.
class Args {
 public:
  // Throws a TypeError unless min <= user argument count <= max. The handle,
  // when has_handle, is argument 0 and not counted.
  Args(const Napi::CallbackInfo& info, const char* usage, size_t min, size_t max, bool has_handle = true);

  il_handle Handle() const;
  std::string String(size_t i, const char* name) const;
  // Absent, undefined or null reads as nullopt.
  std::optional<std::string> OptString(size_t i, const char* name) const;
  bool Bool(size_t i, const char* name) const;
  Napi::Function Function(size_t i, const char* name) const;

  // Throws a TypeError "<usage>: <what>" whose code is one of the
  // kArg* codes (wrong type by default).
  [[noreturn]] void Fail(const std::string& what, const char* code = kArgType) const;

 private:
  Napi::Value User(size_t i) const;  // user argument i (0-based after the handle)

  const Napi::CallbackInfo& info_;
  const char* usage_;
  size_t offset_;
};

// CString is the char* form of an optional string: NULL when absent.
inline const char* CString(const std::optional<std::string>& s) { return s ? s->c_str() : nullptr; }

// TakeString copies a library-owned string into JS and frees it.
Napi::String TakeString(Napi::Env env, char* s);

}  // namespace interlock

#endif  // INTERLOCK_NODE_ADDON_H_
