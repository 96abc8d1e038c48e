// Listeners by event type, as Session, TaskLoop and Engine hold them.

import process from 'node:process';

import { listenerArgs } from './args.js';

/** Listeners by event type; 'event' receives every type. A throwing listener
 *  becomes an uncaught exception without stopping the others. */
export class Listeners {
  #byType = null; // type -> a listener, or a Set of them when more than one; made at the first on()
  #types;
  #owner;

  /**
   * @param {Set<string>} types the accepted type names (with 'event')
   * @param {string} owner the name in messages ('session')
   */
  constructor(types, owner) {
    this.#types = types;
    this.#owner = owner;
  }

  add(type, fn) {
    listenerArgs(this.#types, type, fn, `${this.#owner}.on(type, fn)`);
    this.#byType ??= new Map();
    const had = this.#byType.get(type);
    if (had === fn || (had instanceof Set && had.has(fn))) return;
    if (had === undefined) this.#byType.set(type, fn); // one listener: no Set (10,000 sessions with one each)
    else if (had instanceof Set) had.add(fn);
    else this.#byType.set(type, new Set([had, fn]));
  }

  /** Adds fn for the next event of type only (as EventEmitter's once). */
  once(type, fn) {
    listenerArgs(this.#types, type, fn, `${this.#owner}.once(type, fn)`);
    const wrapper = (ev) => {
      this.remove(type, wrapper);
      fn(ev);
    };
    wrapper.listener = fn; // off(type, fn) finds it
    this.add(type, wrapper);
  }

  remove(type, fn) {
    listenerArgs(this.#types, type, fn, `${this.#owner}.off(type, fn)`);
    const had = this.#byType?.get(type);
    if (had === fn || had?.listener === fn) {
      this.#byType.delete(type);
    } else if (had instanceof Set) {
      const found = had.has(fn) ? fn : [...had].find((w) => w.listener === fn);
      if (found === undefined) return;
      had.delete(found);
    }
  }

  /** Forgets every listener: the object gets no more events. */
  release() {
    this.#byType = null;
  }

  emit(ev) {
    if (!this.#byType) return;
    this.#call(this.#byType.get(ev.type), ev);
    this.#call(this.#byType?.get('event'), ev);
  }

  #call(had, ev) {
    if (had === undefined) return;
    if (!(had instanceof Set)) {
      callOne(had, ev); // one listener: no array (10,000 sessions with one each)
      return;
    }
    for (const fn of [...had]) callOne(fn, ev);
  }
}

/**
 * An async iterator of every event of emitter (a Session, TaskLoop or
 * Engine), in order, from now until `ended` settles (the object closed and
 * its last event was delivered) or the loop breaks. Events that come while
 * the loop body runs wait in a queue.
 */
function eventIterator(emitter, ended) {
  const queue = [];
  let wake = null;
  let done = false;
  const on = (ev) => {
    if (done) return;
    queue.push(ev);
    if (wake) {
      const w = wake;
      wake = null;
      w();
    }
  };
  const finish = () => {
    done = true;
    emitter.off('event', on);
  };
  emitter.on('event', on);
  ended.then(() => {
    if (done) return;
    finish();
    if (wake) wake();
  });
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      while (queue.length === 0 && !done) await new Promise((resolve) => (wake = resolve));
      if (queue.length > 0) return { value: queue.shift(), done: false };
      return { value: undefined, done: true };
    },
    async return() {
      finish();
      queue.length = 0;
      if (wake) wake();
      return { value: undefined, done: true };
    },
  };
}

/** The Listeners of an Emitter. */
export const kListeners = Symbol('interlock.listeners');
/** A promise settled once an Emitter's last event was delivered. */
export const kEventsEnd = Symbol('interlock.eventsEnd');

/**
 * What Engine, Session and TaskLoop share as event emitters: on, off, once,
 * removeListener (events.once and events.on call it) and events() for
 * `for await`. A subclass provides this[kListeners] and this[kEventsEnd].
 */
export class Emitter {
  on(type, fn) {
    this[kListeners].add(type, fn);
    return this;
  }

  off(type, fn) {
    this[kListeners].remove(type, fn);
    return this;
  }

  once(type, fn) {
    this[kListeners].once(type, fn);
    return this;
  }

  /** EventEmitter's name for off(): events.once and events.on call it. */
  removeListener(type, fn) {
    return this.off(type, fn);
  }

  /** Every event from now on, for `for await`; it ends once the object has closed and its last event was delivered. */
  events() {
    return eventIterator(this, this[kEventsEnd]);
  }
}

/** Calls fn(ev); what it throws becomes an uncaught exception, after the others ran. */
function callOne(fn, ev) {
  try {
    fn(ev);
  } catch (err) {
    process.nextTick(() => {
      throw err;
    });
  }
}
