/*
 * interlock.h — the C API of libinterlock, the Interlock engine as a shared
 * library (Go, built with -buildmode=c-shared; soname libinterlock.so.0.1).
 *
 * Interlock runs AI-agent sessions and keeps the people watching them in
 * control: pause, confirm dangerous actions, stop at once. This API is a
 * translation layer only; the behaviour lives in the Go engine.
 *
 * Conventions (every function follows them):
 *
 *  - Handles. Engines, sessions and task loops are opaque il_handle values.
 *    0 is never a valid handle; handles are never reused. Passing a closed or
 *    unknown handle, or a handle of the wrong kind, returns
 *    IL_ERR_INVALID_HANDLE.
 *  - Status. Every call that can fail returns an il_status (IL_OK = 0).
 *    Results go to out-parameters, which are written only on IL_OK. A NULL
 *    out-parameter is IL_ERR_INVALID_ARGUMENT.
 *  - Errors. A failing call stores a message (what failed, with which input,
 *    what to do) as the last error of the handle it was called with; read it
 *    with il_last_error(handle, ...) right after the failing call. Calls
 *    without a handle (il_engine_create, il_check_command) and calls whose
 *    handle did not resolve store it under handle 0. Successful calls leave
 *    the last error unchanged.
 *  - Strings in are borrowed: UTF-8, NUL-terminated, copied before the call
 *    returns. Strings out (char** out-parameters) are allocated by the
 *    library and must be released with il_free. Static strings
 *    (il_version, il_status_name, il_reason_labels) must not be freed.
 *  - Structured data crosses as JSON (UTF-8). The shapes are the engine's
 *    (see the "JSON shapes" notes next to each function).
 *  - Threads. Every function may be called from any thread. None of them
 *    calls back into the caller, except the event callback, which runs on a
 *    library thread (see il_engine_set_event_callback).
 *  - Panics inside the library are recovered and reported as IL_ERR_PANIC;
 *    they never unwind into the caller.
 */
#ifndef INTERLOCK_H
#define INTERLOCK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Types                                                                    */
/* ------------------------------------------------------------------------ */

/* An opaque handle to an engine, a session or a task loop. 0 is invalid. */
typedef uint64_t il_handle;

/* The result of a call. IL_OK or one of IL_ERR_*. */
typedef int32_t il_status;

enum {
  IL_OK = 0,
  IL_ERR_INVALID_HANDLE = 1,   /* unknown, closed, or wrong kind of handle */
  IL_ERR_INVALID_ARGUMENT = 2, /* bad JSON, unknown field, bad enum value, NULL out-param,
                                  buffer too small (il_last_error) */
  IL_ERR_CLOSED = 3,           /* the session or engine is closed / closing */
  IL_ERR_UNKNOWN_SESSION = 4,
  IL_ERR_NOT_PAUSED = 5,       /* an answer came while no pause is pending */
  IL_ERR_UNKNOWN_PAUSE = 6,    /* no pending pause has that id (already answered?) */
  IL_ERR_WRONG_PAUSE_KIND = 7, /* e.g. confirm on a continue pause */
  IL_ERR_RUNNING = 8,          /* a run is already in flight */
  IL_ERR_NOT_RUNNING = 9,      /* interrupt with no run in flight */
  IL_ERR_NOT_RESUMABLE = 10,   /* continue on a session that cannot be resumed */
  IL_ERR_DUPLICATE = 11,       /* a session with that id already exists */
  IL_ERR_INTERRUPTED = 12,     /* the run was interrupted (completion events) */
  IL_ERR_PANIC = 13,           /* a bug in the library; the call did not complete */
  IL_ERR_INTERNAL = 14,        /* any other failure; see the last error */
  IL_ERR_STORE = 15            /* the engine's store cannot be opened: in use by another
                                  process, corrupt, another application's file, a newer
                                  schema, or not writable; the last error says which */
};

