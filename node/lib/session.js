// Session: one agent session. Methods forward their arguments as given: the
// addon checks types and counts and throws a TypeError naming the usage
// (see index.d.ts).

import { noExtra } from './args.js';
import { SIGNAL_EVENTS, signalEventOf } from './signals.js';
import { checkObject, CONFIRM_OPTIONS, HOST_RUN_OPTIONS } from './config.js';
import { fromNative } from './convert.js';
import { argError } from './errors.js';
import { inCall, typeName } from './args.js';
import { EngineObject, kClosed, kEmit, kEnd, kEndResult, kEndSeen, kEnded, kHandle, kInternal, kIsClosed, kPauseSeen, kPendingRuns, kRawHandle, kReadHandle, kRelease, kRetired, kRunResult, kTrack } from './base.js';
import { native } from './native.js';
import { runResult } from './results.js';
import { fixSignalsBeforeRun } from './signal-guard.js';

/** Status names by the library's status number. */
const STATUS_NAMES = Object.freeze(['idle', 'running', 'interrupted', 'paused', 'stopping', 'closed']);

/** Event types a Session's on() accepts. */
export const SESSION_EVENTS = new Set([
  'run_started', 'text', 'tool_call_delta', 'tool_started', 'tool_progress', 'tool_finished', 'paused', 'pause_answered',
  'pause_requested', 'stopping', 'interrupted', 'run_finished', 'run_failed', 'closed', 'warning', 'granted', 'decided', 'event',
  // The control-signal events (pause / resume / cancel of signal(), a failed run), derived from those above.
  ...SIGNAL_EVENTS,
  // Never emitted (failures are thrown or rejected): accepted so that events.once and events.on work.
  'error',
]);

/** Event types the engine's on() accepts: every session's, and its own (of no session). */
export const ENGINE_EVENTS = new Set([...SESSION_EVENTS, 'grants_changed'].filter((t) => !SIGNAL_EVENTS.includes(t)));

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
  // The 'closed' event was delivered (or the stream ended): a promise made
  // only when close() waits for it.
  #closedEvent = null;
  #resolveClosedEvent = null;
  #closedEventDone = false;
  #engine;
  // The id of the last pause an event showed, kept after one says none is
  // pending ("" before any).
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

  get version() {
    return native.sessionVersion(this[kHandle]());
  }

  get pauseState() {
    return this[kIsClosed] ? null : fromNative(native.sessionPauseState(this[kReadHandle]));
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
      return Promise.reject(inCall(err, 'session.prompt(text)'));
    }
  }

  continue(...args) {
    try {
      fixSignalsBeforeRun(); // a run starts tools: last net for the signal guard
      return this[kTrack](native.sessionContinue(this[kHandle](), ...args));
    } catch (err) {
      return Promise.reject(inCall(err, 'session.continue()'));
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
    const host = native.sessionBegin(this[kHandle](), opts === undefined ? undefined : JSON.stringify(checkObject(opts, HOST_RUN_OPTIONS, 'opts', usage)));
    hooks.runStarted();
    return hooks.host.begin(host, () => hooks.runEnded());
  }

  resume(...args) {
    native.sessionResume(this[kHandle](), ...this.#naming(args, 0, 1));
  }

  /**
   * Answers a confirm pause: approved, and options {pauseId, remember,
   * reason}. Without pauseId it answers the pause the last event showed
   * (see #naming). Every failure is thrown, at once.
   */
  confirm(approved, options, ...extra) {
    const usage = "session.confirm(approved: boolean, options?: {pauseId?: string, remember?: 'once' | 'session' | 'project', reason?: string})";
    if (extra.length > 0) throw argError(`${usage}: expected 1 to 2 arguments, got ${2 + extra.length}`, 'ERR_INVALID_ARG_COUNT');
    if (typeof approved !== 'boolean') throw argError(`${usage}: approved must be true or false, got ${typeName(approved)}`);
    const o = options === undefined ? {} : checkObject(options, CONFIRM_OPTIONS, 'options', usage);
    native.sessionConfirm(this[kHandle](), approved, o.reason ?? null, o.pauseId ?? (this.#shown || null), o.remember ?? null);
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

  /** The id of the current pause an event showed. */
  [kPauseSeen](id) {
    this.#shown = id;
  }

  /**
   * Judges a shell command as the bash tool would in this session: its
   * rules, working directory, files written and remembered grants.
   */
  check(...args) {
    return fromNative(native.sessionCheck(this[kHandle](), ...args));
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
    const sig = signalEventOf(ev);
    if (sig !== undefined) super[kEmit]({ ...sig, session: ev.session, step: ev.step, monoNs: ev.monoNs });
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

  #settleClosedEvent() {
    this.#closedEventDone = true;
    this.#resolveClosedEvent?.();
  }

  /** No more events for it: closed, 'closed' delivered, no run pending. */
  [kRetired]() {
    return this.#closedEventSeen && this[kPendingRuns] === 0;
  }

  /**
   * How a run ended, from its terminal event: {outcome, status, text,
   * error?, interruption?, usage, run}. A failed run is 'failed' with its
   * error, never an idle run that looks fine.
   */
  [kRunResult](ev) {
    return runResult(ev.type, ev.result);
  }

  [kEndResult](why) {
    return { outcome: 'interrupted', status: 'closed', text: '', error: { code: 'ERR_CLOSED', message: why }, usage: { input: 0, output: 0 } };
  }
}
