// Routes the engine's event stream (batches of events from the addon, in
// engine order) to the Session and TaskLoop objects it concerns and to the
// engine's own listeners, and settles each run's promise on its own end
// event: a session's terminal run event, a task loop's completed or interrupted event,
// both carrying the engine's run id.
//
// A batch is one line per event (the library's IL_EVENTS_RECORDS): "<type>
// <pause> <json>" for a session event, already in camelCase, its JSON
// starting with the "session" key, or "* <json>" in the library's
// snake_case for the rest (task-loop events, host messages). A session
// event is parsed only if something needs it: a listener of its type or of
// every event (on any session, controller or the engine), or this module
// (run ends, 'closed'). The others cost a scan for the newline, and those
// that change a session's pauses a look at its id: <pause>, its current
// pause ("confirm/p3", "-"), is what Session.confirm checks an answer with.

import { fromNative } from './convert.js';
import { wants } from './listeners.js';
import { kEmit, kEnd, kIsClosed, kPauseSeen, kRelease, kRetired, kSettle } from './base.js';

// Terminal run events: they carry the run id and its result.
const RUN_END_EVENTS = new Set(['interrupted', 'run_finished', 'run_failed']);
// Session events this module acts on, listened to or not.
const NEEDED = new Set([...RUN_END_EVENTS, 'closed']);
// Session events after which the current pause may be another.
const PAUSE_CHANGES = new Set(['paused', 'pause_answered']);
// How a session event's JSON starts (capi's encoding: the session first).
const SESSION_PREFIX = '{"session":"';

/**
 * The session id of the session event whose JSON spans records[json, end),
 * read off its start without parsing; undefined when it holds an escape.
 */
function sessionIdAt(records, json, end) {
  if (!records.startsWith(SESSION_PREFIX, json)) return undefined;
  const from = json + SESSION_PREFIX.length;
  const quote = records.indexOf('"', from);
  if (quote < 0 || quote > end) return undefined;
  const id = records.slice(from, quote);
  return id.includes('\\') ? undefined : id;
}

/** The routing table of one engine: its sessions and task loops by id. */
export class Dispatcher {
  #sessions = new Map(); // id -> Session (closed ones until the stream ends or the id is reused)
  #loops = new Map(); // id -> TaskLoop
  #engineListeners;
  #onEnded;
  #host;
  #wanted;
  #afterBatch;

  /**
   * @param {import('./listeners.js').Listeners} engineListeners every session event goes here too
   * @param {() => void} onEnded called once the stream ended
   * @param {import('./host.js').HostRouter} host takes the messages about host work
   * @param {Record<string, number>} wanted listeners by event type on this engine's objects (see Listeners)
   * @param {() => void} afterBatch called once a batch was dispatched: the
   *   answers its listeners gave go to the engine then, before the addon
   *   acknowledges the batch (a call into Go that may wait for a Go thread)
   */
  constructor(engineListeners, onEnded, host, wanted, afterBatch) {
    this.#afterBatch = afterBatch;
    this.#wanted = wanted;
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

  /** One batch of events from the addon, as records (undefined: the stream ended). */
  onEvents(records) {
    if (records === undefined) {
      this.#ended();
      return;
    }
    const wanted = this.#wanted;
    for (let at = 0; at < records.length; ) {
      const space = records.indexOf(' ', at);
      const type = records.slice(at, space);
      if (type === '*') {
        let end = records.indexOf('\n', space);
        if (end < 0) end = records.length;
        this.#route(fromNative(records.slice(space + 1, end)));
        at = end + 1;
        continue;
      }
      const json = records.indexOf(' ', space + 1) + 1;
      let end = records.indexOf('\n', json);
      if (end < 0) end = records.length;
      let ev;
      if (NEEDED.has(type) || wants(wanted, type)) {
        ev = JSON.parse(records.slice(json, end));
        ev.monoNs = BigInt(ev.monoNs);
      }
      if (PAUSE_CHANGES.has(type)) {
        const id = ev?.session ?? sessionIdAt(records, json, end) ?? JSON.parse(records.slice(json, end)).session;
        this.#sessions.get(id)?.[kPauseSeen](records.slice(space + 1, json - 1));
      }
      if (ev) this.#route(ev);
      at = end + 1;
    }
    this.#afterBatch();
  }

  #route(ev) {
    if (this.#host.route(ev)) return;
    if (ev.loop !== undefined) {
      const loop = this.#loops.get(ev.loop);
      loop?.[kEmit](ev);
      if (ev.type === 'completed' || ev.type === 'interrupted') loop?.[kSettle](ev);
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
    if (s[kRetired]()) {
      this.#sessions.delete(id);
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
