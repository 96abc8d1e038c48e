// Interlock: the typed JS API (index.d.ts) over the native addon
// (native.d.ts). Translation only: the engine decides every state; this file
// converts arguments, routes events to the right object and turns
// completion events into promises.

import { ChildProcess } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import process from 'node:process';

import { loadAddon } from './load.js';

const native = loadAddon();

/** An error from the engine: `code` is the C status name ("ERR_NOT_PAUSED", ...). */
export class InterlockError extends Error {
  constructor(message, code) {
    super(message);
    this.name = 'InterlockError';
    this.code = code;
  }
}
native.init(InterlockError);

/** The library version. */
export const version = native.version();

const STATUS_NAMES = Object.freeze(['idle', 'running', 'interrupted', 'paused', 'stopping', 'closed']);
/** C enum values of Status (il_session_get_status). */
export const StatusCode = Object.freeze(Object.fromEntries(STATUS_NAMES.map((name, code) => [name, code])));
const CLOSED = StatusCode.closed;

const SESSION_EVENTS = new Set([
  'run_started', 'text', 'tool_started', 'tool_progress', 'tool_finished', 'paused', 'pause_answered',
  'pause_requested', 'stopping', 'interrupted', 'run_finished', 'run_failed', 'closed', 'event',
]);
const TASK_EVENTS = new Set([
  'started', 'task_begin', 'task_end', 'failed', 'completed', 'paused', 'resumed', 'pause_mode_changed', 'event',
]);

// ---- Signal guard (see node/src/signals.h) ---------------------------------
// The addon fixed every handler at load and holds a permanent SIGCHLD
// watcher. Node installs more handlers later; re-fix right after:
//  - process.on('SIG...'): Node installs the handler from its own
//    'newListener' listener, which runs before ours. TTY streams listen for
//    SIGWINCH the same way (process.on('SIGWINCH')).
//  - child processes: libuv's SIGCHLD handler is never re-installed thanks
//    to the permanent watcher; re-fixing after spawn costs ~30 µs and also
//    covers handlers installed by anything else in between.
//  - every new engine and every run start, as a last net.
const SIGNALS = new Set(Object.keys(osConstants.signals));
process.on('newListener', (name) => {
  if (typeof name === 'string' && SIGNALS.has(name)) native.fixSignals();
});
{
  const spawn = ChildProcess.prototype.spawn;
  ChildProcess.prototype.spawn = function spawnWithSignalGuard(...args) {
    try {
      return spawn.apply(this, args);
    } finally {
      native.fixSignals();
    }
  };
}

// ---- Helpers ----------------------------------------------------------------

const kInternal = Symbol('interlock.internal');
const kEmit = Symbol('interlock.emit');
const kSettle = Symbol('interlock.settle');
const kEnd = Symbol('interlock.end');
const kClosed = Symbol('interlock.closed');
const kRetired = Symbol('interlock.retired');

function typeName(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** undefined/null -> undefined, a string as is, a plain object as JSON; else TypeError. */
function toJSONArg(value, name, usage) {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeName(value) !== 'object') {
    throw argError(`${usage}: ${name} must be an object or a JSON string, got ${typeName(value)}`);
  }
  try {
    return JSON.stringify(value);
  } catch (err) {
    throw argError(`${usage}: ${name} cannot be converted to JSON: ${err.message}`, 'ERR_INVALID_ARG_VALUE');
  }
}

/** A TypeError for a bad argument, with a code like Node's own:
 *  ERR_INVALID_ARG_TYPE, ERR_INVALID_ARG_VALUE or ERR_INVALID_ARG_COUNT. */
function argError(message, code = 'ERR_INVALID_ARG_TYPE') {
  const err = new TypeError(message);
  err.code = code;
  return err;
}

function closedError(what, instead) {
  return new InterlockError(`${what} is closed: ${instead}`, 'ERR_CLOSED');
}

/** Listeners by event type; 'event' receives every type. A throwing listener
 *  becomes an uncaught exception without stopping the others. */
class Listeners {
  #byType = new Map();
  #types;
  #owner;

