// The one place where the library's JSON (snake_case keys) becomes the JS
// surface (camelCase keys) and back. Every structured value crossing the
// addon goes through fromNative or toNativeJSON; nothing else renames keys.
// Tool-call arguments (`args`) and HTTP headers are the model's or the user's
// own data and cross unchanged. The monotonic timestamp `mono_ns` becomes a bigint
// `monoNs`, comparable with process.hrtime.bigint().

import { argError } from './errors.js';

/** Keys whose values are user data: never renamed inside (skipped: session ids → reasons;
 *  headers: a provider's HTTP headers). */
const OPAQUE = new Set(['args', 'skipped', 'headers']);

const toCamelCache = new Map();
const toSnakeCache = new Map();

/** work_dir -> workDir (cached: the same few keys recur in every event). */
export function camelKey(key) {
  let out = toCamelCache.get(key);
  if (out === undefined) {
    out = key.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
    toCamelCache.set(key, out);
  }
  return out;
}

/** workDir -> work_dir. */
export function snakeKey(key) {
  let out = toSnakeCache.get(key);
  if (out === undefined) {
    out = key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    toSnakeCache.set(key, out);
  }
  return out;
}

// Hot: every event from Go goes through here (10,000 parked sessions
// approved at once are ~70,000 objects), so no closures, no key arrays and
// no call for primitive values.
function camelize(v) {
  if (Array.isArray(v)) {
    const out = new Array(v.length);
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      out[i] = typeof x === 'object' && x !== null ? camelize(x) : x;
    }
    return out;
  }
  const out = {};
  for (const k in v) { // JSON.parse makes plain objects: own keys only
    const x = v[k];
    if (k === 'mono_ns') out.monoNs = BigInt(x);
    else out[camelKey(k)] = typeof x === 'object' && x !== null && !OPAQUE.has(k) ? camelize(x) : x;
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

/** Parses the library's JSON into the JS surface's shape (camelCase keys). */
export function fromNative(json) {
  return camelized(JSON.parse(json));
}

/** The library's parsed JSON in the JS surface's shape (camelCase keys). */
export function camelized(v) {
  return typeof v === 'object' && v !== null ? camelize(v) : v;
}

/** A JS value (camelCase keys) as the library's JSON (snake_case keys). */
export function toNative(value) {
  return snakeify(value);
}

/**
 * An options argument as the library's JSON: undefined/null -> undefined, a
 * string as is (already the library's JSON), an object converted; else TypeError.
 */
export function toNativeJSON(value, name, usage) {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || Array.isArray(value)) {
    const type = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
    throw argError(`${usage}: ${name} must be an object or a JSON string, got ${type}`);
  }
  try {
    return JSON.stringify(snakeify(value));
  } catch (err) {
    throw argError(`${usage}: ${name} cannot be converted to JSON: ${err.message}`, 'ERR_INVALID_ARG_VALUE');
  }
}