/* Session status, as returned by il_session_get_status. */
enum {
  IL_STATUS_IDLE = 0,        /* waiting for user input; nothing in flight */
  IL_STATUS_RUNNING = 1,     /* a model turn or a tool is in flight */
  IL_STATUS_INTERRUPTED = 2, /* the last run was stopped mid-way */
  IL_STATUS_PAUSED = 3,      /* blocked on a user answer */
  IL_STATUS_STOPPING = 4,    /* stop requested, run still unwinding */
  IL_STATUS_CLOSED = 5       /* terminal */
};

/*
 * The event callback. json is a UTF-8 JSON array of one or more events, in
 * engine order, in the engine's wire format (camelCase keys, see
 * il_engine_set_event_callback), of len bytes (followed by a NUL that len
 * does not count): everything that happened since the previous call, so a
 * burst costs a few calls and a lone event comes at once, alone (a burst
 * beyond ~256 KiB comes in consecutive calls of about that size). It is
 * valid only during the call: copy it. Called on a library thread, or on
 * the thread calling il_session_signal, from inside that call, with the
 * events it caused (and any queued before them) when no other call is in
 * progress: one call at a time per engine. The callback must return
 * promptly and must not block on the thread that calls
 * il_engine_set_event_callback or il_engine_close (that would deadlock:
 * both wait for a call in progress).
 *
 * Return 0 when done with the batch. Return IL_EVENTS_HELD to hold it until
 * il_engine_events_done (e.g. once a Node thread-safe function has
 * delivered it on the JS thread; one done per held batch): while two batches
 * are held the next one waits, and meanwhile events queue
 * in the library, where a session's text and tool-progress deltas are
 * merged ("coalesced": how many were merged into the one delivered) and
 * nothing else is dropped, so a slow consumer costs bounded memory. While
 * the engine closes the library does not wait for il_engine_events_done.
 */
typedef int (*il_event_cb)(void *user, const char *json, size_t len);

/* What an event callback returns to hold the next batch (see il_event_cb). */
#define IL_EVENTS_HELD 1

/* One answer of il_sessions_confirm: the fields of il_session_pause_confirm. */
typedef struct il_confirm {
  il_handle session;
  const char *pause_id; /* NULL or "" = the current one */
  int32_t approved;
  const char *reason;   /* may be NULL */
  const char *remember; /* NULL, "once", "session" or "project" */
} il_confirm;

/*
 * The host callback (optional, see il_engine_set_host_callback): one
 * message about work the host does under the engine's control (a call of a
 * tool registered with il_engine_register_tool, an abort, a pause or step
 * answer), a UTF-8 JSON object of len bytes (NUL-terminated), valid only
 * during the call. Called on the library thread that produced the message,
 * at once, not batched and never held behind events. It must return
 * promptly (queue the message) and not call into the library.
 */
typedef void (*il_host_cb)(void *user, const char *json, size_t len);

#ifndef IL_CAPI_TYPES_ONLY /* defined only by the library's own cgo preamble */

/* ------------------------------------------------------------------------ */
/* Library                                                                  */
/* ------------------------------------------------------------------------ */

/* The library version ("0.1.0"). Static: do not free. */
const char *il_version(void);

/* The words shown for each interruption reason, as JSON:
 * {"labels": {"user_stop": "Stopped by you", ...}, "unknown": "Interrupted"}
 * ("unknown": the label of a reason not in the table). Static: do not free. */
const char *il_reason_labels(void);

/* Frees a string returned by the library through a char** out-parameter.
 * NULL is a no-op. */
void il_free(char *p);

/* The name of a status code without the IL_ prefix: "OK",
 * "ERR_NOT_PAUSED", ... ("ERR_UNKNOWN" for values outside the enum). These
 * are also the "code" values of completion events. Static: do not free. */
const char *il_status_name(il_status status);

/*
 * Copies the last error message of handle h (0: calls without a handle or
 * with a handle that did not resolve; an h that is not open also reads
 * slot 0) into buf, which has room for cap bytes. The copy is always
 * NUL-terminated when cap > 0 and is "" when there was no error.
 * needed (may be NULL) receives the size the full message needs, NUL
 * included. Returns IL_OK when it fit, IL_ERR_INVALID_ARGUMENT when buf was
 * too small (buf then holds the truncated prefix; call again with *needed
 * bytes). buf may be NULL when cap is 0, to ask for the size.
 */
