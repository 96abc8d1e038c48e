// What Session and TaskLoop share: the native handle, the closed state, the
// listeners and the runs in flight (each a promise settled by the run's end
// event). Symbol-keyed members are the package's internal protocol between
// these objects and the Engine that routes events to them; they are not API.

import process from 'node:process';

import { closedError } from './errors.js';
import { Emitter, kEventsEnd, kListeners, Listeners } from './listeners.js';

/** The token internal constructors require (objects come from Engine methods). */
export const kInternal = Symbol('interlock.internal');
/** Delivers one event to the object's listeners. */
export const kEmit = Symbol('interlock.emit');
/** Settles the run an end event names. */
export const kSettle = Symbol('interlock.settle');
/** The event stream ended: pending runs end as closed. */
export const kEnd = Symbol('interlock.end');
/** Marks the object closed (its engine closed). */
export const kClosed = Symbol('interlock.closed');
/** Whether no more events can concern the object. */
export const kRetired = Symbol('interlock.retired');
/** The handle of an open object; ERR_CLOSED after close. */
export const kHandle = Symbol('interlock.handle');
/** The handle, also after close (for reads that report 'closed' themselves). */
export const kReadHandle = Symbol('interlock.readHandle');
/** The handle, also after close. */
export const kRawHandle = Symbol('interlock.rawHandle');
/** The id of the current pause an event showed (Session only). */
export const kPauseSeen = Symbol('interlock.pauseSeen');
/** Whether the object is closed. */
export const kIsClosed = Symbol('interlock.isClosed');
/** Tracks a run number: a promise settled by its end event. */
export const kTrack = Symbol('interlock.track');
/** A promise settled once the object's own end (Session: its 'closed' event) was delivered. */
export const kEndSeen = Symbol('interlock.endSeen');
/** Its end was seen without a close() of its own (its engine closed it): `closed` settles. */
export const kEnded = Symbol('interlock.ended');
/** No more events will come for the object (the stream stops counting its listeners). */
export const kRelease = Symbol('interlock.release');
/** Number of runs not yet settled. */
export const kPendingRuns = Symbol('interlock.pendingRuns');
/** The value a run's end event resolves to (subclasses override). */
export const kRunResult = Symbol('interlock.runResult');
/** The value a run pending when the stream ended resolves to (subclasses override). */
export const kEndResult = Symbol('interlock.endResult');

// The executor of every run's promise: it hands its resolve function over
// here (no closure made per run).
let takenResolve = null;
const takeResolve = (resolve) => {
  takenResolve = resolve;
};

/** Whether o is a Session or TaskLoop (set below). */
export let isEngineObject;

/** The base of Session and TaskLoop. */
export class EngineObject extends Emitter {
  static {
    isEngineObject = (o) => o !== null && typeof o === 'object' && #h in o;
  }

  #engine;
  #h;
  #id;
  #kind;
  #closed = false;
  #listeners;
  // The runs in flight: the first in two fields (a session runs one at a
  // time, but the end of one may be delivered after the next started), any
  // other in a map made for it.
  #run = 0;
  #resolveRun = null;
  #moreRuns = null; // run number -> resolve
  // Everything of this object has unwound: a promise made only when asked
  // for (10,000 parked sessions need none).
  #unwound = null;
  #resolveUnwound = null;
  #isUnwound = false;
  #closeTracked = false; // close() counts as a pending run (keeps the process alive) until unwound

  /**
   * @param {object} engine the owning Engine (its kInternal hooks count runs)
   * @param {number} handle the library handle
   * @param {string} id
   * @param {object} kind what every object of the subclass shares, one object for all:
   * @param {Set<string>} kind.types accepted listener types
   * @param {string} kind.owner name in messages ('session')
   * @param {string} kind.noun what it is, in messages ('session': with the id, 'session s1 is closed')
   * @param {string} kind.instead what to do after close, in messages
   * @param {(h: number) => Promise<void>} kind.closeNative closes the handle
   */
  constructor(engine, handle, id, kind) {
    super();
    this.#engine = engine;
    this.#h = handle;
    this.#id = id;
    this.#kind = kind;
    this.#listeners = new Listeners(kind.types, kind.owner);
  }

  get id() {
    return this.#id;
  }

  get [kListeners]() {
    return this.#listeners;
  }

  get [kEventsEnd]() {
    return this.closed;
  }

