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
// ('closed'; of a run end nobody listens to, only its run and result are
// read). The others cost a scan for the newline, and those that change a
// session's pauses a look at its id: <pause>, its current pause
// ("confirm/p3", "-"), is what Session.confirm checks an answer with.

import { fromNative } from './convert.js';
import { wants } from './listeners.js';
import { kEmit, kEnd, kIsClosed, kPauseSeen, kRelease, kRetired, kSettle } from './base.js';
import { ENGINE_EVENTS } from './session.js';

// Terminal run events: they carry the run id and its result.
const RUN_END_EVENTS = new Set(['interrupted', 'run_finished', 'run_failed']);
// Session events after which the current pause may be another.
const PAUSE_CHANGES = new Set(['paused', 'pause_answered']);
// How a session event's JSON starts (capi's encoding: the session first).
const SESSION_PREFIX = '{"session":"';

// The event types of the stream's records by name length: a record's type
// is matched against these constants rather than sliced off the batch (no
// string made, and the Set and listener-count lookups that follow hash
// nothing).
const TYPES_BY_LENGTH = [];
for (const type of ENGINE_EVENTS) {
  if (type !== 'event') (TYPES_BY_LENGTH[type.length] ??= []).push(type);
}

/** The type of the record whose type spans records[at, space), as a constant when it is known. */
function typeAt(records, at, space) {
  const known = TYPES_BY_LENGTH[space - at];
  if (known !== undefined) {
    for (const type of known) if (records.startsWith(type, at)) return type;
  }
  return records.slice(at, space);
}

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

/** Whether c is an ASCII digit's char code. */
const isDigit = (c) => c >= 48 && c <= 57;

/**
 * The end of the JSON value that starts at records[from] with "{", or -1
 * when it does not end before `end`: braces counted outside strings.
 */
function objectEnd(records, from, end) {
  let depth = 0;
  for (let i = from; i < end; i++) {
    const c = records.charCodeAt(i);
    if (c === 34) { // a string: skip it, escapes included
      for (i++; i < end; i++) {
        const d = records.charCodeAt(i);
        if (d === 92) i++;
        else if (d === 34) break;
      }
    } else if (c === 123) {
      depth++;
    } else if (c === 125 && --depth === 0) {
      return i + 1;
    }
  }
  return -1;
}

/**
 * What settling a run needs of a terminal run event nobody listens to,
 * {type, session, run, result}, read off its JSON in records[json, end)
 * without parsing the rest: capi writes session, version, type, status,
 * then "run" and "result" (appendEventJSON). A key at any depth is
 * preceded by `,"` or `{"` and nothing inside a JSON string is (its
 * quotes are escaped), so the first `,"run":` is the event's own.
 * Undefined when the record does not look so: the caller parses it all.
 */
function runEndAt(records, type, json, end) {
  const session = sessionIdAt(records, json, end);
  if (session === undefined) return undefined;
  const key = records.indexOf(',"run":', json);
  if (key < 0 || key > end) return undefined;
  let at = key + 7;
  let run = 0;
  for (; at < end && isDigit(records.charCodeAt(at)); at++) run = run * 10 + records.charCodeAt(at) - 48;
  if (at === key + 7 || !records.startsWith(',"result":{', at)) return undefined;
  const from = at + 10;
  const to = objectEnd(records, from, end);
  if (to < 0) return undefined;
  return { type, session, run, result: JSON.parse(records.slice(from, to)) };
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
      if (space === at + 1 && records.charCodeAt(at) === 42) { // "*"
        let end = records.indexOf('\n', space);
        if (end < 0) end = records.length;
        this.#route(fromNative(records.slice(space + 1, end)));
        at = end + 1;
        continue;
      }
      const type = typeAt(records, at, space);
      const json = records.indexOf(' ', space + 1) + 1;
      let end = records.indexOf('\n', json);
      if (end < 0) end = records.length;
      let ev;
      if (wants(wanted, type) || type === 'closed' || (RUN_END_EVENTS.has(type) && !this.#settleUnheard(records, type, json, end))) {
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

  /**
   * Settles the run of a terminal run event nobody listens to from its run
   * and result alone (runEndAt); false when the record must be parsed.
   */
  #settleUnheard(records, type, json, end) {
    const ev = runEndAt(records, type, json, end);
    if (ev === undefined) return false;
    const s = this.#sessions.get(ev.session);
    if (s !== undefined) {
      s[kSettle](ev);
      this.#retireIfDone(s);
    }
    return true;
  }

  #route(ev) {
    if (this.#host.route(ev)) return;
    if (ev.loop !== undefined) {
      const loop = this.#loops.get(ev.loop);
      loop?.[kEmit](ev);
      if (ev.type === 'completed' || ev.type === 'interrupted') loop?.[kSettle](ev);
      return;
    }
    const s = this.#sessions.get(ev.session);
    if (s !== undefined) {
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