il_status il_last_error(il_handle h, char *buf, size_t cap, size_t *needed);

/* The number of open handles (engines, sessions and task loops) in the
 * whole library. After every engine was closed it is 0: a leak check for
 * tests and bindings. */
il_status il_open_handles(int64_t *out_count);

/* ------------------------------------------------------------------------ */
/* Engine                                                                   */
/* ------------------------------------------------------------------------ */

/*
 * Creates an engine. config_json may be NULL or "" for defaults:
 *   {
 *     "workDir": "/path",                default working directory of sessions
 *     "defaultPauseMode": false,         task loops stop after each task
 *     "streamIdleTimeoutMs": 120000,     0 disables the model-stream idle timeout
 *     "bash": {"timeoutMs": N, "graceMs": N,
 *              "policy": {"rule": [{"name": "no-push", "decision": "deny",
 *                          "reason": "...", "program": "git", "subcommand": "push",
 *                          "lock": true}]},   the engine tier's policy rules, in the
 *                                        policy format (docs/policy.md), keys as written
 *              "userPolicy": "/path/policy.toml",
 *              "projectPolicy": {"trustFile": "/path/trusted.json"},
 *              "sandbox": {"mode": "workspace-write|read-only|off",
 *                          "writable": ["/abs/path"], "readable": ["/abs/path"],
 *                          "network": "allow|deny", "required": false,
 *                          "maxProcesses": 4096},
 *              "env": {"include": ["NAME", "GLOB_*"], "exclude": [...]}},
 *     "web":  {"searchUrl": "http://127.0.0.1:8080/search?q={query}",
 *              "autoDevtools": false},
 *     "provider": {...}                  the model of sessions that set none (see
 *                                        il_session_create)
 *   }
 * Keys are camelCase, as in the JS API (the engine's one form of what hosts
 * pass in). Unknown fields are IL_ERR_INVALID_ARGUMENT naming the field. Tools
 * registered: "bash", "web", and the built-ins "sleep" and "ask".
 */
il_status il_engine_create(const char *config_json, il_handle *out_engine);

/*
 * Closes the engine: closes its task loops and sessions (interrupting runs
 * with reason system_stop and waiting until they have unwound), delivers
 * the remaining events (the callback, if registered, is still called during
 * close), then stops calling the callback. On return no callback call is in
 * progress or will happen, and every handle of the engine is closed.
 * It blocks until the runs have unwound (bash: kill grace). Calling it from
 * inside the event callback is IL_ERR_INVALID_ARGUMENT (it would wait for
 * itself); a second close while one is in progress is IL_ERR_CLOSED.
 */
il_status il_engine_close(il_handle engine);

/* Every open session, in creation order: a JSON array of snapshots
 * (see il_session_snapshot). Free with il_free. */
il_status il_engine_sessions(il_handle engine, char **out_json);

/* What the engine runs with: {"tools": [names], "sandbox": [{"tool",
 * "mode", "filesystem", "network", "signals", "tree", "required",
 * "degraded", "warnings"}]}: what confines commands, as in force on this
 * machine. Free with il_free. */
il_status il_engine_info(il_handle engine, char **out_json);

/* Interrupts every proceeding session (reason emergency_stop): runs in
 * flight and task loops running a task; sessions waiting for the user or
 * blocked on a question are not touched. Idempotent. out_json receives
 * {"stopped":[session ids]}. */
il_status il_engine_emergency_stop(il_handle engine, char **out_json);


/* Runtime statistics: {"heap_bytes", "goroutines", "sessions": {status: n},
 * "events_queued", "events_coalesced"}. Free with il_free. */
il_status il_engine_stats(il_handle engine, char **out_json);

/* What the global controls affect: {"proceeding","eligible","needs_input"}.
 * Free with il_free. */
il_status il_engine_counts(il_handle engine, char **out_json);

/* The store's audit log of pause decisions for session (NULL or "" for
 * every session), oldest first: [{"at","session","run","pause","event",
 * "kind","tool","message","answer","reason","by","remember"}]; event is
 * "raised", "answered" or "recovered" (pending when the store's previous
 * owner stopped). [] without a store. Free with il_free. */
