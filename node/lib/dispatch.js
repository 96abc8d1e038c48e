// Routes the engine's event stream (batches of events from the addon, in
// engine order) to the Session and TaskLoop objects it concerns and to the
// engine's own listeners, and settles each run's promise on its own end
// event: a session's terminal run event, a task loop's completed or
// interrupted event, both carrying the engine's run id.
//
// A batch is a JSON array in the engine's wire format (engine/wire.go):
// session events, task-loop events (they have "loop") and, without a host
// callback, host messages. It is parsed whole, then each event goes to the
// object its id names.

import { kEmit, kEnd, kIsClosed, kPauseSeen, kRelease, kRetired, kSettle } from './base.js';

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
    if (old) {
      old[kEnd](`session ${session.id} was closed and its id reused`);
      old[kRelease]();
    }
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

  /** The task loops routed to (open ones). */
  *loops() {
    for (const loop of this.#loops.values()) if (!loop[kIsClosed]) yield loop;
  }

  /** Every object still routed to. */
  *objects() {
    yield* this.#sessions.values();
    yield* this.#loops.values();
  }

  /** One batch of events from the addon, a JSON array (undefined: the stream ended). */
  onEvents(batch) {
    if (batch === undefined) {
      this.#ended();
      return;
    }
    for (const ev of JSON.parse(batch)) this.#route(ev);
  }

  #route(ev) {
    if (this.#host.route(ev)) return;
    if (ev.loop !== undefined) {
      const loop = this.#loops.get(ev.loop);
      loop?.[kEmit](ev);
      if (ev.type === 'completed' || ev.type === 'interrupted') loop?.[kSettle](ev);
      return;
    }
    if (typeof ev.monoNs === 'string') ev.monoNs = BigInt(ev.monoNs);
    const s = this.#sessions.get(ev.session);
    if (s !== undefined) {
      if (ev.pause !== undefined) s[kPauseSeen](ev.pause.id);
      s[kEmit](ev);
      if (RUN_END_EVENTS.has(ev.type)) s[kSettle](ev);
      this.#retireIfDone(s);
    }
    this.#engineListeners.emit(ev);
  }

  /** Forgets a session no more events can concern. */
  #retireIfDone(s) {
    if (s[kRetired]()) {
      this.#sessions.delete(s.id);
      s[kRelease]();
    }
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
