// Engine: owns sessions and task loops; one event stream from Go.

import process from 'node:process';

import { engineConfigArg, idArg, noExtra, sessionOptionsArg, typeName } from './args.js';
import { checkObject, ENGINE_CONFIG, SERVE_OPTIONS, SESSION_OPTIONS, TASK_LOOP_OPTIONS } from './config.js';
import { fromNative, nativeJSON } from './convert.js';
import { argError, closedError, InterlockError } from './errors.js';
import { kClosed, kInternal, kRawHandle } from './base.js';
import { Dispatcher } from './dispatch.js';
import { HostRouter } from './host.js';
import { Emitter, kEventsEnd, kListeners, Listeners } from './listeners.js';
import { native } from './native.js';
import { ENGINE_EVENTS, Session } from './session.js';
import { TaskLoop } from './task-loop.js';

// Engines still open are closed at process exit, and closes still in
// progress are waited for, so their tools (bash process groups, browsers) do
// not outlive Node and Go stops calling into JS. No promise can settle
// then: this is the one place that blocks.
const openEngines = new Set();
const closingEngines = new Map(); // engine -> handle
process.on('exit', () => {
  for (const engine of [...openEngines]) {
    try {
      engine[kCloseSync]();
    } catch {
      // exiting anyway
    }
  }
  for (const h of closingEngines.values()) native.engineCloseWait(h);
});

const kCloseSync = Symbol('interlock.closeSync');

/** How many engines are open (internals.openEngines). */
export function openEngineCount() {
  return openEngines.size;
}

/**
 * A copy of opts, a plain object whose values are all strings, numbers,
 * booleans or null, with its JSON; null for anything else (nested values
 * may change without the object changing, so they are converted anew).
 */
