// Structured values crossing the addon. What the library returns is the
// engine's wire format (camelCase keys, engine/wire.go): fromNative only
// parses it. What JS passes in is JSON of the JS surface's keys, as the
// user wrote them: the engine takes camelCase (its JSON tags).

import { argError } from './errors.js';

/** Parses the library's JSON: the engine's wire format, already the JS surface's shape. */
export function fromNative(json) {
  return JSON.parse(json);
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
