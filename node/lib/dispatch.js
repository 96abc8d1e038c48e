// Routes the engine's event stream (batches of events from the addon, each
// a JSON array in engine order) to the Session and TaskLoop objects it concerns and to the
// engine's own listeners, and settles each run's promise on its own end
// event: a session's terminal run event, a task loop's completed event,
// both carrying the engine's run id.

import { fromNative } from './convert.js';
import { kEmit, kEnd, kRetired, kSettle } from './base.js';

// Terminal run events: they carry the run id and its result.
const RUN_END_EVENTS = new Set(['interrupted', 'run_finished', 'run_failed']);

/** The routing table of one engine: its sessions and task loops by id. */
export class Dispatcher {
  #sessions = new Map(); // id -> Session (closed ones until the stream ends or the id is reused)
  #loops = new Map(); // id -> TaskLoop
  #engineListeners;
  #onEnded;
  #host;

  /**
   * @param {import('./listeners.js').Listeners} engineListeners every session event goes here too
   * @param {() => void} onEnded called once the stream ended
   * @param {import('./host.js').HostRouter} host takes the messages about host work
   */
  constructor(engineListeners, onEnded, host) {
    this.#engineListeners = engineListeners;
    this.#onEnded = onEnded;
    this.#host = host;
  }

  /** Registers a new session; an older one with the same id gets no more events. */
  adoptSession(session) {
    const old = this.#sessions.get(session.id);
    if (old) old[kEnd](`session ${session.id} was closed and its id reused`);
    this.#sessions.set(session.id, session);
    return session;
  }

  adoptLoop(loop) {
    this.#loops.set(loop.id, loop);
    return loop;
  }

  session(id) {
    return this.#sessions.get(id);
  }

  /** Every object still routed to. */
  *objects() {
    yield* this.#sessions.values();
    yield* this.#loops.values();
  }

  /** One batch of events from the addon, a JSON array (undefined: the stream ended). */
  onEvents(json) {
    if (json === undefined) {
      this.#ended();
      return;
    }
    for (const ev of fromNative(json)) this.#route(ev);
  }

  #route(ev) {
    if (this.#host.route(ev)) return;
    if (ev.loop !== undefined) {
      const loop = this.#loops.get(ev.loop);
      loop?.[kEmit](ev);
      if (ev.type === 'completed') loop?.[kSettle](ev);
      return;
    }
    this.#forSession(ev.session, (s) => {
      s[kEmit](ev);
      if (RUN_END_EVENTS.has(ev.type)) s[kSettle](ev);
    });
    this.#engineListeners.emit(ev);
  }

  #forSession(id, fn) {
    const s = this.#sessions.get(id);
    if (!s) return;
    fn(s);
    if (s[kRetired]()) this.#sessions.delete(id);
  }

  /** The last event was delivered (engine closed). */
  #ended() {
    for (const s of this.#sessions.values()) s[kEnd]('engine closed before the run ended');
    for (const l of this.#loops.values()) l[kEnd]('engine closed before the loop ended');
    this.#sessions.clear();
    this.#loops.clear();
    this.#onEnded();
  }
}