il_status il_engine_audit_log(il_handle engine, const char *session, char **out_json);

/* The audit log of the store file at path when no engine holds it (the
 * same JSON as il_engine_audit_log; session NULL or "" for every session):
 * the file is opened, read and closed, and no recovery runs, so the
 * sessions stay as their last owner left them. IL_ERR_STORE when an engine
 * has the store open, when no file is at path, or when it is not a store.
 * Free with il_free. */
il_status il_store_audit_log(const char *path, const char *session, char **out_json);

/* The approvals remembered so as not to ask again, of confirms with a
 * remember key and of the bash tool (key: the command as judged):
 * [{"tool","key","scope","session","root","at"}], scope "session" (of
 * session) or "project" (bound to root). Free with il_free. */
il_status il_engine_grants(il_handle engine, char **out_json);

/* Forgets one of il_engine_grants' approvals, given as listed (JSON with
 * scope, tool, key and session or root): the next such confirm asks again.
 * IL_ERR_INVALID_ARGUMENT when nothing so is remembered. */
il_status il_engine_revoke_grant(il_handle engine, const char *grant_json);

/* SQLite's integrity check of the engine's store, as a JSON string: "ok"
 * when the file is sound. IL_ERR_INVALID_ARGUMENT without a store. Free
 * with il_free. */
il_status il_engine_check_store(il_handle engine, char **out_json);

/* A handle for the open session with id, e.g. one the store brought back:
 * the handle it already has, or a new one. IL_ERR_UNKNOWN_SESSION if none. */
il_status il_engine_session_handle(il_handle engine, const char *id, il_handle *out_session);

/* Continues every session eligible for it, in the background (a session
 * whose resumption may repeat a side effect asks first with a confirm
 * pause); never starts a second run. out_json: {"resumed": [ids],
 * "skipped": {id: reason}}. Free with il_free. */
il_status il_engine_resume_all(il_handle engine, char **out_json);

/* As il_engine_resume_all, for the sessions ids_json names (a JSON array of
 * session ids) alone: what a confirmation listed, never one that became
 * eligible after it was shown. A named session that is gone is skipped as
 * terminal; [] resumes none. Free out_json with il_free. */
il_status il_engine_resume_sessions(il_handle engine, const char *ids_json, char **out_json);

/*
 * Serves the engine's local web UI. config_json (may be NULL):
 *   {"port": 0, "host": "127.0.0.1", "allowRemote": false, "token": ""}
 * (webui.Config) port 0 picks a free port; a non-loopback host needs allowRemote (a
 * warning is printed); an empty token is a random one. out_url receives the
 * address to open, token included (free with il_free); out_server a handle
 * for il_server_close. The server is closed with the engine.
 */
il_status il_engine_serve(il_handle engine, const char *config_json, il_handle *out_server, char **out_url);
/* With "fleet": true it serves the fleet view of the engine's hub (its
 * config's "hub") instead of its own sessions. */

/*
 * Serves the fleet view of a hub, with no engine: the web UI over every
 * host's sessions. config_json as il_engine_serve's, with "hubUrl" the
 * hub's PostgreSQL URL (required). Close it with il_server_close.
 */
il_status il_fleet_serve(const char *config_json, il_handle *out_server, char **out_url);

/* Stops a web UI (its open pages show "disconnected"); runs go on. */
il_status il_server_close(il_handle server);

