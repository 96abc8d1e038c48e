// The signal controller of a session: pause / resume / cancel sent with
// signal(), and the signal events onPause / onResume / onCancel / onError
// derived from the session's events (the same mapping as the engine's
// signalOf). Each carries `step`: the 0-based index of the step about to
// run (the engine counts steps done, from 1, which is the same number).

import { kEmit } from './base.js';
import { Listeners } from './listeners.js';

/** Signal events a controller's on() accepts. */
export const SIGNAL_EVENTS = new Set(['onPause', 'onResume', 'onCancel', 'onError']);

/** The session events each signal event is made from (signalEventOf). */
const STREAM_TYPES = { onPause: ['paused'], onResume: ['pause_answered'], onCancel: ['stopping'], onError: ['run_failed'] };

/** The signal event an engine event is, or undefined. */
export function signalEventOf(ev) {
  switch (ev.type) {
    case 'paused':
      return ev.pause?.source === 'signal' ? { type: 'onPause', pause: ev.pause } : undefined;
    case 'pause_answered':
      return ev.answer === 'resumed' && (ev.answered === undefined || ev.answered.source === 'signal') ? { type: 'onResume' } : undefined;
    case 'stopping':
      return { type: 'onCancel', reason: ev.reason };
    case 'run_failed':
      return { type: 'onError', error: new Error(ev.text) };
    default:
      return undefined;
  }
}

/** A session's controller. Get it from session.controller. */
export class SessionController {
  #session;
  #listeners;

  /** wanted: the engine's listener counts (see Listeners). */
  constructor(session, wanted) {
    this.#session = session;
    this.#listeners = new Listeners(SIGNAL_EVENTS, 'controller', wanted, (type) => STREAM_TYPES[type]);
  }

  /** No more events will come. */
  release() {
    this.#listeners.release();
  }

  /** Sends a control signal: 'pause' (at the next step boundary), 'resume', 'cancel'. */
  signal(sig) {
    this.#session.signal(sig);
  }

  on(type, fn) {
    this.#listeners.add(type, fn);
    return this;
  }

  off(type, fn) {
    this.#listeners.remove(type, fn);
    return this;
  }

  /** The session delivers each of its events here. */
  [kEmit](ev) {
    const sig = signalEventOf(ev);
    if (sig) this.#listeners.emit({ ...sig, session: ev.session, step: ev.step, monoNs: ev.monoNs });
  }
}