  /**
   * Closes the object and returns at once (idempotent): a run in flight is
   * interrupted and unwinds in the background (tools are killed, a command
   * ignoring SIGTERM is killed after the grace). `closed` says when it is done.
   */
  close() {
    if (this.#closed) return this.closed;
    this.#closed = true;
    this.#closeTracked = true;
    this.#engine[kInternal].runStarted(); // keeps the process alive until unwound
    const native = this.#kind.closeNative(this.#h).catch((err) => {
      // Closed by its engine meanwhile: that close waited for this one.
      if (err?.code !== 'ERR_INVALID_HANDLE' && err?.code !== 'ERR_CLOSED') throw err;
    });
    Promise.all([native, this[kEndSeen]()]).then(() => this.#settleUnwound(), (err) => this.#settleUnwound(err));
    return this.closed;
  }

  /**
   * Settles once the object has closed and everything has unwound (after
   * close(), or its engine's close). Never rejects: a failure while closing
   * is emitted as a process warning.
   */
  get closed() {
    this.#unwound ??= this.#isUnwound
      ? Promise.resolve()
      : new Promise((resolve) => {
          this.#resolveUnwound = resolve;
        });
    return this.#unwound;
  }

  #settleUnwound(err) {
    if (err) process.emitWarning(err);
    if (this.#closeTracked) {
      this.#closeTracked = false;
      this.#engine[kInternal].runEnded();
    }
    this.#isUnwound = true;
    this.#resolveUnwound?.();
  }

  [kEnded]() {
    if (!this.#closeTracked) this.#settleUnwound();
  }

  /** Default: nothing more to wait for than the native close. */
  [kEndSeen]() {
    return Promise.resolve();
  }

  /** Whether close() ran or the engine closed. */
  get [kIsClosed]() {
    return this.#closed;
  }

  /** The handle, even after close (for getters that report 'closed' themselves). */
  get [kReadHandle]() {
    return this.#h;
  }

  /** The handle, also after close. */
  get [kRawHandle]() {
    return this.#h;
  }

  /** The handle of an open object; ERR_CLOSED after close. */
  [kHandle]() {
    if (this.#closed) throw closedError(`${this.#kind.noun} ${this.#id}`, this.#kind.instead);
    return this.#h;
  }

  /** A promise for run, settled by its end event (kSettle) or the stream's end (kEnd). */
  [kTrack](run) {
    const promise = new Promise(takeResolve);
    if (this.#run === 0) {
      this.#run = run;
      this.#resolveRun = takenResolve;
    } else {
      (this.#moreRuns ??= new Map()).set(run, takenResolve);
    }
    takenResolve = null;
    this.#engine[kInternal].runStarted();
    return promise;
  }

  /** Runs not yet settled. */
  get [kPendingRuns]() {
    return (this.#run === 0 ? 0 : 1) + (this.#moreRuns?.size ?? 0);
  }

  /** The value a run's end event resolves to (subclasses say). */
  [kRunResult](ev) {
    return ev;
  }

  /** The value a run still pending when the stream ended resolves to. */
  [kEndResult](why) {
    return { error: why, code: 'ERR_CLOSED' };
  }

  [kEmit](ev) {
    this.#listeners.emit(ev);
  }

  [kClosed]() {
    this.#closed = true;
  }

  /** No more events will come: its listeners are forgotten. */
  [kRelease]() {
    this.#listeners.release();
  }

  [kSettle](ev) {
    let resolve;
    if (ev.run === this.#run) {
      resolve = this.#resolveRun;
      this.#run = 0;
      this.#resolveRun = null;
    } else {
      resolve = this.#moreRuns?.get(ev.run);
      if (!resolve) return;
      this.#moreRuns.delete(ev.run);
    }
    this.#engine[kInternal].runEnded();
    resolve(this[kRunResult](ev));
  }

  [kEnd](why) {
    this.#closed = true;
    const runs = [...(this.#moreRuns ?? [])];
    if (this.#run !== 0) runs.push([this.#run, this.#resolveRun]);
    this.#run = 0;
    this.#resolveRun = null;
    this.#moreRuns = null;
    for (const [, resolve] of runs.sort((a, b) => a[0] - b[0])) {
      this.#engine[kInternal].runEnded();
      resolve(this[kEndResult](why));
    }
    // The stream ended: the engine has closed, everything has unwound.
    this.#settleUnwound();
  }
}
