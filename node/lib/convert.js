// Structured values crossing the addon. What the library returns is the
// engine's wire format (camelCase keys, engine/wire.go): fromNative only
// parses it. What JS passes in takes the JS surface's keys (nativeJSON) for
// host work, serve options and grants; the engine config, session options
// and task loops still go through toNative (camelCase keys become
// snake_case) until the engine takes their camelCase too: their script,
// provider and sandbox JSON is also the store's format. Tool-call arguments
// (`args`) and HTTP headers are the model's or the user's own data and
// cross unchanged.

import { argError } from './errors.js';

/** Keys whose values are user data: never renamed inside (skipped: session ids → reasons;
 *  headers: a provider's HTTP headers; policy: a policy document, in the policy format's keys). */
const OPAQUE = new Set(['args', 'skipped', 'headers', 'policy']);

const toSnakeCache = new Map();

/** workDir -> work_dir. */
function snakeKey(key) {
  let out = toSnakeCache.get(key);
  if (out === undefined) {
    out = key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    toSnakeCache.set(key, out);
  }
  return out;
}

function snakeify(v) {
  if (Array.isArray(v)) return v.map(snakeify);
  if (v === null || typeof v !== 'object') return v;
  const out = {};
  for (const k of Object.keys(v)) out[snakeKey(k)] = OPAQUE.has(k) ? v[k] : snakeify(v[k]);
  return out;
}

/** Parses the library's JSON: the engine's wire format, already the JS surface's shape. */
export function fromNative(json) {
  return JSON.parse(json);
}

/** A JS value (camelCase keys) as the library's JSON (snake_case keys). */
export function toNative(value) {
  return snakeify(value);
}

/**
 * An argument as the library's JSON, which takes the JS surface's keys:
 * undefined/null -> undefined, a string as is, an object as JSON; else TypeError.
 */
export function nativeJSON(value, name, usage) {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || Array.isArray(value)) {
    const type = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
    throw argError(`${usage}: ${name} must be an object or a JSON string, got ${type}`);
  }
  try {
    return JSON.stringify(value);
  } catch (err) {
    throw argError(`${usage}: ${name} cannot be converted to JSON: ${err.message}`, 'ERR_INVALID_ARG_VALUE');
  }
}
