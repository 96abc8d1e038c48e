// Session: one agent session. Methods forward their arguments as given: the
// addon checks types and counts and throws a TypeError naming the usage
// (see index.d.ts).

import { noExtra } from './args.js';
import { SessionController } from './controller.js';
import { fromNative, toNativeJSON } from './convert.js';
import { argError } from './errors.js';
import { EngineObject, kClosed, kEmit, kEnd, kEndResult, kEndSeen, kEnded, kHandle, kInternal, kIsClosed, kPendingRuns, kRawHandle, kRelease, kRetired, kRunResult, kTrack } from './base.js';
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
  'pause_requested', 'stopping', 'interrupted', 'run_finished', 'run_failed', 'closed', 'warning', 'event',
]);

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

  constructor(token, engine, handle) {
    if (token !== kInternal) throw argError('Session objects come from engine.createSession(opts)', 'ERR_ILLEGAL_CONSTRUCTOR');
    const id = native.sessionId(handle);
    super({
      engine, handle, id, types: SESSION_EVENTS, owner: 'session',
      what: `session ${id}`, instead: 'create a new session', closeNative: native.sessionCloseAsync,
    });
    this.#engine = engine;
  }

  /** The status: one addon call returning the C enum, mapped to a cached name. */
  get status() {
    return this[kIsClosed] ? 'closed' : STATUS_NAMES[native.sessionStatus(this[kRawHandle])];
  }

  get statusCode() {
    return this[kIsClosed] ? CLOSED : native.sessionStatus(this[kRawHandle]);
  }

  get version() {
    return native.sessionVersion(this[kHandle]());
  }

  get pauseState() {
    return this[kIsClosed] ? null : fromNative(native.sessionPauseState(this[kRawHandle]));
  }

  /** The signal controller: signal() and onPause / onResume / onCancel / onError. */
  get controller() {
    this.#controller ??= new SessionController(this, this.#engine[kInternal].wanted);
    return this.#controller;
  }

  /** 'idle' | 'proceeding' | 'interrupted' | 'blocked' | 'terminal' (seed 003). */
  get runState() {
    return this[kIsClosed] ? 'terminal' : native.sessionRunState(this[kRawHandle]);
  }

  /** Whether continue() would resume it: {eligible, reason?, repeatsSideEffect?}. */
  get eligibility() {
    if (this[kIsClosed]) return { eligible: false, reason: 'Session is closed' };
    return fromNative(native.sessionEligibility(this[kRawHandle]));
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
    native.sessionResume(this[kHandle](), ...args);
  }

  confirm(...args) {
    native.sessionConfirm(this[kHandle](), ...args);
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