/*
 * Registers the engine's one event callback (replacing any previous one).
 * cb = NULL unregisters it and waits until no call is in progress: after it
 * returns the old callback is never called again, so its user data may be
 * freed. Calling it from inside the callback is IL_ERR_INVALID_ARGUMENT.
 * Events that happen while no callback is registered are dropped.
 *
 * JSON shapes (each callback gets an array of these objects, each with a "type",
 * keys in camelCase: the engine's wire format, engine/wire.go):
 *  - session events (no "loop"): {"session","version","type","status",
 *    "run"?,"result"?,"pause"?,"answered"?,"answer"?,"answerReason"?,
 *    "remember"?,"by"?,"reason"?,"step","at","monoNs" (CLOCK_MONOTONIC
 *    nanoseconds, a decimal string),"tool"?,"callId"?,"text"?,"coalesced"?,
 *    "code"?,"grant"?};
 *    type is run_started, text, tool_started, tool_progress, tool_finished,
 *    paused, pause_answered, pause_requested, stopping, interrupted,
 *    run_finished, run_failed, closed, warning, granted (a confirm with a
 *    remember key approved by a remembered grant without asking: "tool",
 *    "text" the key, "remember" the grant's scope, "by" "grant") or
 *    grants_changed (what il_engine_grants lists changed: "text" "added" or
 *    "revoked", "grant" {"tool","key","scope","session"?,"root"?,"at"}; the
 *    engine's event, in no session: "session" is "" and "version" 0). A
 *    pause's "rememberScopes" are the scopes its approval may be
 *    remembered with (absent: none). "run" is the run id the change
 *    belongs to; the terminal run events (interrupted, run_finished,
 *    run_failed) carry "result": {"run","status","interruption"?,"error"?}.
 *    Every run started by il_session_prompt, il_session_continue or
 *    il_engine_resume_all ends with exactly one of them.
 *  - task-loop events (have "loop"): {"loop","session","version","type",
 *    "task","title"?,"message"?,"error"?,"pauseMode","at","run"?,"state"?};
 *    type is started, task_begin, task_end, failed, completed, paused,
 *    resumed or pause_mode_changed. "completed" ends il_taskloop_run and
 *    carries its "run" id and the final "state".
 */
il_status il_engine_set_event_callback(il_handle engine, il_event_cb cb, void *user);

/* The consumer is done with the batch its callback held (returned
 * IL_EVENTS_HELD for): the next batch may come. Safe from any thread. */
il_status il_engine_events_done(il_handle engine);

/*
 * Registers cb (NULL unregisters) for the messages about host work
 * (tool_call, host_abort, pause_done, step_done: see il_host_cb): the
 * shortest path from the engine to the host's tools. Without one they come
 * on the event stream, in event order. Returns once no call of the previous
 * callback is in progress; after il_engine_close returns it is never
 * called again.
 */
il_status il_engine_set_host_callback(il_handle engine, il_host_cb cb, void *user);

/* ------------------------------------------------------------------------ */
/* Sessions                                                                 */
/* ------------------------------------------------------------------------ */

/*
 * Creates a session. opts_json may be NULL or "":
 *   {"id": "s1", "workDir": "/path", "env": {"KEY": "value"},
 *    "sandbox": {...as bash.sandbox, for this session's commands},
 *    "tools": ["sleep", ...]  the built-in tools it offers (default: the engine's),
 *    "script": [turns] | "JSON string of turns",
 *    "provider": {"type": "openai", ...}}
 * A script plays model turns (the scripted provider):
 *   [{"text": "...", "toolCalls": [{"name": "bash", "args": {...}}],
 *     "usage": {"input": N, "output": N}, "chunkDelayMs": N,
 *     "hang": false, "error": "..."}]
 * A provider is an OpenAI-compatible Chat Completions server (OpenAI,
 * Ollama, vLLM, llama.cpp, LM Studio, OpenRouter); script and provider
 * exclude each other:
 *   {"type": "openai", "baseUrl": "http://127.0.0.1:11434/v1",
 *    "model": "qwen2.5", "apiKeyEnv": "OPENAI_API_KEY" (read at each
 *    request, never stored; omit for none), "headers": {"K": "v"},
 *    "maxTokens": N, "temperature": 0.2, "system": "...",
 *    "maxRetries": 3, "retryWaitMs": 500}
 * A failed
 * model turn ends the run with a run_failed event whose "code" says why
 * ("rate_limited", "server_error", "unauthorized", "bad_request",
 * "missing_api_key", "connection_failed", "connection_lost",
 * "malformed_stream", "stream_error", "stream_truncated").
 * out_id may be NULL; else it receives the session's id (il_free it), so
 * that a caller that needs it makes one call, not two (il_session_id).
 */
