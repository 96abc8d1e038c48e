// One function per library call: check arguments, call, convert back.
// Usage strings name the public JS API (node/index.js) that forwards here.

#include "calls.h"

#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_set>
#include <vector>

#include "addon.h"
#include "events.h"
#include "host.h"

namespace interlock {
namespace {

// ---- Engine ---------------------------------------------------------------

// CloseOnTeardown closes an engine still open when its environment goes
// away: a worker thread that ends or is terminated, or the main thread at
// exit. The engine's commands' trees are killed, its browsers closed and
// its handles released while Node (the process) lives on.
void CloseOnTeardown(void* arg) {
  il_engine_close(static_cast<il_handle>(reinterpret_cast<uintptr_t>(arg)));
}

void* TeardownArg(il_handle engine) { return reinterpret_cast<void*>(static_cast<uintptr_t>(engine)); }

// engineCreate(configJson: string | undefined, onEvent: (json?: string) => void): handle
Napi::Value EngineCreate(const Napi::CallbackInfo& info) {
  Args args(info, "new Engine(config?: EngineConfig | string)", 2, 2, false);
  std::optional<std::string> config = args.OptString(0, "config");
  Napi::Function on_event = args.Function(1, "onEvent");
  il_handle engine = 0;
  Check(info.Env(), il_engine_create(CString(config), &engine), 0);
  try {
    AttachEvents(info.Env(), engine, on_event);
  } catch (...) {
    il_engine_close(engine);
    throw;
  }
  // Registered after the event function, so it runs before that function
  // is torn down (hooks run in reverse order).
  napi_add_env_cleanup_hook(info.Env(), Quiet<CloseOnTeardown>::Call, TeardownArg(engine));
  return Napi::Number::New(info.Env(), static_cast<double>(engine));
}

Napi::Value EngineClose(const Napi::CallbackInfo& info) {
  Args args(info, "engine.close()", 0, 0);
  il_handle engine = args.Handle();
  il_status rc = il_engine_close(engine);
  if (rc != IL_ERR_INVALID_HANDLE) napi_remove_env_cleanup_hook(info.Env(), Quiet<CloseOnTeardown>::Call, TeardownArg(engine));
  // Even when close failed the stream ends here: the handle is unusable.
  DetachHost(info.Env(), engine);
  DetachEvents(info.Env(), engine);
  Check(info.Env(), rc, engine);
  return info.Env().Undefined();
}

// ---- Closing without blocking the JS thread --------------------------------
// A close waits until tools have died (a command ignoring SIGTERM holds it
// for the kill grace). The *CloseAsync calls run it on a libuv worker thread
// and return a promise settled on the JS thread; the pending work keeps the
// event loop alive meanwhile. engineCloseWait blocks until an engine's close
// in progress has finished (for process exit, where no promise can settle).
//
// Plain N-API async work (not Napi::AsyncWorker): when a worker thread is
// terminated while a close runs, Node completes the work during the
// environment's teardown with JS off, and settling the promise fails; that
// failure is dropped here (see addon.h, the boundary).

std::mutex closing_mu;
std::condition_variable closing_cv;
std::unordered_set<il_handle> closing_engines;

struct CloseWork {
  il_status (*close)(il_handle);
  il_handle h;
  bool engine;
  il_status rc = IL_OK;
  napi_deferred deferred = nullptr;
  napi_async_work work = nullptr;
};

// libuv worker thread: C only.
void CloseExecute(napi_env /*env*/, void* data) {
  auto* w = static_cast<CloseWork*>(data);
  w->rc = w->close(w->h);
  if (w->engine) {
    std::lock_guard<std::mutex> lock(closing_mu);
    closing_engines.erase(w->h);
    closing_cv.notify_all();
  }
}

// JS thread, or the environment's teardown (JS off).
void CloseComplete(napi_env env, napi_status status, void* data) {
  std::unique_ptr<CloseWork> w(static_cast<CloseWork*>(data));
  napi_delete_async_work(env, w->work);
  if (status == napi_cancelled) CloseExecute(env, w.get());  // never ran: close here
  GuardQuiet([&] {
    // The library stopped calling: end the event stream (the end marker
    // follows the batches still queued).
    if (w->engine) {
      if (w->rc != IL_ERR_INVALID_HANDLE) napi_remove_env_cleanup_hook(env, Quiet<CloseOnTeardown>::Call, TeardownArg(w->h));
      DetachHost(Napi::Env(env), w->h);
      DetachEvents(Napi::Env(env), w->h);
    }
  });
  GuardQuiet([&] {
    if (w->rc == IL_OK) {
      napi_value undefined = nullptr;
      napi_get_undefined(env, &undefined);
      napi_resolve_deferred(env, w->deferred, undefined);
    } else {
      napi_reject_deferred(env, w->deferred, MakeError(Napi::Env(env), w->rc, LastError(w->h)));
    }
  });
}

Napi::Value CloseAsync(const Napi::CallbackInfo& info, const char* usage, il_status (*close)(il_handle), bool engine) {
  Args args(info, usage, 0, 0);
  Napi::Env env = info.Env();
  auto w = std::make_unique<CloseWork>(CloseWork{close, args.Handle(), engine});
  napi_value promise = nullptr, name = nullptr;
  NAPI_THROW_IF_FAILED(env, napi_create_promise(env, &w->deferred, &promise), Napi::Value());
  NAPI_THROW_IF_FAILED(env, napi_create_string_utf8(env, "interlock.close", NAPI_AUTO_LENGTH, &name), Napi::Value());
  NAPI_THROW_IF_FAILED(env, napi_create_async_work(env, nullptr, name, CloseExecute, CloseComplete, w.get(), &w->work),
                       Napi::Value());
  if (engine) {
    std::lock_guard<std::mutex> lock(closing_mu);
    closing_engines.insert(w->h);
  }
  napi_status st = napi_queue_async_work(env, w->work);
  if (st != napi_ok) {
    if (engine) {
      std::lock_guard<std::mutex> lock(closing_mu);
      closing_engines.erase(w->h);
    }
    napi_delete_async_work(env, w->work);
    NAPI_THROW_IF_FAILED(env, st, Napi::Value());
  }
  w.release();  // CloseComplete frees it
  return Napi::Value(env, promise);
}

Napi::Value EngineCloseAsync(const Napi::CallbackInfo& info) {
  return CloseAsync(info, "engine.close()", il_engine_close, true);
}

Napi::Value EngineCloseWait(const Napi::CallbackInfo& info) {
  Args args(info, "engine.close()", 0, 0);
  il_handle h = args.Handle();
  std::unique_lock<std::mutex> lock(closing_mu);
  closing_cv.wait(lock, [h] { return closing_engines.count(h) == 0; });
  return info.Env().Undefined();
}

Napi::Value SessionCloseAsync(const Napi::CallbackInfo& info) {
  return CloseAsync(info, "session.close()", il_session_close, false);
}

Napi::Value TaskLoopCloseAsync(const Napi::CallbackInfo& info) {
  return CloseAsync(info, "taskLoop.close()", il_taskloop_close, false);
}

// engineRef(handle, ref: boolean): whether pending runs keep Node alive.
Napi::Value EngineRef(const Napi::CallbackInfo& info) {
  Args args(info, "engine.ref(on: boolean)", 1, 1);
  RefEvents(info.Env(), args.Handle(), args.Bool(0, "on"));
  return info.Env().Undefined();
}

// EngineJSON calls fn, an engine call without arguments that returns JSON.
static Napi::Value EngineJSON(const Napi::CallbackInfo& info, const char* usage, il_status (*fn)(il_handle, char**)) {
  Args args(info, usage, 0, 0);
  il_handle engine = args.Handle();
  char* json = nullptr;
  Check(info.Env(), fn(engine, &json), engine);
  return TakeString(info.Env(), json);
}

Napi::Value EngineSessions(const Napi::CallbackInfo& info) {
  return EngineJSON(info, "engine.sessions()", il_engine_sessions);
}

Napi::Value EngineInfo(const Napi::CallbackInfo& info) { return EngineJSON(info, "engine.info()", il_engine_info); }

Napi::Value EngineCounts(const Napi::CallbackInfo& info) { return EngineJSON(info, "engine.counts()", il_engine_counts); }

Napi::Value EngineAuditLog(const Napi::CallbackInfo& info) {
  Args args(info, "engine.auditLog(session?: string)", 0, 1);
  il_handle engine = args.Handle();
  std::optional<std::string> session = args.OptString(0, "session");
  char* json = nullptr;
  Check(info.Env(), il_engine_audit_log(engine, CString(session), &json), engine);
  return TakeString(info.Env(), json);
}

Napi::Value StoreAuditLog(const Napi::CallbackInfo& info) {
  Args args(info, "storeAuditLog(path: string, session?: string)", 1, 2, false);
  std::string path = args.String(0, "path");
  std::optional<std::string> session = args.OptString(1, "session");
  char* json = nullptr;
  Check(info.Env(), il_store_audit_log(path.c_str(), CString(session), &json), 0);
  return TakeString(info.Env(), json);
}

Napi::Value EngineGrants(const Napi::CallbackInfo& info) { return EngineJSON(info, "engine.grants()", il_engine_grants); }

Napi::Value EngineRevokeGrant(const Napi::CallbackInfo& info) {
  Args args(info, "engine.revokeGrant(grant: {scope, tool, key, session?, root?})", 1, 1);
  il_handle engine = args.Handle();
  std::string grant = args.String(0, "grant");
  Check(info.Env(), il_engine_revoke_grant(engine, grant.c_str()), engine);
  return info.Env().Undefined();
}

Napi::Value EngineCheckStore(const Napi::CallbackInfo& info) { return EngineJSON(info, "engine.checkStore()", il_engine_check_store); }

Napi::Value EngineSessionHandle(const Napi::CallbackInfo& info) {
  Args args(info, "engineSessionHandle(engine, id: string)", 1, 1);
  il_handle engine = args.Handle();
  std::string id = args.String(0, "id");
  il_handle session = 0;
  Check(info.Env(), il_engine_session_handle(engine, id.c_str(), &session), engine);
  return Napi::Number::New(info.Env(), static_cast<double>(session));
}

Napi::Value EngineStats(const Napi::CallbackInfo& info) { return EngineJSON(info, "engine.stats()", il_engine_stats); }

Napi::Value EngineResumeAll(const Napi::CallbackInfo& info) { return EngineJSON(info, "engine.resumeAll()", il_engine_resume_all); }

Napi::Value EngineResumeSessions(const Napi::CallbackInfo& info) {
  Args args(info, "engine.resumeAll(ids?: string[])", 1, 1);
  il_handle engine = args.Handle();
  std::string ids = args.String(0, "ids");
  char* json = nullptr;
  Check(info.Env(), il_engine_resume_sessions(engine, ids.c_str(), &json), engine);
  return TakeString(info.Env(), json);
}

// Returns [server handle, url].
Napi::Value EngineServe(const Napi::CallbackInfo& info) {
  Args args(info, "engine.serve(opts?: {port?: number, host?: string, allowRemote?: boolean, token?: string, fleet?: boolean})", 1, 1);
  il_handle engine = args.Handle();
  std::string json = args.String(0, "opts");
  il_handle server = 0;
  char* url = nullptr;
  Check(info.Env(), il_engine_serve(engine, json.c_str(), &server, &url), engine);
  Napi::Array out = Napi::Array::New(info.Env(), 2);
  out.Set(0u, Napi::Number::New(info.Env(), static_cast<double>(server)));
  out.Set(1u, TakeString(info.Env(), url));
  return out;
}

// fleetServe(optsJSON): [server, url], the fleet view of a hub, no engine.
Napi::Value FleetServe(const Napi::CallbackInfo& info) {
  Args args(info, "fleetServe(opts: string)", 1, 1, false);
  std::string json = args.String(0, "opts");
  il_handle server = 0;
  char* url = nullptr;
  Check(info.Env(), il_fleet_serve(json.c_str(), &server, &url), 0);
  Napi::Array out = Napi::Array::New(info.Env(), 2);
  out.Set(0u, Napi::Number::New(info.Env(), static_cast<double>(server)));
  out.Set(1u, TakeString(info.Env(), url));
  return out;
}

Napi::Value ServerClose(const Napi::CallbackInfo& info) {
  Args args(info, "server.close()", 0, 0);
  il_handle server = args.Handle();
  Check(info.Env(), il_server_close(server), server);
  return info.Env().Undefined();
}

// ---- Session --------------------------------------------------------------

// sessionCreate(engine, optsJson): [handle, id], in one library call.
Napi::Value SessionCreate(const Napi::CallbackInfo& info) {
  Args args(info, "engine.createSession(opts?: SessionOptions | string)", 1, 1);
  il_handle engine = args.Handle();
  std::optional<std::string> opts = args.OptString(0, "opts");
  il_handle session = 0;
  char* id = nullptr;
  Check(info.Env(), il_session_create(engine, CString(opts), &session, &id), engine);
  Napi::Array out = Napi::Array::New(info.Env(), 2);
  out.Set(0u, Napi::Number::New(info.Env(), static_cast<double>(session)));
  out.Set(1u, TakeString(info.Env(), id));
  return out;
}

// The two hot getters are raw N-API callbacks: no CallbackInfo, no
// try/catch on the success path. They return numbers; node/index.js maps
// the status code to a cached name.
bool RawHandle(napi_env env, napi_callback_info cbinfo, const char* usage, il_handle* out) {
  size_t argc = 1;
  napi_value arg = nullptr;
  int64_t h = 0;
  if (napi_get_cb_info(env, cbinfo, &argc, &arg, nullptr, nullptr) != napi_ok || argc != 1) {
    napi_throw_type_error(env, kArgCount, usage);
    return false;
  }
  if (napi_get_value_int64(env, arg, &h) != napi_ok) {
    napi_throw_type_error(env, kArgType, usage);
    return false;
  }
  *out = h > 0 ? static_cast<il_handle>(h) : 0;
  return true;
}

napi_value ThrowRaw(napi_env env, il_status rc, il_handle h) {
  return Guard(env, [&]() -> napi_value { ThrowStatus(Napi::Env(env), rc, h); });
}

napi_value SessionStatus(napi_env env, napi_callback_info cbinfo) {
  il_handle session;
  if (!RawHandle(env, cbinfo, "session.status: internal handle must be a number", &session)) return nullptr;
  int32_t status = 0;
  if (il_status rc = il_session_get_status(session, &status); rc != IL_OK) return ThrowRaw(env, rc, session);
  napi_value out;
  napi_create_int32(env, status, &out);
  return out;
}

napi_value SessionVersion(napi_env env, napi_callback_info cbinfo) {
  il_handle session;
  if (!RawHandle(env, cbinfo, "session.version: internal handle must be a number", &session)) return nullptr;
  uint64_t version = 0;
  if (il_status rc = il_session_get_version(session, &version); rc != IL_OK) return ThrowRaw(env, rc, session);
  napi_value out;
  napi_create_double(env, static_cast<double>(version), &out);
  return out;
}

// Calls returning a library string (JSON or an id).
template <il_status (*Fn)(il_handle, char**)>
Napi::Value StringGetter(const Napi::CallbackInfo& info, const char* usage) {
  Args args(info, usage, 0, 0);
  il_handle h = args.Handle();
  char* out = nullptr;
  Check(info.Env(), Fn(h, &out), h);
  return TakeString(info.Env(), out);
}

Napi::Value SessionPauseState(const Napi::CallbackInfo& info) {
  return StringGetter<il_session_get_pause_state>(info, "session.pauseState");
}
Napi::Value SessionSnapshot(const Napi::CallbackInfo& info) {
  return StringGetter<il_session_snapshot>(info, "session.snapshot()");
}
Napi::Value SessionHistory(const Napi::CallbackInfo& info) {
  return StringGetter<il_session_history>(info, "session.history()");
}
Napi::Value SessionId(const Napi::CallbackInfo& info) {
  return StringGetter<il_session_id>(info, "session.id");
}

Napi::Value SessionRunState(const Napi::CallbackInfo& info) {
  return StringGetter<il_session_get_run_state>(info, "session.runState");
}
Napi::Value SessionEligibility(const Napi::CallbackInfo& info) {
  return StringGetter<il_session_eligibility>(info, "session.eligibility");
}
Napi::Value EngineEmergencyStop(const Napi::CallbackInfo& info) {
  return StringGetter<il_engine_emergency_stop>(info, "engine.emergencyStop()");
}

Napi::Value SessionResume(const Napi::CallbackInfo& info) {
  Args args(info, "session.resume(pauseId?: string)", 0, 1);
  il_handle session = args.Handle();
  std::optional<std::string> pause_id = args.OptString(0, "pauseId");
  Check(info.Env(), il_session_pause_resume(session, CString(pause_id)), session);
  return info.Env().Undefined();
}

Napi::Value SessionConfirm(const Napi::CallbackInfo& info) {
  Args args(info,
            "session.confirm(approved: boolean, reason?: string, pauseId?: string, "
            "remember?: 'once' | 'session' | 'project')",
            1, 4);
  il_handle session = args.Handle();
  bool approved = args.Bool(0, "approved");
  std::optional<std::string> reason = args.OptString(1, "reason");
  std::optional<std::string> pause_id = args.OptString(2, "pauseId");
  std::optional<std::string> remember = args.OptString(3, "remember");
  Check(info.Env(),
        il_session_pause_confirm(session, CString(pause_id), approved ? 1 : 0, CString(reason), CString(remember)),
        session);
  return info.Env().Undefined();
}

// sessionsConfirm(engine, nums: Float64Array, texts: string): answers many
// confirm pauses in one library call (il_sessions_confirm). nums holds two
// numbers per answer, the session handle and flags (kConfirm*); texts holds
// three strings per answer, each ended by a NUL: the pause id, the reason
// and the remember scope ("" when its flag is off). Returns undefined when
// every answer was applied, else [[index, error], ...] for those that failed.
constexpr int kConfirmApproved = 1, kConfirmReason = 2, kConfirmRemember = 4, kConfirmPauseId = 8;

Napi::Value SessionsConfirm(const Napi::CallbackInfo& info) {
  Args args(info, "sessionsConfirm(nums: Float64Array, texts: string)", 2, 2);
  il_handle engine = args.Handle();
  Napi::Env env = info.Env();
  if (!info[1].IsTypedArray() || info[1].As<Napi::TypedArray>().TypedArrayType() != napi_float64_array) {
    args.Fail("nums must be a Float64Array");
  }
  Napi::Float64Array nums = info[1].As<Napi::Float64Array>();
  if (!info[2].IsString()) args.Fail("texts must be a string");
  std::string texts = info[2].As<Napi::String>().Utf8Value();  // NULs separate the strings
  size_t n = nums.ElementLength() / 2;
  std::vector<il_confirm> entries(n);
  std::vector<il_status> statuses(n, IL_OK);
  std::vector<char*> errors(n, nullptr);
  size_t at = 0;
  auto next = [&](bool present) -> const char* {
    if (at >= texts.size()) args.Fail("texts has fewer strings than the answers need", kArgValue);
    const char* s = texts.c_str() + at;
    at += std::strlen(s) + 1;
    return present ? s : nullptr;
  };
  for (size_t i = 0; i < n; i++) {
    double h = nums[2 * i];
    int flags = static_cast<int>(nums[2 * i + 1]);
    entries[i].session = h > 0 ? static_cast<il_handle>(h) : 0;
    entries[i].approved = (flags & kConfirmApproved) != 0 ? 1 : 0;
    entries[i].pause_id = next((flags & kConfirmPauseId) != 0);
    entries[i].reason = next((flags & kConfirmReason) != 0);
    entries[i].remember = next((flags & kConfirmRemember) != 0);
  }
  Check(env, il_sessions_confirm(engine, entries.data(), n, statuses.data(), errors.data()), engine);
  Napi::Array failed;
  uint32_t nfailed = 0;
  for (size_t i = 0; i < n; i++) {
    if (statuses[i] == IL_OK) continue;
    struct Freer {
      char* p;
      ~Freer() { il_free(p); }
    } freer{errors[i]};
    if (failed.IsEmpty()) failed = Napi::Array::New(env);
    Napi::Array pair = Napi::Array::New(env, 2);
    pair.Set(0u, Napi::Number::New(env, static_cast<double>(i)));
    pair.Set(1u, MakeError(env, statuses[i], errors[i] != nullptr ? errors[i] : ""));
    failed.Set(nfailed++, pair);
  }
  return failed.IsEmpty() ? env.Undefined() : Napi::Value(failed);
}

Napi::Value SessionInterrupt(const Napi::CallbackInfo& info) {
  Args args(info, "session.interrupt(reason?: Reason)", 0, 1);
  il_handle session = args.Handle();
  std::optional<std::string> reason = args.OptString(0, "reason");
  Check(info.Env(), il_session_interrupt(session, CString(reason)), session);
  return info.Env().Undefined();
}

Napi::Value SessionSignal(const Napi::CallbackInfo& info) {
  Args args(info, "session.signal(sig: 'pause' | 'resume' | 'cancel')", 1, 1);
  il_handle session = args.Handle();
  std::string sig = args.String(0, "sig");
  Check(info.Env(), il_session_signal(session, sig.c_str()), session);
  return info.Env().Undefined();
}

Napi::Value SessionPrompt(const Napi::CallbackInfo& info) {
  Args args(info, "session.prompt(text: string)", 1, 1);
  il_handle session = args.Handle();
  std::string text = args.String(0, "text");
  uint64_t run = 0;
  Check(info.Env(), il_session_prompt(session, text.c_str(), &run), session);
  return Napi::Number::New(info.Env(), static_cast<double>(run));
}

Napi::Value SessionContinue(const Napi::CallbackInfo& info) {
  Args args(info, "session.continue()", 0, 0);
  il_handle session = args.Handle();
  uint64_t run = 0;
  Check(info.Env(), il_session_continue(session, &run), session);
  return Napi::Number::New(info.Env(), static_cast<double>(run));
}

// ---- Work done by the host: its tools and its own loop --------------------

// engineAttachHost(engine, onHost: (json: string) => void): messages about
// host work come to onHost, apart from the event stream.
Napi::Value EngineAttachHost(const Napi::CallbackInfo& info) {
  Args args(info, "engineAttachHost(onHost: (json: string) => void)", 1, 1);
  il_handle engine = args.Handle();
  AttachHost(info.Env(), engine, args.Function(0, "onHost"));
  return info.Env().Undefined();
}

Napi::Value EngineRegisterTool(const Napi::CallbackInfo& info) {
  Args args(info, "engine.registerTool(name: string, tool: {description?, parameters?, run, graceMs?})", 2, 2);
  il_handle engine = args.Handle();
  std::string name = args.String(0, "name");
  std::string spec = args.String(1, "spec");
  Check(info.Env(), il_engine_register_tool(engine, name.c_str(), spec.c_str()), engine);
  return info.Env().Undefined();
}

// engineSetApprover(engine, timeoutMs: number): <= 0 removes the approver.
Napi::Value EngineSetApprover(const Napi::CallbackInfo& info) {
  Args args(info, "engine.setApprover(approver: ((request) => Promise<'allow' | 'deny' | 'ask'>) | null, opts?: {timeoutMs?: number})", 1, 1);
  il_handle engine = args.Handle();
  if (!info[1].IsNumber()) args.Fail("timeoutMs must be a number");
  Check(info.Env(), il_engine_set_approver(engine, info[1].As<Napi::Number>().Int64Value()), engine);
  return info.Env().Undefined();
}

// engineTrustProjectPolicy(engine, dir, sha256): {path, sha256} as JSON.
Napi::Value EngineTrustProjectPolicy(const Napi::CallbackInfo& info) {
  Args args(info, "engine.trustProjectPolicy(dir: string, opts?: {sha256?: string})", 2, 2);
  il_handle engine = args.Handle();
  std::string dir = args.String(0, "dir");
  std::string sha256 = args.String(1, "sha256");
  char* json = nullptr;
  Check(info.Env(), il_engine_trust_project_policy(engine, dir.c_str(), sha256.c_str(), &json), engine);
  return TakeString(info.Env(), json);
}

// engineReviewProjectPolicy(engine, dir): the review as JSON (null when none).
Napi::Value EngineReviewProjectPolicy(const Napi::CallbackInfo& info) {
  Args args(info, "engine.reviewProjectPolicy(dir: string)", 1, 1);
  il_handle engine = args.Handle();
  std::string dir = args.String(0, "dir");
  char* json = nullptr;
  Check(info.Env(), il_engine_review_project_policy(engine, dir.c_str(), &json), engine);
  return TakeString(info.Env(), json);
}

Napi::Value SessionBegin(const Napi::CallbackInfo& info) {
  Args args(info, "session.begin(opts?: {graceMs?: number})", 0, 1);
  il_handle session = args.Handle();
  std::optional<std::string> opts = args.OptString(0, "opts");
  il_handle host = 0;
  Check(info.Env(), il_session_begin(session, CString(opts), &host), session);
  return Napi::Number::New(info.Env(), static_cast<double>(host));
}

// hostPause(host, request: number, json): the answer comes as a pause_done event.
Napi::Value HostPause(const Napi::CallbackInfo& info) {
  Args args(info, "pause(opts: {kind: 'continue' | 'confirm', message: string, details?: string})", 2, 2);
  il_handle host = args.Handle();
  if (!info[1].IsNumber()) args.Fail("request must be a number");
  auto request = static_cast<uint64_t>(info[1].As<Napi::Number>().Int64Value());
  std::string json = args.String(1, "opts");
  Check(info.Env(), il_host_pause(host, request, json.c_str()), host);
  return info.Env().Undefined();
}

Napi::Value HostCheck(const Napi::CallbackInfo& info) {
  Args args(info, "check(command: string)", 1, 1);
  il_handle host = args.Handle();
  std::string cmd = args.String(0, "command");
  char* json = nullptr;
  Check(info.Env(), il_host_check(host, cmd.c_str(), &json), host);
  return TakeString(info.Env(), json);
}

// hostStep(host, request: number): the outcome comes as a step_done event.
Napi::Value HostStep(const Napi::CallbackInfo& info) {
  Args args(info, "step()", 1, 1);
  il_handle host = args.Handle();
  if (!info[1].IsNumber()) args.Fail("request must be a number");
  auto request = static_cast<uint64_t>(info[1].As<Napi::Number>().Int64Value());
  Check(info.Env(), il_host_step(host, request), host);
  return info.Env().Undefined();
}

Napi::Value HostProgress(const Napi::CallbackInfo& info) {
  Args args(info, "progress(text: string)", 1, 1);
  il_handle host = args.Handle();
  std::string text = args.String(0, "text");
  Check(info.Env(), il_host_progress(host, text.c_str()), host);
  return info.Env().Undefined();
}

Napi::Value HostEnd(const Napi::CallbackInfo& info) {
  Args args(info, "end(result?)", 0, 1);
  il_handle host = args.Handle();
  std::optional<std::string> result = args.OptString(0, "result");
  char* json = nullptr;
  Check(info.Env(), il_host_end(host, CString(result), &json), host);
  return TakeString(info.Env(), json);
}

// ---- Task loops -----------------------------------------------------------

// taskLoopCreate(engine, json): [loop, session]
Napi::Value TaskLoopCreate(const Napi::CallbackInfo& info) {
  Args args(info, "engine.createTaskLoop(opts: {tasks: TaskSpec[], pauseMode?: boolean})", 1, 1);
  il_handle engine = args.Handle();
  std::string json = args.String(0, "opts");
  il_handle loop = 0, session = 0;
  Check(info.Env(), il_taskloop_create(engine, json.c_str(), &loop, &session), engine);
  Napi::Array out = Napi::Array::New(info.Env(), 2);
  out.Set(0u, Napi::Number::New(info.Env(), static_cast<double>(loop)));
  out.Set(1u, Napi::Number::New(info.Env(), static_cast<double>(session)));
  return out;
}

Napi::Value SessionTaskLoop(const Napi::CallbackInfo& info) {
  Args args(info, "session task loop", 0, 0);
  il_handle session = args.Handle();
  il_handle loop = 0;
  Check(info.Env(), il_session_task_loop(session, &loop), session);
  return Napi::Number::New(info.Env(), static_cast<double>(loop));
}

Napi::Value TaskLoopRun(const Napi::CallbackInfo& info) {
  Args args(info, "taskLoop.run()", 0, 0);
  il_handle loop = args.Handle();
  uint64_t run = 0;
  Check(info.Env(), il_taskloop_run(loop, &run), loop);
  return Napi::Number::New(info.Env(), static_cast<double>(run));
}

Napi::Value TaskLoopSetPauseMode(const Napi::CallbackInfo& info) {
  Args args(info, "taskLoop.setPauseMode(on: boolean)", 1, 1);
  il_handle loop = args.Handle();
  bool on = args.Bool(0, "on");
  Check(info.Env(), il_taskloop_set_pause_mode(loop, on ? 1 : 0), loop);
  return info.Env().Undefined();
}

Napi::Value TaskLoopIsPauseMode(const Napi::CallbackInfo& info) {
  Args args(info, "taskLoop.isPauseMode()", 0, 0);
  il_handle loop = args.Handle();
  int32_t on = 0;
  Check(info.Env(), il_taskloop_is_pause_mode(loop, &on), loop);
  return Napi::Boolean::New(info.Env(), on != 0);
}

template <il_status (*Fn)(il_handle)>
Napi::Value HandleCall(const Napi::CallbackInfo& info, const char* usage) {
  Args args(info, usage, 0, 0);
  il_handle h = args.Handle();
  Check(info.Env(), Fn(h), h);
  return info.Env().Undefined();
}

Napi::Value TaskLoopContinue(const Napi::CallbackInfo& info) {
  Args args(info, "taskLoop.continue()", 0, 0);
  il_handle loop = args.Handle();
  uint64_t run = 0;
  Check(info.Env(), il_taskloop_continue(loop, &run), loop);
  return Napi::Number::New(info.Env(), static_cast<double>(run));
}
Napi::Value TaskLoopContinueAll(const Napi::CallbackInfo& info) {
  return HandleCall<il_taskloop_continue_all>(info, "taskLoop.continueAll()");
}
Napi::Value TaskLoopState(const Napi::CallbackInfo& info) {
  return StringGetter<il_taskloop_state>(info, "taskLoop.state()");
}

// ---- Commands -------------------------------------------------------------

Napi::Value SessionCheck(const Napi::CallbackInfo& info) {
  Args args(info, "session.check(command: string)", 1, 1);
  il_handle session = args.Handle();
  std::string cmd = args.String(0, "command");
  char* json = nullptr;
  Check(info.Env(), il_session_check(session, cmd.c_str(), &json), session);
  return TakeString(info.Env(), json);
}

void SetRaw(Napi::Env env, Napi::Object exports, const char* name, napi_callback fn) {
  napi_value f;
  NAPI_THROW_IF_FAILED_VOID(env, napi_create_function(env, name, NAPI_AUTO_LENGTH, fn, nullptr, &f));
  exports.Set(name, Napi::Value(env, f));
}

}  // namespace

void RegisterCalls(Napi::Env env, Napi::Object exports) {
  struct Entry {
    const char* name;
    JsFunction fn;
  };
  static const Entry entries[] = {
      {"engineCreate", EngineCreate},
      {"engineClose", EngineClose},
      {"engineCloseAsync", EngineCloseAsync},
      {"engineCloseWait", EngineCloseWait},
      {"engineRef", EngineRef},
      {"engineSessions", EngineSessions},
      {"engineInfo", EngineInfo},
      {"engineEmergencyStop", EngineEmergencyStop},
      {"engineCounts", EngineCounts},
      {"engineAuditLog", EngineAuditLog},
      {"engineGrants", EngineGrants},
      {"engineRevokeGrant", EngineRevokeGrant},
      {"engineCheckStore", EngineCheckStore},
      {"engineSessionHandle", EngineSessionHandle},
      {"engineStats", EngineStats},
      {"engineResumeAll", EngineResumeAll},
      {"engineResumeSessions", EngineResumeSessions},
      {"engineServe", EngineServe},
      {"serverClose", ServerClose},
      {"fleetServe", FleetServe},
      {"sessionCreate", SessionCreate},
      {"sessionCloseAsync", SessionCloseAsync},
      {"sessionPauseState", SessionPauseState},
      {"sessionSnapshot", SessionSnapshot},
      {"sessionHistory", SessionHistory},
      {"sessionId", SessionId},
      {"sessionRunState", SessionRunState},
      {"sessionEligibility", SessionEligibility},
      {"sessionResume", SessionResume},
      {"sessionConfirm", SessionConfirm},
      {"sessionsConfirm", SessionsConfirm},
      {"sessionInterrupt", SessionInterrupt},
      {"sessionSignal", SessionSignal},
      {"sessionPrompt", SessionPrompt},
      {"sessionContinue", SessionContinue},
      {"engineRegisterTool", EngineRegisterTool},
      {"engineSetApprover", EngineSetApprover},
      {"engineTrustProjectPolicy", EngineTrustProjectPolicy},
      {"engineReviewProjectPolicy", EngineReviewProjectPolicy},
      {"engineAttachHost", EngineAttachHost},
      {"sessionBegin", SessionBegin},
      {"hostPause", HostPause},
      {"hostProgress", HostProgress},
      {"hostCheck", HostCheck},
      {"hostStep", HostStep},
      {"hostEnd", HostEnd},
      {"sessionTaskLoop", SessionTaskLoop},
      {"taskLoopCreate", TaskLoopCreate},
      {"taskLoopRun", TaskLoopRun},
      {"taskLoopSetPauseMode", TaskLoopSetPauseMode},
      {"taskLoopIsPauseMode", TaskLoopIsPauseMode},
      {"taskLoopContinue", TaskLoopContinue},
      {"taskLoopContinueAll", TaskLoopContinueAll},
      {"taskLoopState", TaskLoopState},
      {"taskLoopCloseAsync", TaskLoopCloseAsync},
      {"sessionCheck", SessionCheck},
      {"storeAuditLog", StoreAuditLog},
  };
  for (const Entry& e : entries) Export(env, exports, e.name, e.fn);
  SetRaw(env, exports, "sessionStatus", SessionStatus);
  SetRaw(env, exports, "sessionVersion", SessionVersion);
}

}  // namespace interlock
