// Argument checks of the JS layer, in one place. The addon checks the
// arguments it receives (types and counts, NUL in strings) and throws a
// TypeError naming the public usage; this module checks what the JS layer
// itself takes (constructor options, ids, listener types) before anything
// reaches the addon.

import { toNativeJSON } from './convert.js';
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
    throw argError(`${usage}: type must be one of ${[...types].join(', ')}; got ${known ? JSON.stringify(type) : typeName(type)}`,
      known ? 'ERR_INVALID_ARG_VALUE' : 'ERR_INVALID_ARG_TYPE');
  }
  if (typeof fn !== 'function') throw argError(`${usage}: fn must be a function, got ${typeName(fn)}`);
}

/** The options of engine.createTaskLoop as the library's JSON. */
export function taskLoopOptions(opts, usage) {
  if (typeName(opts) !== 'object') throw argError(`${usage}: opts must be an object, got ${typeName(opts)}`);
  if (!Array.isArray(opts.tasks)) throw argError(`${usage}: opts.tasks must be an array, got ${typeName(opts.tasks)}`);
  if (opts.pauseMode !== undefined && typeof opts.pauseMode !== 'boolean') {
    throw argError(`${usage}: opts.pauseMode must be a boolean, got ${typeName(opts.pauseMode)}`);
  }
  return toNativeJSON(opts, 'opts', usage); // other fields go through: the library rejects unknown ones
}