il_status il_session_create(il_handle engine, const char *opts_json, il_handle *out_session, char **out_id);

/* Closes the session (interrupting a run with reason system_stop and
 * waiting for it) and its handle. */
il_status il_session_close(il_handle session);

/* The status (IL_STATUS_*): a handle lookup and an atomic read. */
il_status il_session_get_status(il_handle session, int32_t *out_status);

/* The version: it grows by one at every change of the session. */
il_status il_session_get_version(il_handle session, uint64_t *out_version);

/* The current (oldest pending) pause as JSON {"id","kind","source","tool"?,
 * "message","details"?,"reasons"?,"remember_scopes"?,"step","task"?,"at"},
 * or "null". */
il_status il_session_get_pause_state(il_handle session, char **out_json);

/* A snapshot: {"id","status","version","pause","pauses","interruption",
 * "run_state","eligibility","needs_input"?,"run"?,"step",
 * "tokens":{"input","output"},"model","pause_requested","last_error"?}. */
il_status il_session_snapshot(il_handle session, char **out_json);

/* The run state: "idle", "proceeding", "interrupted", "blocked" (needs
 * input) or "terminal". */
il_status il_session_get_run_state(il_handle session, char **out_state);

/* Whether continue would resume the session: {"eligible":bool,
 * "reason"?:"why not","repeats_side_effect"?:true}. */
il_status il_session_eligibility(il_handle session, char **out_json);

/*
 * Judges a command as the bash tool would in the session: its rules,
 * working directory, files written and remembered grants (as
 * il_host_check, without host work). *out_json: {"decision":
 * "allow|confirm|deny", "reasons": [...]}.
 */
il_status il_session_check(il_handle session, const char *cmd, char **out_json);

/* The history: a JSON array of {"role","text"?,"tool_calls"?,
 * "tool_call_id"?,"is_error"?,"interrupted"?}. */
il_status il_session_history(il_handle session, char **out_json);

/* The session id (e.g. "s1"). */
il_status il_session_id(il_handle session, char **out_id);

/* Answers a continue pause (Enter). pause_id NULL or "" = the current one. */
il_status il_session_pause_resume(il_handle session, const char *pause_id);

/* Answers a confirm pause (Y / N). pause_id NULL or "" = the current one;
 * reason may be NULL; remember is NULL, "once", "session" or "project". */
il_status il_session_pause_confirm(il_handle session, const char *pause_id, int32_t approved,
                                   const char *reason, const char *remember);

/*
 * Answers n confirm pauses of engine's sessions in one call (one crossing
 * for a host that answers many at once), in order, each exactly as
 * il_session_pause_confirm would. out_statuses (n entries) receives each
 * answer's status; out_errors (n entries, may be NULL) receives, for each
 * answer that failed, its message (free with il_free), NULL for the others;
 * a failed answer (IL_ERR_INVALID_HANDLE for a session handle that is not
 * open or not engine's) does not stop the ones after it and sets no last
 * error. The call itself fails, answering nothing, for a bad engine handle
 * or NULL arrays with n > 0.
 */
il_status il_sessions_confirm(il_handle engine, const il_confirm *entries, size_t n, il_status *out_statuses,
                              char **out_errors);

/* Stops the run in flight at once. reason NULL or "" = "user_stop" (the
 * engine's default); else one of
 * user_stop, emergency_stop, server_restart, system_stop, timeout. */
il_status il_session_interrupt(il_handle session, const char *reason);

/* Sends a control signal: "pause" (at the next step boundary), "resume",
 * "cancel" (= interrupt user_stop). */
il_status il_session_signal(il_handle session, const char *signal);

/*
 * Starts a prompt in the background (text must not be NULL). What prevents
 * the run (IL_ERR_RUNNING, IL_ERR_CLOSED) is returned at once; otherwise
 * out_run receives the engine's run id and the run ends with exactly one
 * terminal session event carrying it — also when the run is interrupted
 * or the engine is closed.
 */
il_status il_session_prompt(il_handle session, const char *text, uint64_t *out_run);