  constructor(types, owner) {
    this.#types = types;
    this.#owner = owner;
  }

  check(type, fn, method) {
    const usage = `${this.#owner}.${method}(type, fn)`;
    if (typeof type !== 'string' || !this.#types.has(type)) {
      const known = typeof type === 'string';
      throw argError(`${usage}: type must be one of ${[...this.#types].join(', ')}; got ${known ? JSON.stringify(type) : typeName(type)}`,
        known ? 'ERR_INVALID_ARG_VALUE' : 'ERR_INVALID_ARG_TYPE');
    }
    if (typeof fn !== 'function') throw argError(`${usage}: fn must be a function, got ${typeName(fn)}`);
  }

  add(type, fn) {
    this.check(type, fn, 'on');
    let set = this.#byType.get(type);
    if (!set) this.#byType.set(type, (set = new Set()));
    set.add(fn);
  }

  remove(type, fn) {
    this.check(type, fn, 'off');
    this.#byType.get(type)?.delete(fn);
  }

  emit(ev) {
    for (const type of [ev.type, 'event']) {
      const set = this.#byType.get(type);
      if (!set) continue;
      for (const fn of [...set]) {
        try {
          fn(ev);
        } catch (err) {
          process.nextTick(() => {
            throw err;
          });
        }
      }
    }
  }
}

/** RunResult of a prompt_done event. */
function runResult(ev) {
  const res = { ...ev.result };
  if (ev.error !== undefined) res.error = ev.error;
  if (ev.code !== undefined) res.code = ev.code;
  return res;
}

// Engines still open, closed at process exit so their tools (bash process
// groups, browsers) do not outlive Node and Go stops calling into JS.
const openEngines = new Set();
process.on('exit', () => {
  for (const engine of [...openEngines]) {
    try {
      engine.close();
    } catch {
      // exiting anyway
    }
  }
});

// ---- Session ----------------------------------------------------------------

/** One agent session. Get one from engine.createSession(). */
export class Session {
  #engine;
  #h;
  #id;
  #closed = false;
  #closedEventSeen = false;
  #listeners = new Listeners(SESSION_EVENTS, 'session');
  #runs = new Map(); // run number -> resolve

  constructor(token, engine, handle) {
    if (token !== kInternal) throw argError('Session objects come from engine.createSession(opts)', 'ERR_ILLEGAL_CONSTRUCTOR');
    this.#engine = engine;
    this.#h = handle;
    this.#id = native.sessionId(handle);
  }

  get id() {
    return this.#id;
  }

  /** The status: one addon call returning the C enum, mapped to a cached name. */
  get status() {
    return this.#closed ? 'closed' : STATUS_NAMES[native.sessionStatus(this.#h)];
  }

  get statusCode() {
    return this.#closed ? CLOSED : native.sessionStatus(this.#h);
  }

