// Listeners by event type, as Session, TaskLoop and Engine hold them.

import process from 'node:process';

import { listenerArgs } from './args.js';

/**
 * Whether an engine's event stream must parse events of type: some object
 * of the engine has a listener for it or for every event ('event').
 * @param {Record<string, number>} wanted the counts the engine's Listeners keep
 */
export function wants(wanted, type) {
  return wanted[type] > 0 || wanted.event > 0;
}

const itself = (type) => [type];

/** Listeners by event type; 'event' receives every type. A throwing listener
 *  becomes an uncaught exception without stopping the others. */
export class Listeners {
  #byType = null; // type -> Set of listeners, made at the first on()
  #types;
  #owner;
  #wanted;
  #streamTypes;

  /**
   * @param {Set<string>} types the accepted type names (with 'event')
   * @param {string} owner the name in messages ('session')
   * @param {Record<string, number>} [wanted] the engine's listener counts by
   *   stream event type (see wants), kept up to date here
   * @param {(type: string) => string[]} [streamTypes] the stream event types a
   *   listener type needs (default: itself)
   */
  constructor(types, owner, wanted, streamTypes = itself) {
    this.#types = types;
    this.#owner = owner;
    this.#wanted = wanted;
    this.#streamTypes = streamTypes;
  }

  add(type, fn) {
    listenerArgs(this.#types, type, fn, `${this.#owner}.on(type, fn)`);
    this.#byType ??= new Map();
    let set = this.#byType.get(type);
    if (!set) this.#byType.set(type, (set = new Set()));
    if (set.has(fn)) return;
    set.add(fn);
    this.#count(type, 1);
  }

  remove(type, fn) {
    listenerArgs(this.#types, type, fn, `${this.#owner}.off(type, fn)`);
    if (this.#byType?.get(type)?.delete(fn)) this.#count(type, -1);
  }

  /** Forgets every listener (uncounting them): the object gets no more events. */
  release() {
    if (!this.#byType) return;
    for (const [type, set] of this.#byType) this.#count(type, -set.size);
    this.#byType = null;
  }

  #count(type, delta) {
    if (!this.#wanted) return;
    for (const t of this.#streamTypes(type)) this.#wanted[t] = (this.#wanted[t] ?? 0) + delta;
  }

  emit(ev) {
    if (!this.#byType) return;
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
