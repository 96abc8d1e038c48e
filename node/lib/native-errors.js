// The library's errors in the JS user's terms. The addon builds every error
// the library returns with NativeError (native.init): its message names the
// C function ("il_session_prompt: session s1 (running): session is
// running"); here it becomes the JS call, the library's detail and what to
// do ("session.prompt(text): session s1 is running: wait for the run's
// promise, or stop it with session.interrupt()").

import { InterlockError } from './errors.js';

/** The JS call of each library function that JS reaches. */
const CALLS = {
  il_engine_create: 'new Engine(config)',
  il_engine_close: 'engine.close()',
  il_engine_stats: 'engine.stats()',
  il_engine_sessions: 'engine.sessions()',
  il_engine_info: 'engine.info()',
  il_engine_emergency_stop: 'engine.emergencyStop()',
  il_engine_register_tool: 'engine.registerTool(name, tool)',
  il_engine_audit_log: 'engine.auditLog(session?)',
  il_engine_grants: 'engine.grants()',
  il_engine_revoke_grant: 'engine.revokeGrant(grant)',
  il_engine_check_store: 'engine.checkStore()',
  il_engine_session_handle: 'engine.session(id)',
  il_engine_serve: 'engine.serve(opts)',
  il_engine_counts: 'engine.counts()',
  il_engine_resume_all: 'engine.resumeAll()',
  il_engine_resume_sessions: 'engine.resumeAll(ids)',
  il_server_close: 'webUI.close()',
  il_fleet_serve: 'agent-interlock hub',
  il_session_create: 'engine.createSession(opts)',
  il_session_close: 'session.close()',
  il_session_get_status: 'session.status',
  il_session_get_version: 'session.version',
  il_session_get_pause_state: 'session.pauseState',
  il_session_snapshot: 'session.snapshot()',
  il_session_history: 'session.history()',
  il_session_id: 'session.id',
  il_session_pause_resume: 'session.resume(pauseId?)',
  il_session_pause_confirm: 'session.confirm(approved, options?)',
  il_sessions_confirm: 'session.confirm(approved, options?)',
  il_session_interrupt: 'session.interrupt(reason?)',
  il_session_signal: 'session.signal(sig)',
  il_session_get_run_state: 'session.runState',
  il_session_eligibility: 'session.eligibility',
  il_session_check: 'session.check(command)',
  il_session_prompt: 'session.prompt(text)',
  il_session_continue: 'session.continue()',
  il_session_begin: 'session.begin(opts?)',
  il_host_pause: 'ctx.pause(req)',
  il_host_check: 'ctx.check(command)',
  il_host_step: 'run.step()',
  il_host_progress: 'ctx.progress(text)',
  il_host_end: 'run.end(result?)',
  il_taskloop_create: 'engine.createTaskLoop(opts)',
  il_session_task_loop: 'engine.taskLoops()',
  il_taskloop_run: 'taskLoop.run()',
  il_taskloop_set_pause_mode: 'taskLoop.setPauseMode(on)',
  il_taskloop_is_pause_mode: 'taskLoop.isPauseMode()',
  il_taskloop_continue: 'taskLoop.continue()',
  il_taskloop_continue_all: 'taskLoop.continueAll()',
  il_taskloop_state: 'taskLoop.state()',
  il_taskloop_close: 'taskLoop.close()',
};

/** What to do, by code, when the library's message does not say. */
const ADVICE = {
  ERR_RUNNING: 'wait for the run (await its promise) or stop it with session.interrupt()',
  ERR_NOT_PAUSED: "nothing is waiting for an answer: answer in a 'paused' listener, or check session.pauseState first",
  ERR_UNKNOWN_PAUSE: 'answer the pause session.pauseState shows (its id), or omit pauseId',
  ERR_WRONG_PAUSE_KIND: "a 'continue' pause takes session.resume(), a 'confirm' pause session.confirm(approved)",
  ERR_NOT_RESUMABLE: 'see session.eligibility for why; send a new prompt() instead',
  ERR_NOT_RUNNING: 'start a run first with session.prompt(text)',
  ERR_UNKNOWN_SESSION: 'use an id engine.sessions() lists',
  ERR_CLOSED: 'create a new one',
};

// Words of the library's messages that are its own, not the JS API's.
const REWRITES = [
  [/ \((?:[a-z]+ \/ )?With[A-Z]\w*\)/g, ''],          // "(model / WithModel)"
  [/\bengine\.With[A-Z]\w*/g, 'the config'],
  [/\bWith[A-Z]\w*/g, 'the config'],
  [/\bneither a prompt nor a func\b/g, 'no prompt'],
  [/\binvalid openai provider configuration\b/g, 'invalid provider'],
];
/** Go types by the JS type a user passes. */
const JS_TYPES = { string: 'a string', bool: 'true or false', int: 'a number', int64: 'a number', float64: 'a number', uint64: 'a number', '[]string': 'an array of strings' };

/** The library's message in JS terms. */
export function jsMessage(message, code) {
  let call;
  let rest = message;
  const m = /^(il_[a-z_]+): /.exec(message);
  if (m) {
    call = CALLS[m[1]] ?? 'interlock';
    rest = message.slice(m[0].length);
  }
  rest = rest.replace(/^(?:invalid argument|engine config|session options|task loop): /, '');
  // "session s7 (running): session is running" -> "session s7 is running"
  rest = rest.replace(/^session (\S+) \([a-z]+\): session is /, 'session $1 is ');
  rest = rest.replace(/^session (\S+): session is /, 'session $1 is ');
  rest = rest.replace(/\bjson: unknown field "(\w+)"/g, 'unknown field $1');
  rest = rest.replace(/\bjson: cannot unmarshal (\w+) into Go (?:struct field|value) (?:[\w.]+\.)?(\w+)? ?of type ([\w.[\]*]+)/g,
    (_, got, field, want) => `${field ? `${field} ` : ''}must be ${JS_TYPES[want] ?? want}, got ${got === 'array' ? 'an array' : `a ${got}`}`);
  rest = rest.replace(/: fix the JSON \(see interlock\.h for the fields\)/g, '');
  rest = rest.replace(/ \(see interlock\.h[^)]*\)/g, '');
  // Quoted text is the user's own (ids, commands): left as it is.
  rest = rest.split(/("(?:[^"\\]|\\.)*")/).map((part, i) => {
    if (i % 2 === 1) return part;
    for (const [re, to] of REWRITES) part = part.replace(re, to);
    return part;
  }).join('');
  const advice = ADVICE[code];
  const out = call ? `${call}: ${rest}` : rest;
  return advice && !/: (?:use|pass|set|create|call|wait|choose|send|see|answer)\b/.test(rest) ? `${out}: ${advice}` : out;
}

/** The error class the addon builds library errors with. */
export class NativeError {
  constructor(message, code) {
    return new InterlockError(jsMessage(message, code), code);
  }
}
