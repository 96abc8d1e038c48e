// Module entry: instance data, errors, argument checks, and the export table.
// The calls themselves are in calls.cc, events in events.cc, the signal
// guard in signals.cc.

#include "addon.h"

#include <dlfcn.h>

#include <cstring>
#include <mutex>
#include <vector>

#include "calls.h"
#include "events.h"
#include "signals.h"

namespace interlock {
namespace {

const char* TypeName(const Napi::Value& v) {
  switch (v.Type()) {
    case napi_undefined: return "undefined";
    case napi_null: return "null";
    case napi_boolean: return "boolean";
    case napi_number: return "number";
    case napi_string: return "string";
    case napi_symbol: return "symbol";
    case napi_object: return v.IsArray() ? "array" : "object";
    case napi_function: return "function";
    case napi_external: return "external";
    case napi_bigint: return "bigint";
  }
  return "unknown";
}

// init({errorClass}): errors are built with errorClass(message, code).
Napi::Value Init(const Napi::CallbackInfo& info) {
  Args args(info, "native.init(errorClass: new (message: string, code: string) => Error)", 1, 1, false);
  info.Env().GetInstanceData<AddonData>()->error_class = Napi::Persistent(args.Function(0, "errorClass"));
  return info.Env().Undefined();
}

Napi::Value Version(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), il_version());
}

// reasonLabels(): the engine's label table (il_reason_labels JSON).
Napi::Value ReasonLabels(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), il_reason_labels());
}

Napi::Value DebugCounters(const Napi::CallbackInfo& info) {
  Args args(info, "internals.counters()", 0, 0, false);
  EventCounters c = GetEventCounters(info.Env());
  int64_t handles = 0;
  Check(info.Env(), il_open_handles(&handles), 0);
  Napi::Object out = Napi::Object::New(info.Env());
  out.Set("sinks", Napi::Number::New(info.Env(), static_cast<double>(c.sinks)));
  out.Set("queuedEvents", Napi::Number::New(info.Env(), static_cast<double>(c.queued)));
  out.Set("openHandles", Napi::Number::New(info.Env(), static_cast<double>(handles)));
  out.Set("droppedBatches", Napi::Number::New(info.Env(), static_cast<double>(c.dropped)));
  return out;
}

// PinAddon keeps this addon loaded until the process ends. Node unloads an
// addon with the last environment that loaded it: a worker that loaded it
// first and ends while no other environment has loaded it yet. The Go
// library it links never unloads (its runtime threads live on), and the
// worker's loop still runs the close callbacks of the addon's handles after
// the unload: the addon's code and memory must outlive every environment.
void PinAddon() {
  static std::once_flag once;
  std::call_once(once, [] {
    Dl_info self;
    if (dladdr(reinterpret_cast<void*>(&PinAddon), &self) != 0 && self.dli_fname != nullptr) {
      dlopen(self.dli_fname, RTLD_NOW | RTLD_NODELETE);  // never closed
    }
  });
}

// The JS entry of every exported function: fn comes as the function's data.
napi_value CallExported(napi_env env, napi_callback_info cbinfo) {
  return Guard(env, [&]() -> napi_value {
    Napi::CallbackInfo info(env, cbinfo);
    return reinterpret_cast<JsFunction>(info.Data())(info);
  });
}

}  // namespace

std::string LastError(il_handle h) {
  std::vector<char> buf(256);
  size_t needed = 0;
  if (il_last_error(h, buf.data(), buf.size(), &needed) == IL_ERR_INVALID_ARGUMENT && needed > buf.size()) {
    buf.resize(needed);
    il_last_error(h, buf.data(), buf.size(), &needed);
  }
  return std::string(buf.data());
}

void ThrowToJs(napi_env env, const Napi::Error& err) noexcept {
  GuardQuiet([&] {
    if (err.IsEmpty()) return;
    // Fails, leaving things as they are, when an exception is already
    // pending or JS cannot run any more.
    napi_throw(env, err.Value());
  });
}

void ThrowMessageToJs(napi_env env, const char* message) noexcept {
  napi_throw_error(env, nullptr, message);
}

void Export(Napi::Env env, Napi::Object exports, const char* name, JsFunction fn) {
  napi_value f = nullptr;
  // A function pointer as the function's data (POSIX guarantees the cast).
  NAPI_THROW_IF_FAILED_VOID(env, napi_create_function(env, name, NAPI_AUTO_LENGTH, CallExported,
                                                      reinterpret_cast<void*>(fn), &f));
  exports.Set(name, Napi::Value(env, f));
}

