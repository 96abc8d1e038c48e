// Session: one agent session. Methods forward their arguments as given: the
// addon checks types and counts and throws a TypeError naming the usage
// (see index.d.ts).

import { noExtra } from './args.js';
import { SessionController } from './controller.js';
import { fromNative, toNativeJSON } from './convert.js';
import { argError } from './errors.js';
import { EngineObject, kClosed, kEmit, kEnd, kEndResult, kEndSeen, kEnded, kHandle, kInternal, kIsClosed, kPauseSeen, kPendingRuns, kRawHandle, kReadHandle, kRelease, kRetired, kRunResult, kTrack } from './base.js';
import { native } from './native.js';
import { fixSignalsBeforeRun } from './signal-guard.js';

/** Status names by C enum value (il_session_get_status). */
export const STATUS_NAMES = Object.freeze(['idle', 'running', 'interrupted', 'paused', 'stopping', 'closed']);
/** C enum values of Status. */
export const StatusCode = Object.freeze(Object.fromEntries(STATUS_NAMES.map((name, code) => [name, code])));
const CLOSED = StatusCode.closed;

/** Event types a Session's on() accepts. */
export const SESSION_EVENTS = new Set([
  'run_started', 'text', 'tool_call_delta', 'tool_started', 'tool_progress', 'tool_finished', 'paused', 'pause_answered',
  'pause_requested', 'stopping', 'interrupted', 'run_finished', 'run_failed', 'closed', 'warning', 'granted', 'event',
]);

/** Event types the engine's on() accepts: every session's, and its own (of no session). */
export const ENGINE_EVENTS = new Set([...SESSION_EVENTS, 'grants_changed']);

const SESSION_KIND = Object.freeze({
  types: SESSION_EVENTS, owner: 'session', noun: 'session', instead: 'create a new session', closeNative: native.sessionCloseAsync,
});

/** One agent session. Get one from engine.createSession(). */
export let isSession;

export class Session extends EngineObject {
  static {
    isSession = (o) => o !== null && typeof o === 'object' && #closedEventSeen in o;
  }

  #closedEventSeen = false;
  #controller;
  // The 'closed' event was delivered (or the stream ended): a promise made
  // only when close() waits for it.
  #closedEvent = null;
  #resolveClosedEvent = null;
  #closedEventDone = false;
  #engine;
  // The session's current pause as the last event about pauses said
  // ("confirm/p3", "-" for none, see the dispatcher), and the id of the
  // last pause this object answered: what confirm() checks without asking
  // the engine.
  #pause = '-';
  #answered = '';
  // The id of the last pause an event showed, kept after one says none is
  // pending ("" before any, or when its id was unreadable).
  #shown = '';

  /** id: when the caller has it already (createSession gets it with the handle). */
  constructor(token, engine, handle, id) {
    if (token !== kInternal) throw argError('Session objects come from engine.createSession(opts)', 'ERR_ILLEGAL_CONSTRUCTOR');
    super(engine, handle, id ?? native.sessionId(handle), SESSION_KIND);
    this.#engine = engine;
  }

  /** The status: one addon call returning the C enum, mapped to a cached name. */
  get status() {
    return this[kIsClosed] ? 'closed' : STATUS_NAMES[native.sessionStatus(this[kReadHandle])];
  }

  get statusCode() {
    return this[kIsClosed] ? CLOSED : native.sessionStatus(this[kReadHandle]);
  }

  get version() {
    return native.sessionVersion(this[kHandle]());
  }

  get pauseState() {
    return this[kIsClosed] ? null : fromNative(native.sessionPauseState(this[kReadHandle]));
  }

  /** The signal controller: signal() and onPause / onResume / onCancel / onError. */
  get controller() {
    this.#controller ??= new SessionController(this, this.#engine[kInternal].wanted);
    return this.#controller;
  }

  /** 'idle' | 'proceeding' | 'interrupted' | 'blocked' | 'terminal' (seed 003). */
  get runState() {
    return this[kIsClosed] ? 'terminal' : native.sessionRunState(this[kReadHandle]);
  }

  /** Whether continue() would resume it: {eligible, reason?, repeatsSideEffect?}. */
  get eligibility() {
    if (this[kIsClosed]) return { eligible: false, reason: 'Session is closed' };
    return fromNative(native.sessionEligibility(this[kReadHandle]));
  }

  snapshot() {
    return fromNative(native.sessionSnapshot(this[kHandle]()));
  }

  history() {
    return fromNative(native.sessionHistory(this[kHandle]()));
  }