  get version() {
    return native.sessionVersion(this.#handle());
  }

  get pauseState() {
    return this.#closed ? null : JSON.parse(native.sessionPauseState(this.#h));
  }

  // Methods forward their arguments as given: the addon checks types and
  // counts and throws a TypeError naming the usage (see index.d.ts).

  snapshot() {
    return JSON.parse(native.sessionSnapshot(this.#handle()));
  }

  history() {
    return JSON.parse(native.sessionHistory(this.#handle()));
  }

  prompt(...args) {
    try {
      native.fixSignals(); // a run starts tools: last net for the signal guard
      return this.#track(native.sessionPrompt(this.#handle(), ...args));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  continue(...args) {
    try {
      native.fixSignals(); // a run starts tools: last net for the signal guard
      return this.#track(native.sessionContinue(this.#handle(), ...args));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  resume(...args) {
    native.sessionResume(this.#handle(), ...args);
  }

  confirm(...args) {
    native.sessionConfirm(this.#handle(), ...args);
  }

  interrupt(...args) {
    native.sessionInterrupt(this.#handle(), ...args);
  }

  signal(...args) {
    native.sessionSignal(this.#handle(), ...args);
  }

  on(type, fn) {
    this.#listeners.add(type, fn);
    return this;
  }

  off(type, fn) {
    this.#listeners.remove(type, fn);
    return this;
  }

  /** Closes the session (interrupting a run and waiting for it). Idempotent. */
  close() {
    if (this.#closed) return;
    native.sessionClose(this.#h);
    this.#closed = true;
  }

  #handle() {
    if (this.#closed) throw closedError(`session ${this.#id}`, 'create a new session');
    return this.#h;
  }

  #track(run) {
    return new Promise((resolve) => {
      this.#runs.set(run, resolve);
      this.#engine[kInternal].runStarted();
    });
  }

  [kEmit](ev) {
    if (ev.type === 'closed') this.#closed = this.#closedEventSeen = true;
    this.#listeners.emit(ev);
  }

  /** No more events for it: closed, 'closed' delivered, no run pending. */
  [kRetired]() {
    return this.#closedEventSeen && this.#runs.size === 0;
  }

  [kSettle](ev) {
    const resolve = this.#runs.get(ev.run);
    if (!resolve) return;
    this.#runs.delete(ev.run);
    this.#engine[kInternal].runEnded();
    resolve(runResult(ev));
  }

  [kClosed]() {
    this.#closed = true;
  }

  /** The event stream ended (engine closed): runs still pending end as closed. */
  [kEnd](why) {
    this.#closed = true;
    for (const [run, resolve] of this.#runs) {
      this.#runs.delete(run);
      this.#engine[kInternal].runEnded();
      resolve({ status: 'closed', error: why, code: 'ERR_CLOSED' });
    }
  }
}

// ---- TaskLoop ---------------------------------------------------------------

/** A task loop (seed 001) and the session it runs in. Get one from engine.createTaskLoop(). */
export class TaskLoop {
  #engine;
  #h;
  #id;
  #session;
  #closed = false;
  #listeners = new Listeners(TASK_EVENTS, 'taskLoop');
  #runs = new Map();

  constructor(token, engine, handle, session) {
    if (token !== kInternal) throw argError('TaskLoop objects come from engine.createTaskLoop(opts)', 'ERR_ILLEGAL_CONSTRUCTOR');
    this.#engine = engine;
    this.#h = handle;
    this.#session = session;
    this.#id = JSON.parse(native.taskLoopState(handle)).id;
  }

  get id() {
    return this.#id;
  }

  get session() {
    return this.#session;
  }

  state() {
    return JSON.parse(native.taskLoopState(this.#handle()));
  }

  /** Runs the loop; resolves with the final state when it ends (taskloop_done). */
  run(...args) {
    try {
      native.fixSignals(); // a run starts tools: last net for the signal guard
      const run = native.taskLoopRun(this.#handle(), ...args);
      return new Promise((resolve) => {
        this.#runs.set(run, resolve);
        this.#engine[kInternal].runStarted();
      });
    } catch (err) {
      return Promise.reject(err);
    }
  }

  setPauseMode(...args) {
    native.taskLoopSetPauseMode(this.#handle(), ...args);
  }

  isPauseMode(...args) {
    return native.taskLoopIsPauseMode(this.#handle(), ...args);
  }

  continue(...args) {
    native.taskLoopContinue(this.#handle(), ...args);
  }

  next(...args) {
    native.taskLoopNext(this.#handle(), ...args);
  }

  continueAll(...args) {
    native.taskLoopContinueAll(this.#handle(), ...args);
  }

  on(type, fn) {
    this.#listeners.add(type, fn);
    return this;
  }

  off(type, fn) {
    this.#listeners.remove(type, fn);
    return this;
  }

  /** Stops the loop if it runs and closes it. Its session stays open: close it too. Idempotent. */
  close() {
    if (this.#closed) return;
    native.taskLoopClose(this.#h);
    this.#closed = true;
  }

  #handle() {
    if (this.#closed) throw closedError(`task loop ${this.#id}`, 'create a new task loop');
    return this.#h;
  }

  [kEmit](ev) {
    this.#listeners.emit(ev);
  }

  [kClosed]() {
    this.#closed = true;
  }

  [kSettle](ev) {
    const resolve = this.#runs.get(ev.run);
    if (!resolve) return;
    this.#runs.delete(ev.run);
    this.#engine[kInternal].runEnded();
    const state = { ...ev.state };
    if (ev.error !== undefined) state.error = ev.error;
    if (ev.code !== undefined) state.code = ev.code;
    resolve(state);
  }

  [kEnd](why) {
    this.#closed = true;
    for (const [run, resolve] of this.#runs) {
      this.#runs.delete(run);
      this.#engine[kInternal].runEnded();
      resolve({ ...this.#lastState(), error: why, code: 'ERR_CLOSED' });
    }
  }

  #lastState() {
    return { id: this.#id, tasks: [], current: -1, pause_mode: false, paused: false, completed: 0, failed: 0, done: true, version: 0 };
  }
}

// ---- Engine -----------------------------------------------------------------

/** The engine: owns sessions and task loops; one event stream from Go. */
export class Engine {
  #h;
  #closed = false;
  #sessions = new Map(); // id -> Session (closed ones until the stream ends or the id is reused)
  #loops = new Map(); // id -> TaskLoop
  #listeners = new Listeners(SESSION_EVENTS, 'engine');
  #pendingRuns = 0;
  #refMode = 'auto'; // 'auto': only pending runs keep the process alive; 'ref': always; 'unref': never
  #refd = false;

  constructor(config, ...extra) {
    const usage = 'new Engine(config?: EngineConfig | string)';
    if (extra.length > 0) throw argError(`${usage}: expected 0 to 1 arguments, got ${1 + extra.length}`, 'ERR_INVALID_ARG_COUNT');
    const json = toJSONArg(config, 'config', usage);
    this.#h = native.engineCreate(json, (msg) => this.#onEvent(msg));
    openEngines.add(this);
    native.fixSignals();
    // Internal hooks for Session and TaskLoop (not part of the API).
    Object.defineProperty(this, kInternal, {
      value: Object.freeze({
        runStarted: () => {
          this.#pendingRuns++;
          this.#updateRef();
        },
        runEnded: () => {
          this.#pendingRuns--;
          this.#updateRef();
        },
      }),
    });
  }

  createSession(opts, ...extra) {
    const usage = 'engine.createSession(opts?: SessionOptions | string)';
    if (extra.length > 0) throw argError(`${usage}: expected 0 to 1 arguments, got ${1 + extra.length}`, 'ERR_INVALID_ARG_COUNT');
    const json = toJSONArg(opts, 'opts', usage);
    const h = native.sessionCreate(this.#handle(), json);
    return this.#adopt(new Session(kInternal, this, h));
  }

  /** The session with id created through this engine. */
  session(id, ...extra) {
    const usage = 'engine.session(id: string)';
    if (typeof id !== 'string' || extra.length > 0) {
      if (extra.length > 0) throw argError(`${usage}: expected 1 argument, got ${1 + extra.length}`, 'ERR_INVALID_ARG_COUNT');
      throw argError(`${usage}: id must be a string, got ${typeName(id)}`);
    }
    this.#handle();
    const s = this.#sessions.get(id);
    if (!s || s.status === 'closed') throw new InterlockError(`session ${JSON.stringify(id)}: unknown session`, 'ERR_UNKNOWN_SESSION');
    return s;
  }

  /** Snapshots of every open session, in creation order. */
  sessions(...args) {
    return JSON.parse(native.engineSessions(this.#handle(), ...args));
  }

  createTaskLoop(opts, ...extra) {
    const usage = 'engine.createTaskLoop(opts: {tasks: TaskSpec[], pauseMode?: boolean})';
    if (extra.length > 0) throw argError(`${usage}: expected 1 argument, got ${1 + extra.length}`, 'ERR_INVALID_ARG_COUNT');
    if (typeName(opts) !== 'object') throw argError(`${usage}: opts must be an object, got ${typeName(opts)}`);
    if (!Array.isArray(opts.tasks)) throw argError(`${usage}: opts.tasks must be an array, got ${typeName(opts.tasks)}`);
    if (opts.pauseMode !== undefined && typeof opts.pauseMode !== 'boolean') {
      throw argError(`${usage}: opts.pauseMode must be a boolean, got ${typeName(opts.pauseMode)}`);
    }
    const { pauseMode, ...rest } = opts; // other fields go through: the library rejects unknown ones
    const json = toJSONArg(pauseMode === undefined ? rest : { ...rest, pause_mode: pauseMode }, 'opts', usage);
    const [loopH, sessionH] = native.taskLoopCreate(this.#handle(), json);
    const session = this.#adopt(new Session(kInternal, this, sessionH));
    const loop = new TaskLoop(kInternal, this, loopH, session);
    this.#loops.set(loop.id, loop);
    return loop;
  }

  /** Judges a shell command as the bash tool would (before rules). */
  checkCommand(...args) {
    this.#handle();
    return checkCommand(...args);
  }

  /** Interrupts every running session (reason emergency_stop); returns how many. */
  emergencyStop(...args) {
    return native.engineEmergencyStop(this.#handle(), ...args);
  }

  on(type, fn) {
    this.#listeners.add(type, fn);
    return this;
  }

  off(type, fn) {
    this.#listeners.remove(type, fn);
    return this;
  }

  /** The engine keeps the process alive until close() or unref(), also with no run pending. */
  ref() {
    this.#refMode = 'ref';
    this.#updateRef();
    return this;
  }

  /** The engine never keeps the process alive, not even for pending runs. */
  unref() {
    this.#refMode = 'unref';
    this.#updateRef();
    return this;
  }

  /** Closes every task loop and session (interrupting runs) and the engine. Idempotent. */
  close() {
    if (this.#closed) return;
    this.#closed = true;
    openEngines.delete(this);
    for (const s of this.#sessions.values()) s[kClosed]();
    for (const l of this.#loops.values()) l[kClosed]();
    native.engineClose(this.#h); // delivers the last events, then the stream ends
  }

  #handle() {
    if (this.#closed) throw closedError('engine', 'create a new Engine');
    return this.#h;
  }

  #adopt(session) {
    const old = this.#sessions.get(session.id);
    if (old) old[kEnd](`session ${session.id} was closed and its id reused`);
    this.#sessions.set(session.id, session);
    return session;
  }

  #updateRef() {
    const ref = !this.#closed && (this.#refMode === 'ref' || (this.#refMode === 'auto' && this.#pendingRuns > 0));
    if (ref === this.#refd) return;
    this.#refd = ref;
    native.engineRef(this.#h, ref);
  }

  #onEvent(json) {
    if (json === undefined) {
      this.#ended();
      return;
    }
    const ev = JSON.parse(json);
    switch (ev.type) {
      case 'prompt_done':
        this.#forSession(ev.session, (s) => s[kSettle](ev));
        return;
      case 'taskloop_done':
        this.#loops.get(ev.loop)?.[kSettle](ev);
        return;
    }
    if (ev.loop !== undefined) {
      this.#loops.get(ev.loop)?.[kEmit](ev);
      return;
    }
    this.#forSession(ev.session, (s) => s[kEmit](ev));
    this.#listeners.emit(ev);
  }

  #forSession(id, fn) {
    const s = this.#sessions.get(id);
    if (!s) return;
    fn(s);
    if (s[kRetired]()) this.#sessions.delete(id);
  }

  /** The last event was delivered (engine closed). */
  #ended() {
    for (const s of this.#sessions.values()) s[kEnd]('engine closed before the run ended');
    for (const l of this.#loops.values()) l[kEnd]('engine closed before the loop ended');
    this.#sessions.clear();
    this.#loops.clear();
    this.#closed = true;
    openEngines.delete(this);
  }
}

/** Judges a shell command as the bash tool would (before rules and remembered approvals). */
export function checkCommand(...args) {
  return JSON.parse(native.checkCommand(...args));
}

/**
 * Test and diagnostics hooks: signal handler flags and native counters.
 * Not part of the stable API.
 */
export const internals = Object.freeze({
  fixSignals: () => native.fixSignals(),
  signalReport: () => native.signalReport(),
  counters: () => native.debugCounters(),
  openEngines: () => openEngines.size,
});