function flatOptions(opts, json) {
  try {
    if (typeof opts !== 'object' || opts === null || Object.getPrototypeOf(opts) !== Object.prototype) return null;
    const keys = Object.keys(opts);
    const values = keys.map((k) => opts[k]);
    if (!values.every((v) => v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')) return null;
    return { keys, values, json };
  } catch {
    return null; // a getter or proxy that throws: nothing to reuse
  }
}

/** Whether opts has the keys, in order, and the values of last (flatOptions): its JSON is last's. */
function sameFlatOptions(opts, last) {
  try {
    if (typeof opts !== 'object' || opts === null || Object.getPrototypeOf(opts) !== Object.prototype) return false;
    let i = 0;
    for (const k in opts) {
      if (k !== last.keys[i] || opts[k] !== last.values[i]) return false;
      i++;
    }
    return i === last.keys.length;
  } catch {
    return false; // converted the usual way, which says what failed
  }
}


/** The engine: owns sessions and task loops; one event stream from Go. */
export let isEngine;

export class Engine extends Emitter {
  static {
    isEngine = (o) => o !== null && typeof o === 'object' && #h in o;
  }

  #h;
  #closed = false;
  // Listeners by stream event type on the engine and its objects: the
  // stream parses only the session events somebody listens to.
  #listeners = new Listeners(ENGINE_EVENTS, 'engine');
  #dispatch;
  #host = new HostRouter();
  #pendingRuns = 0;
  #refMode = 'auto'; // 'auto': only pending runs keep the process alive; 'ref': always; 'unref': never
  #refd = false;
  #closing = false; // close() called, the stream has not ended yet
  #resolveClosed;
  #closedPromise = new Promise((resolve) => {
    this.#resolveClosed = resolve;
  });
  // The last createSession options object of plain values and its JSON
  // (see flatOptions): sessions made one after another with options alike
  // (10,000 from one script) convert them once.
  #lastOptions = null;

  constructor(config, ...extra) {
    super();
    const usage = 'new Engine(config?: EngineConfig)';
    noExtra(extra, usage, '0 to 1 arguments');
    const json = config === undefined ? undefined : JSON.stringify(engineConfigArg(checkObject(config, ENGINE_CONFIG, 'config', usage), usage));
    this.#dispatch = new Dispatcher(this.#listeners, () => {
      this.#closed = true;
      this.#closing = false;
      openEngines.delete(this);
      closingEngines.delete(this);
      this.#resolveClosed();
    }, this.#host);
    this.#h = native.engineCreate(json, (batch) => this.#dispatch.onEvents(batch));
    // A JS tool's call comes on a line of its own, not behind event batches.
    const host = this.#host;
    native.engineAttachHost(this.#h, (msg) => host.line(msg));
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
        host: this.#host,
      }),
    });
    // Sessions a store brought back get their wrappers, as created ones do.
    // And their task loops (a loop of prompt tasks is restored), theirs too.
    for (const snap of JSON.parse(native.engineSessions(this.#h))) {
      const session = this.#dispatch.adoptSession(new Session(kInternal, this, native.engineSessionHandle(this.#h, snap.id), snap.id));
      const loop = native.sessionTaskLoop(session[kRawHandle]);
      if (loop) this.#dispatch.adoptLoop(new TaskLoop(kInternal, this, loop, session));
    }
  }

  createSession(opts, ...extra) {
    const usage = 'engine.createSession(opts?: SessionOptions)';
    noExtra(extra, usage, '0 to 1 arguments');
    let json;
    if (opts === undefined) {
      json = undefined;
    } else if (this.#lastOptions !== null && sameFlatOptions(opts, this.#lastOptions)) {
      json = this.#lastOptions.json;
    } else {
      json = JSON.stringify(sessionOptionsArg(checkObject(opts, SESSION_OPTIONS, 'opts', usage), usage));
      this.#lastOptions = flatOptions(opts, json);
    }
    const [h, id] = native.sessionCreate(this.#handle(), json);
    return this.#dispatch.adoptSession(new Session(kInternal, this, h, id));
  }

  /** The session with id created through this engine. */
  session(id, ...extra) {
    const usage = 'engine.session(id: string)';
    noExtra(extra, usage, '1 argument');
    idArg(id, 'id', usage);
    this.#handle();
    const s = this.#dispatch.session(id);
    if (!s || s.status === 'closed') throw new InterlockError(`${usage}: no open session has id ${JSON.stringify(id)}: use an id engine.sessions() lists`, 'ERR_UNKNOWN_SESSION');
    return s;
  }

  /** Snapshots of every open session, in creation order (one call; the library writes the JS keys). */
  sessions(...args) {
    return JSON.parse(native.engineSessions(this.#handle(), ...args));
  }

  /** What the engine runs with: its tools and, per tool that runs commands, the sandbox in force. */
  info(...args) {
    return fromNative(native.engineInfo(this.#handle(), ...args));
  }

  createTaskLoop(opts, ...extra) {
    const usage = 'engine.createTaskLoop(opts: {tasks: TaskSpec[], pauseMode?: boolean})';
    noExtra(extra, usage, '1 argument');
    const checked = checkObject(opts, TASK_LOOP_OPTIONS, 'opts', usage);
    const json = JSON.stringify(checked);
    const [loopH, sessionH] = native.taskLoopCreate(this.#handle(), json);
    const session = this.#dispatch.adoptSession(new Session(kInternal, this, sessionH));
    return this.#dispatch.adoptLoop(new TaskLoop(kInternal, this, loopH, session));
  }

  /** The task loops: those created, and those a store brought back (loops of prompt tasks), oldest first. */
  taskLoops(...extra) {
    noExtra(extra, 'engine.taskLoops()', 'no arguments');
    this.#handle();
    return [...this.#dispatch.loops()];
  }

  /**
   * Registers a tool written in JS: run(args, ctx) is called when the model
   * calls it; ctx has signal (aborted on interrupt), pause(opts) (a real
   * engine pause), progress(text), sessionId, callId, step.
   */
  registerTool(name, tool, ...extra) {
    const usage = 'engine.registerTool(name: string, tool: {description?: string, parameters?: object, run: (args, ctx) => unknown, graceMs?: number})';
    noExtra(extra, usage, '2 arguments');
    this.#host.register(this.#handle(), name, tool, usage);
    return this;
  }

  /**
   * Trusts the policy file of the project dir is in (.interlock/policy.toml),
   * bound to its content: a change makes it untrusted again. opts.sha256 is
   * the hash of the content the person was shown (reviewProjectPolicy): a
   * file that changed since is refused; without it, it is trusted as it is
   * now. Returns {path, sha256}. The engine's config must set bash.projectPolicy.
   */
  trustProjectPolicy(dir, opts, ...extra) {
    const usage = 'engine.trustProjectPolicy(dir: string, opts?: {sha256?: string})';
    noExtra(extra, usage, '2 arguments');
    if (typeof dir !== 'string') throw argError(`${usage}: dir must be a string, got ${typeof dir}`);
    const { sha256 = '' } = opts === undefined ? {} : checkObject(opts, { sha256: 'string' }, 'opts', usage);
    return fromNative(native.engineTrustProjectPolicy(this.#handle(), dir, sha256));
  }

  /**
   * What to show a person before they trust the policy file of the project
   * dir is in: {path, sha256, trusted, rules: [{name, decision, reason,
   * matches}], error?}, or null when there is none (or bash.projectPolicy is
   * not set). Trust it with trustProjectPolicy(dir, {sha256}).
   */
  reviewProjectPolicy(dir, ...extra) {
    const usage = 'engine.reviewProjectPolicy(dir: string)';
    noExtra(extra, usage, '1 argument');
    if (typeof dir !== 'string') throw argError(`${usage}: dir must be a string, got ${typeof dir}`);
    return fromNative(native.engineReviewProjectPolicy(this.#handle(), dir));
  }

  /**
   * The approver: asked before a person about each command the gate would
   * ask about, with {session, dir, tool, command, reasons, rules}; it returns
   * (or resolves to) 'allow', 'deny' or 'ask'. A throw, another answer or no
   * answer within opts.timeoutMs (default 10000) asks the person. null
   * removes it.
   */
  setApprover(approver, opts, ...extra) {
    noExtra(extra, 'engine.setApprover(approver, opts?)', '2 arguments');
    this.#host.setApprover(this.#handle(), approver, opts);
    return this;
  }

  /**
   * Runtime statistics: the Go heap, goroutines, open sessions by status,
   * events queued for JS, deltas merged (coalesced) and event batches the
   * addon dropped (process-wide; only out of memory or at environment teardown).
   */
  stats(...args) {
    const st = fromNative(native.engineStats(this.#handle(), ...args));
    st.eventsDropped = native.debugCounters().droppedBatches;
    return st;
  }

  /** Stops every proceeding session (reason emergency_stop), a call running
   *  beside a pending question included; idle sessions and those only waiting
   *  for an answer are not touched. Returns {stopped: [session ids]} once the
   *  cut commands' process trees are gone. */
  emergencyStop(...args) {
    return fromNative(native.engineEmergencyStop(this.#handle(), ...args));
  }

  /**
   * Continues every eligible session, or with ids those of them alone (what
   * a confirmation listed: never one that became eligible since; [] resumes
   * none); returns {resumed: [ids], skipped: {id: reason}}.
   */
  resumeAll(ids, ...extra) {
    const usage = 'engine.resumeAll(ids?: string[])';
    noExtra(extra, usage, '0 to 1 arguments');
    if (ids !== undefined) {
      if (!Array.isArray(ids)) throw argError(`${usage}: ids must be an array of session ids, got ${typeName(ids)}`);
      ids.forEach((id, i) => idArg(id, `ids[${i}]`, usage));
    }
    const h = this.#handle();
    native.fixSignals(); // runs start tools: last net for the signal guard
    return fromNative(ids === undefined ? native.engineResumeAll(h) : native.engineResumeSessions(h, JSON.stringify(ids)));
  }

  /** The store's audit log of pause decisions, of one session or all, oldest first. */
  auditLog(...args) {
    return fromNative(native.engineAuditLog(this.#handle(), ...args));
  }

  /** The approvals remembered for confirms with a rememberKey: every session's own, then the project's. */
  grants(...args) {
    return fromNative(native.engineGrants(this.#handle(), ...args));
  }

  /** Forgets one remembered approval, given as grants() lists it: the next such confirm asks again. */
  revokeGrant(grant, ...extra) {
    const usage = 'engine.revokeGrant(grant: {scope, tool, key, session?, root?})';
    noExtra(extra, usage, '1 argument');
    if (grant === null || typeof grant !== 'object' || Array.isArray(grant)) throw argError(`${usage}: grant must be an object as grants() lists it`);
    native.engineRevokeGrant(this.#handle(), nativeJSON(grant, 'grant', usage));
  }

  /** SQLite's integrity check of the store: 'ok' when the file is sound. */
  checkStore(...args) {
    return fromNative(native.engineCheckStore(this.#handle(), ...args));
  }

  /** What the global controls affect: {proceeding, eligible, needsInput}. */
  counts(...args) {
    return fromNative(native.engineCounts(this.#handle(), ...args));
  }

  /**
   * Serves the local web UI: {url, close}. Loopback and a random token by
   * default; closed with the engine. fleet: true serves the fleet view of
   * the engine's hub (every host's sessions) instead.
   */
  serve(opts, ...extra) {
    const usage = 'engine.serve(opts?: {port?: number, host?: string, allowRemote?: boolean, token?: string, fleet?: boolean})';
    noExtra(extra, usage, '0 to 1 arguments');
    const json = JSON.stringify(opts === undefined ? {} : checkObject(opts, SERVE_OPTIONS, 'opts', usage));
    const [server, url] = native.engineServe(this.#handle(), json);
    let closed = false;
    return Object.freeze({
      url,
      close: () => {
        if (closed || this.#closed) return; // closed with the engine
        closed = true;
        native.serverClose(server);
      },
    });
  }

  get [kListeners]() {
    return this.#listeners;
  }

  get [kEventsEnd]() {
    return this.#closedPromise;
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

  /**
   * Closes every task loop and session (interrupting runs) and the engine,
   * and returns at once (idempotent). The last events are still delivered;
   * `closed` settles when everything has unwound and the stream has ended.
   */
  close() {
    if (this.#closed) return this.#closedPromise;
    this.#closed = true;
    this.#closing = true;
    openEngines.delete(this);
    closingEngines.set(this, this.#h);
    for (const o of this.#dispatch.objects()) o[kClosed]();
    this.#updateRef(); // the stream keeps the process alive until it has ended
    native.engineCloseAsync(this.#h).catch((err) => process.emitWarning(err));
    return this.#closedPromise;
  }

  /** Settles once the engine has closed, everything has unwound and the last event was delivered. Never rejects. */
  get closed() {
    return this.#closedPromise;
  }

  /** Process exit: close and wait on this thread (no promise can settle). */
  [kCloseSync]() {
    if (this.#closed) return;
    this.#closed = true;
    openEngines.delete(this);
    for (const o of this.#dispatch.objects()) o[kClosed]();
    native.engineClose(this.#h);
  }

  #handle() {
    if (this.#closed) throw closedError('engine', 'create a new Engine');
    return this.#h;
  }

  #updateRef() {
    const ref = this.#closing || (!this.#closed && (this.#refMode === 'ref' || (this.#refMode === 'auto' && this.#pendingRuns > 0)));
    if (ref === this.#refd) return;
    this.#refd = ref;
    native.engineRef(this.#h, ref);
  }
}
