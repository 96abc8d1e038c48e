// TaskLoop: a task loop (tasks run one after another in one session, with a
// pause mode that stops after each task until the user continues).

import { fromNative } from './convert.js';
import { argError } from './errors.js';
import { EngineObject, kEndResult, kHandle, kInternal, kRunResult, kTrack } from './base.js';
import { native } from './native.js';
import { fixSignalsBeforeRun } from './signal-guard.js';

/** Event types a TaskLoop's on() accepts. */
export const TASK_EVENTS = new Set([
  'started', 'task_begin', 'task_end', 'failed', 'completed', 'interrupted', 'paused', 'resumed', 'pause_mode_changed', 'event',
  'error', // never emitted: accepted so that events.once and events.on work
]);

const TASK_LOOP_KIND = Object.freeze({
  types: TASK_EVENTS, owner: 'taskLoop', noun: 'task loop', instead: 'create a new task loop', closeNative: native.taskLoopCloseAsync,
});

/** A task loop and the session it runs in. Get one from engine.createTaskLoop(). */
export let isTaskLoop;

export class TaskLoop extends EngineObject {
  static {
    isTaskLoop = (o) => o !== null && typeof o === 'object' && #session in o;
  }

  #session;

  constructor(token, engine, handle, session) {
    if (token !== kInternal) throw argError('TaskLoop objects come from engine.createTaskLoop(opts)', 'ERR_ILLEGAL_CONSTRUCTOR');
    const id = fromNative(native.taskLoopState(handle)).id;
    super(engine, handle, id, TASK_LOOP_KIND);
    this.#session = session;
  }

  get session() {
    return this.#session;
  }

  state() {
    return fromNative(native.taskLoopState(this[kHandle]()));
  }

  /** Runs the loop; resolves with its state when this run ends (its completed or interrupted event). */
  run(...args) {
    try {
      fixSignalsBeforeRun(); // a run starts tools: last net for the signal guard
      return this[kTrack](native.taskLoopRun(this[kHandle](), ...args));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  setPauseMode(...args) {
    native.taskLoopSetPauseMode(this[kHandle](), ...args);
  }

  isPauseMode(...args) {
    return native.taskLoopIsPauseMode(this[kHandle](), ...args);
  }

  /**
   * Goes on: between tasks, the next task starts (undefined); interrupted,
   * the loop is resumed as a new run of its session and the promise settles
   * on that run's end, like run().
   */
  continue(...args) {
    fixSignalsBeforeRun(); // a resumed run starts tools
    const run = native.taskLoopContinue(this[kHandle](), ...args);
    return run ? this[kTrack](run) : undefined;
  }

  continueAll(...args) {
    native.taskLoopContinueAll(this[kHandle](), ...args);
  }

  /** The final state the loop's completed event carries, with why it stopped early. */
  [kRunResult](ev) {
    const state = { ...ev.state };
    if (ev.error !== undefined) {
      state.error = ev.error;
      if (/^interrupted\b/.test(ev.error)) state.code = 'ERR_INTERRUPTED';
    }
    return state;
  }

  [kEndResult](why) {
    return {
      id: this.id, tasks: [], current: -1, pauseMode: false, paused: false, completed: 0, failed: 0, done: true, interrupted: false, version: 0,
      error: why, code: 'ERR_CLOSED',
    };
  }
}
