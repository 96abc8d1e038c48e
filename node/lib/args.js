// Argument checks of the JS layer, in one place. The addon checks the
// arguments it receives (types and counts, NUL in strings) and throws a
// TypeError naming the public usage; this module checks what the JS layer
// itself takes (constructor options, ids, listener types) before anything
// reaches the addon.

import { nearestKey } from './config.js';
import { argError } from './errors.js';

/** The JSON-ish type name of v for messages: null, array, object, string, ... */
export function typeName(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** Throws ERR_INVALID_ARG_COUNT when a one-parameter function got extra arguments. */
export function noExtra(extra, usage, expected) {
  if (extra.length > 0) throw argError(`${usage}: expected ${expected}, got ${1 + extra.length}`, 'ERR_INVALID_ARG_COUNT');
}


/** A string argument; TypeError otherwise. */
export function stringArg(value, name, usage) {
  if (typeof value !== 'string') throw argError(`${usage}: ${name} must be a string, got ${typeName(value)}`);
  return value;
}

/** An event type known to types and a listener function. */
export function listenerArgs(types, type, fn, usage) {
  if (typeof type !== 'string' || !types.has(type)) {
    const known = typeof type === 'string';
    const near = known ? nearestKey(type, types) : undefined;
    throw argError(`${usage}: type ${known ? JSON.stringify(type) : `of ${typeName(type)}`} is not an event name: ${near ? `did you mean \`${near}\`?` : `the events are ${[...types].join(', ')}`}`,
      known ? 'ERR_INVALID_ARG_VALUE' : 'ERR_INVALID_ARG_TYPE');
  }
  if (typeof fn !== 'function') throw argError(`${usage}: fn must be a function, got ${typeName(fn)}`);
}

/**
 * A session id: a string without NUL (it would cut the id at the C
 * boundary) and well-formed UTF-16 (a lone surrogate becomes U+FFFD on the
 * way in, and the id could never be found again); else ERR_INVALID_ARG_VALUE.
 */
export function idArg(value, name, usage) {
  stringArg(value, name, usage);
  if (value.includes('\0')) throw argError(`${usage}: ${name} ${JSON.stringify(value)} contains a NUL character: choose an id of printable text`, 'ERR_INVALID_ARG_VALUE');
  if (!value.isWellFormed()) throw argError(`${usage}: ${name} ${JSON.stringify(value)} contains a lone surrogate (not valid Unicode): choose an id of printable text`, 'ERR_INVALID_ARG_VALUE');
  return value;
}

/** The largest millisecond count the engine's durations hold (~292 years). */
export const MAX_MILLIS = 9223372036854;

/** Millisecond fields of EngineConfig, as paths of camelCase keys. */
const CONFIG_MILLIS = [['streamIdleTimeoutMs'], ['bash', 'timeoutMs'], ['bash', 'graceMs']];

/**
 * Checks the numbers of an EngineConfig object: each millisecond field an
 * integer from 0 to MAX_MILLIS; else a RangeError (ERR_OUT_OF_RANGE) naming
 * the field as written. Other fields are the library's to check.
 */
export function engineConfigArg(config, usage) {
  if (typeName(config) !== 'object') return config;
  for (const keys of CONFIG_MILLIS) {
    let v = config;
    for (const k of keys) v = typeName(v) === 'object' ? v[k] : undefined;
    if (v === undefined || v === null || typeof v !== 'number') continue; // absent, or a type the library names
    if (!Number.isInteger(v) || v < 0 || v > MAX_MILLIS) {
      const err = new RangeError(`${usage}: config.${keys.join('.')} must be a whole number of milliseconds from 0 to ${MAX_MILLIS}, got ${v}`);
      err.code = 'ERR_OUT_OF_RANGE';
      throw err;
    }
  }
  return config;
}

/** Session options (checked): an id, when given, must pass idArg. */
export function sessionOptionsArg(opts, usage) {
  if (typeof opts.id === 'string') idArg(opts.id, 'opts.id', usage);
  return opts;
}

/**
 * err, its message naming call when it names none (a use after close says
 * which call it was: "engine.createSession(): engine is closed: ...").
 */
export function inCall(err, call) {
  if (err?.code === 'ERR_CLOSED' && typeof err.message === 'string' && !/^[a-zA-Z]+[.(]/.test(err.message)) err.message = `${call}: ${err.message}`;
  return err;
}

/** The prototypes guardReceivers has guarded. */
const guarded = new WeakSet();

/**
 * Makes every method and accessor of cls check its receiver: called on
 * anything but an instance (a detached method, .call(other)) it throws a
 * TypeError with code ERR_INVALID_THIS naming the usage, instead of a bare
 * TypeError from a private field.
 */
export function guardReceivers(cls, isInstance, owner, label) {
  const proto = cls.prototype;
  guarded.add(proto);
  // The class's own methods and those it inherits from a base that is not
  // guarded itself (Emitter's on, off, ...): guarded copies on the class.
  const keys = new Map();
  for (let p = proto; p && p !== Object.prototype && (p === proto || !guarded.has(p)); p = Object.getPrototypeOf(p)) {
    for (const key of Reflect.ownKeys(p)) if (!keys.has(key)) keys.set(key, p);
  }
  for (const [key, from] of keys) {
    if (key === 'constructor' || typeof key === 'symbol') continue;
    const d = Object.getOwnPropertyDescriptor(from, key);
    const check = (self, what) => {
      if (!isInstance(self)) {
        const err = new TypeError(`${owner}.${what}: called on ${typeName(self)} that is not ${label}: call it on the object, e.g. ${owner}.${what.replace(/^(get|set) /, '')}`);
        err.code = 'ERR_INVALID_THIS';
        throw err;
      }
    };
    if (typeof d.value === 'function') {
      const fn = d.value;
      d.value = {
        [key](...args) {
          check(this, `${key}()`);
          try {
            return fn.apply(this, args);
          } catch (err) {
            throw inCall(err, `${owner}.${key}()`);
          }
        },
      }[key];
    } else {
      if (d.get) {
        const get = d.get;
        d.get = function () {
          check(this, key);
          return get.call(this);
        };
      }
      if (d.set) {
        const set = d.set;
        d.set = function (v) {
          check(this, key);
          set.call(this, v);
        };
      }
    }
    Object.defineProperty(proto, key, d);
  }
}