Napi::Object MakeError(Napi::Env env, il_status status, std::string message) {
  const char* code = il_status_name(status);
  if (message.empty()) message = std::string(code) + " (the library gave no details)";
  AddonData* data = env.GetInstanceData<AddonData>();
  if (data != nullptr && !data->error_class.IsEmpty()) {
    return data->error_class.New({Napi::String::New(env, message), Napi::String::New(env, code)});
  }
  Napi::Error err = Napi::Error::New(env, message);
  err.Set("code", Napi::String::New(env, code));
  return err.Value();
}

void ThrowStatus(Napi::Env env, il_status status, il_handle h) {
  throw Napi::Error(env, MakeError(env, status, LastError(h)));
}

Args::Args(const Napi::CallbackInfo& info, const char* usage, size_t min, size_t max, bool has_handle)
    : info_(info), usage_(usage), offset_(has_handle ? 1 : 0) {
  size_t n = info.Length() < offset_ ? 0 : info.Length() - offset_;
  if (info.Length() < offset_ || n < min || n > max) {
    std::string want = min == max ? std::to_string(min) : std::to_string(min) + " to " + std::to_string(max);
    Fail("expected " + want + " argument" + (min == 1 && max == 1 ? "" : "s") + ", got " + std::to_string(n), kArgCount);
  }
}

void ThrowTypeError(Napi::Env env, const std::string& message, const char* code) {
  Napi::TypeError err = Napi::TypeError::New(env, message);
  err.Set("code", Napi::String::New(env, code));
  // The JS API's brand of argument errors (errors.js): instanceof InterlockError.
  err.Value().DefineProperty(Napi::PropertyDescriptor::Value(Napi::Symbol::For(env, "interlock.argError"), Napi::Boolean::New(env, true), napi_default));
  throw err;
}

void Args::Fail(const std::string& what, const char* code) const {
  ThrowTypeError(info_.Env(), std::string(usage_) + ": " + what, code);
}

Napi::Value Args::User(size_t i) const { return info_[offset_ + i]; }

il_handle Args::Handle() const {
  Napi::Value v = info_[0];
  if (!v.IsNumber()) Fail(std::string("internal handle must be a number, got ") + TypeName(v));
  int64_t h = v.As<Napi::Number>().Int64Value();
  return h > 0 ? static_cast<il_handle>(h) : 0;  // 0 is invalid: the library says so
}

std::string Args::String(size_t i, const char* name) const {
  Napi::Value v = User(i);
  if (!v.IsString()) Fail(std::string(name) + " must be a string, got " + TypeName(v));
  std::string s = v.As<Napi::String>().Utf8Value();
  if (std::memchr(s.data(), '\0', s.size()) != nullptr) Fail(std::string(name) + " must not contain NUL characters", kArgValue);
  return s;
}

std::optional<std::string> Args::OptString(size_t i, const char* name) const {
  Napi::Value v = User(i);
  if (v.IsUndefined() || v.IsNull()) return std::nullopt;
  return String(i, name);
}

bool Args::Bool(size_t i, const char* name) const {
  Napi::Value v = User(i);
  if (!v.IsBoolean()) Fail(std::string(name) + " must be a boolean, got " + TypeName(v));
  return v.As<Napi::Boolean>().Value();
}

Napi::Function Args::Function(size_t i, const char* name) const {
  Napi::Value v = User(i);
  if (!v.IsFunction()) Fail(std::string(name) + " must be a function, got " + TypeName(v));
  return v.As<Napi::Function>();
}

Napi::String TakeString(Napi::Env env, char* s) {
  // Free even when creating the JS string throws.
  struct Freer {
    char* p;
    ~Freer() { il_free(p); }
  } freer{s};
  return Napi::String::New(env, s != nullptr ? s : "");
}

Napi::Object ModuleInit(Napi::Env env, Napi::Object exports) {
  PinAddon();
  env.SetInstanceData(new AddonData());
  // il_version waits for the Go runtime to finish initialising, so its
  // signal handlers are in place before the guard fixes the others.
  il_version();
  InstallSignalGuard(env);

  Export(env, exports, "init", Init);
  Export(env, exports, "version", Version);
  Export(env, exports, "reasonLabels", ReasonLabels);
  Export(env, exports, "debugCounters", DebugCounters);
  Export(env, exports, "fixSignals", JsFixSignals);
  Export(env, exports, "signalReport", JsSignalReport);
  RegisterCalls(env, exports);
  return exports;
}

}  // namespace interlock

// Context-aware: every environment (the main thread, each worker) that
// loads the addon gets its own exports and instance data.
NAPI_MODULE_INIT() {
  return interlock::Guard(env, [&]() -> napi_value {
    return interlock::ModuleInit(Napi::Env(env), Napi::Object(env, exports));
  });
}