  prompt(...args) {
    try {
      fixSignalsBeforeRun(); // a run starts tools: last net for the signal guard
      return this[kTrack](native.sessionPrompt(this[kHandle](), ...args));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  continue(...args) {
    try {
      fixSignalsBeforeRun(); // a run starts tools: last net for the signal guard
      return this[kTrack](native.sessionContinue(this[kHandle](), ...args));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * Marks the session proceeding for the host's own agent loop and returns
   * {signal, step(), pause(opts), check(command), progress(text), end(result?)}:
   * Esc, interrupt() and emergency stop abort signal; await step() before
   * each model turn and tool call (signal('pause') parks there); check()
   * judges a command with the session's bash gate; end() says how the
   * loop ended (nothing: finished; an Error or {error}: failed).
   */
  begin(opts, ...extra) {
    const usage = 'session.begin(opts?: {graceMs?: number})';
    noExtra(extra, usage, '0 to 1 arguments');
    const hooks = this.#engine[kInternal];
    const host = native.sessionBegin(this[kHandle](), toNativeJSON(opts, 'opts', usage));
    hooks.runStarted();
    return hooks.host.begin(host, () => hooks.runEnded());
  }

  resume(...args) {
    const current = this.#pause;
    native.sessionResume(this[kHandle](), ...this.#naming(args, 0, 1));
    this.#answered = args[0] ?? current.slice(current.indexOf('/') + 1);
  }

  /**
   * Answers a confirm pause. When the last event said which confirm pause
   * is current and the arguments are plain, the answer is queued and all
   * answers of the tick are applied in one library call (at the end of the
   * tick, or before any other call of this engine's objects): every error
   * this object can know of (closed, bad arguments, no confirm pause, not
   * the current pause, answered already) is thrown at once through the
   * direct call, as before; one that only the engine can find then (the
   * pause was interrupted meanwhile) becomes a process warning.
   */
  confirm(...args) {
    if (this.#queueConfirm(args)) return;
    const current = this.#pause;
    native.sessionConfirm(this[kHandle](), ...this.#naming(args, 2, 4));
    this.#answered = args[2] ?? current.slice(current.indexOf('/') + 1);
  }

  /**
   * An answer without a pause id answers the pause the last event showed
   * (after one that said none is pending: the last one shown, which then
   * fails), not whatever the engine has by then: a second Y in the same
   * tick, or a Y sent while another client's answer or the event of a new
   * pause is on its way, must not approve a pause nobody here has seen (it
   * throws instead). Before any event about a pause, the engine's current
   * one is answered.
   */
  #naming(args, at, max) {
    // Too many arguments: the addon says so.
    if (args[at] != null || this.#shown === '' || args.length > max) return args;
    const named = [...args];
    named.length = Math.max(named.length, at);
    named[at] = this.#shown;
    return named;
  }

  #queueConfirm(args) {
    const n = args.length;
    if (n < 1 || n > 4 || typeof args[0] !== 'boolean' || this[kIsClosed]) return false;
    const pause = this.#pause;
    if (!pause.startsWith('confirm/')) return false;
    const id = pause.slice(8);
    const [approved, reason, pauseId, remember] = args;
    if (id === this.#answered || (pauseId != null && pauseId !== id)) return false;
    if (reason != null && (typeof reason !== 'string' || reason.includes('\0'))) return false;
    // A remembered approval goes through the direct call: only the engine
    // knows the scopes the pause offers, and a refusal is thrown at once.
    if (remember != null && remember !== 'once') return false;
    this.#answered = id;
    this.#engine[kInternal].queueConfirm({ session: this, handle: this[kRawHandle], pauseId: id, approved, reason, remember });
    return true;
  }

  /** The current pause after an event (the record's token). */
  [kPauseSeen](token) {
    this.#pause = token;
    if (token !== '-') this.#shown = token.includes('/') ? token.slice(token.indexOf('/') + 1) : '';
  }

  interrupt(...args) {
    native.sessionInterrupt(this[kHandle](), ...args);
  }

  signal(...args) {
    native.sessionSignal(this[kHandle](), ...args);
  }

  [kEmit](ev) {
    if (ev.type === 'closed') {
      this.#closedEventSeen = true;
      this[kClosed]();
    }
    super[kEmit](ev);
    this.#controller?.[kEmit](ev);
    if (ev.type === 'closed') {
      // Go emits it once the session's close has finished: all unwound.
      this.#settleClosedEvent();
      this[kEnded]();
    }
  }

  /** close() is done once the 'closed' event was delivered (or the stream ended). */
  [kEndSeen]() {
    this.#closedEvent ??= this.#closedEventDone
      ? Promise.resolve()
      : new Promise((resolve) => {
          this.#resolveClosedEvent = resolve;
        });
    return this.#closedEvent;
  }

  [kEnd](why) {
    this.#settleClosedEvent();
    super[kEnd](why);
  }

  [kRelease]() {
    super[kRelease]();
    this.#controller?.release();
  }

  #settleClosedEvent() {
    this.#closedEventDone = true;
    this.#resolveClosedEvent?.();
  }

  /** No more events for it: closed, 'closed' delivered, no run pending. */
  [kRetired]() {
    return this.#closedEventSeen && this[kPendingRuns] === 0;
  }

  /** The result a terminal run event carries; an interrupted run has code ERR_INTERRUPTED. */
  [kRunResult](ev) {
    const res = { ...ev.result };
    if (res.status === 'interrupted') res.code = 'ERR_INTERRUPTED';
    return res;
  }

  [kEndResult](why) {
    return { status: 'closed', error: why, code: 'ERR_CLOSED' };
  }
}