/* Continues an interrupted run in the background, like il_session_prompt
 * (IL_ERR_NOT_RESUMABLE when there is nothing to continue). */
il_status il_session_continue(il_handle session, uint64_t *out_run);

/* ------------------------------------------------------------------------ */
/* Work done by the host: its tools and its own agent loop                  */
/* ------------------------------------------------------------------------ */

/*
 * Registers a tool whose code runs in the host (replacing a tool of that
 * name). spec_json: {"description": "...", "parameters": {JSON Schema},
 * "graceMs": 2000} (engine.HostToolSpec). When the model calls it, a host
 * handle is created and the host callback gets {"type": "tool_call",
 * "session", "host": handle, "tool", "callId", "args", "step"} (the engine's
 * engine.HostMessage, as are the messages below); the host answers with il_host_end
 * (and may pause and stream progress meanwhile). On interrupt the callback
 * gets {"type": "host_abort", "session", "host", "reason"}: the host should
 * stop; a call not ended within graceMs is cut off (the run ends
 * interrupted; a later result is discarded and recorded in the history).
 */
il_status il_engine_register_tool(il_handle engine, const char *name, const char *spec_json);

/*
 * The host's approver (engine.Approver): with timeout_ms > 0, a confirm the
 * bash tool is about to put to a person goes first to the host as an
 * "approve" message on the host callback, open work with its approval
 * request; the host ends it (il_host_end) with output "allow", "deny" or
 * "ask". An error, another output or no end within timeout_ms asks the
 * person. timeout_ms <= 0 removes the approver.
 */
il_status il_engine_set_approver(il_handle engine, int64_t timeout_ms);

/*
 * Trusts the policy file of the project dir is in (.interlock/policy.toml
 * in its root), bound to its content: *out gets {"path", "sha256"} (free
 * it with il_free). sha256 is the hash of the content the person was shown
 * (il_engine_review_project_policy): a file that changed since is refused
 * (IL_ERR_INVALID_ARGUMENT, "read it again"); NULL or "" trusts it as it
 * is now. The engine's bash tool must use project policies
 * (bash.projectPolicy in the engine's config).
 */
il_status il_engine_trust_project_policy(il_handle engine, const char *dir, const char *sha256, char **out);

/*
 * What to show a person before they trust the policy file of the project
 * dir is in: *out gets {"path", "sha256", "trusted", "rules": [{"name",
 * "decision", "reason", "matches", "shadow"?}], "error"?}, or null when
 * there is none or project policies are not used (free it with il_free).
 */
il_status il_engine_review_project_policy(il_handle engine, const char *dir, char **out);

/*
 * Marks the session proceeding for a loop the host drives itself (its own
 * model client and tools) and returns a host handle for it. opts_json:
 * {"graceMs": 2000} or NULL. Esc, emergency stop and close interrupt it:
 * the callback gets "host_abort", the status is stopping until
 * il_host_end, and after graceMs the engine ends the run by itself.
 */
il_status il_session_begin(il_handle session, const char *opts_json, il_handle *out_host);

/*
 * Raises a pause for host work and returns at once; the answer arrives as
 * {"type": "pause_done", "session", "host", "request": request, "result":
 * {"answer", "reason"?, "remember"?, "by"?}, "error"?, "code"?}. request is
 * the caller's own number, echoed back. req_json: {"kind":
 * "continue|confirm", "tool", "message", "details", "timeoutMs",
 * "command", "rememberKey", "rememberScopes"} (engine.HostPauseRequest). With "command"
 * (kind confirm), the pause is the bash tool's confirm of that command in
 * the session: empty message and details are filled in (tool: the JS
 * tool's name, "Bash" for a host run), the check's
 * reasons are shown, an approval remembered with scope "session" or
 * "project" becomes a grant the bash tool honours, and a command a deny
 * rule refuses is denied without asking. With "rememberKey" (kind
 * confirm, no command) the engine remembers an approval of that key for
 * the tool: the pause offers "rememberScopes" (default ["session",
 * "project"]), and once approved with one of them the next such confirm
 * is approved without a pause ("by": "grant", a "granted" event).
 */
