// Listeners by event type, as Session, TaskLoop and Engine hold them.

import process from 'node:process';

import { listenerArgs } from './args.js';

/** Listeners by event type; 'event' receives every type. A throwing listener
 *  becomes an uncaught exception without stopping the others. */
export class Listeners {
  #byType = new Map();
  #types;
  #owner;

  /** types: the accepted type names (with 'event'); owner: the name in messages ('session'). */
  constructor(types, owner) {
    this.#types = types;
    this.#owner = owner;
  }

  add(type, fn) {
    listenerArgs(this.#types, type, fn, `${this.#owner}.on(type, fn)`);
    let set = this.#byType.get(type);
    if (!set) this.#byType.set(type, (set = new Set()));
    set.add(fn);
  }

  remove(type, fn) {
    listenerArgs(this.#types, type, fn, `${this.#owner}.off(type, fn)`);
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