il_status il_host_pause(il_handle host, uint64_t request, const char *req_json);

/*
 * Judges a command as the bash tool would in the host work's session
 * (its rules, working directory, files written and remembered grants).
 * *out_json: {"decision": "allow|confirm|deny", "reasons": [...]}; a
 * confirm whose findings were all approved before is "allow".
 */
il_status il_host_check(il_handle host, const char *cmd, char **out_json);

/*
 * A step boundary of a host-driven run (not of a tool call), returning at
 * once; the outcome arrives as {"type": "step_done", "session", "host",
 * "request": request, "newStep"?, "error"?, "code"?, "reason"?}. A
 * pause signal requested before it parks the run there (status paused,
 * the engine loop's events) until resumed; an interrupted run gets
 * "error" with code "ERR_INTERRUPTED". Otherwise newStep is the step
 * index the run goes on with.
 */
il_status il_host_step(il_handle host, uint64_t request);

/* Streams a chunk of output of host work (a tool_progress event). */
il_status il_host_progress(il_handle host, const char *text);

/*
 * Ends host work and closes its handle. A tool call: result_json
 * {"output": "...", "isError": false}; *out_json (may be NULL) is "null".
 * A host run: result_json {"error": "..."} or NULL/"{}" for success;
 * *out_json is how the run ended (run_finished, run_failed or, after an
 * interrupt, interrupted): {"status", "interruption"?, "error"?}.
 */
il_status il_host_end(il_handle host, const char *result_json, char **out_json);

/* ------------------------------------------------------------------------ */
/* Task loops                                                               */
/* ------------------------------------------------------------------------ */

/*
 * Creates a task loop and a new session it runs in:
 *   {"tasks": [{"title": "...", "prompt": "...", "script": [turns]}],
 *    "pauseMode": true}   (pauseMode absent = the engine's default)
 * Both handles are closed separately (or with the engine); closing the
 * session stops the loop.
 */
il_status il_taskloop_create(il_handle engine, const char *json, il_handle *out_loop,
                             il_handle *out_session);

/*
 * A new handle to the session's newest task loop: one made with
 * il_taskloop_create or, after a restart, one the store brought back (a
 * loop of prompt tasks); *out_loop = 0 when it has none. Close it with
 * il_taskloop_close (which closes the loop).
 */
il_status il_session_task_loop(il_handle session, il_handle *out_loop);

/* Starts the loop in the background (a loop runs once); it ends with the
 * loop's "completed" event carrying out_run. */
il_status il_taskloop_run(il_handle loop, uint64_t *out_run);

/* Pause mode on (stop after each task) or off (continuous). */
il_status il_taskloop_set_pause_mode(il_handle loop, int32_t on);
il_status il_taskloop_is_pause_mode(il_handle loop, int32_t *out_on);

/* Goes on: releases the loop when it waits between tasks (*out_run = 0);
 * resumes an interrupted loop as a new run of its session (*out_run: its
 * id; IL_ERR_NOT_RESUMABLE with the reason when it cannot be); otherwise
 * does nothing (*out_run = 0). */
il_status il_taskloop_continue(il_handle loop, uint64_t *out_run);
/* Switches to continuous mode and continues. */
il_status il_taskloop_continue_all(il_handle loop);

/* The state: {"id","tasks":[{"index","title","status","error"?}],"current",
 * "pause_mode","paused","completed","failed","done","interrupted","version"};
 * a task's status is "pending", "running", "completed", "failed" or
 * "interrupted". */
il_status il_taskloop_state(il_handle loop, char **out_json);

/* Stops the loop if it runs, waits for it, and closes the handle. */
il_status il_taskloop_close(il_handle loop);

/* ------------------------------------------------------------------------ */
/* Commands                                                                 */
/* ------------------------------------------------------------------------ */

/* Judges a shell command as the bash tool would (before rules and
 * remembered approvals): {"decision":"allow|confirm|deny","reasons":[...]}. */
il_status il_check_command(const char *cmd, char **out_json);

#endif /* IL_CAPI_TYPES_ONLY */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* INTERLOCK_H */
