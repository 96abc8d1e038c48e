// Errors of the JS API: InterlockError for what the engine refused, and
// TypeErrors with Node-style codes for bad arguments.

/** An error from the engine: `code` is the C status name ("ERR_NOT_PAUSED", ...). */
export class InterlockError extends Error {
  constructor(message, code) {
    super(message);
    this.name = 'InterlockError';
    this.code = code;
  }
}

/** A TypeError for a bad argument, with a code like Node's own:
 *  ERR_INVALID_ARG_TYPE, ERR_INVALID_ARG_VALUE or ERR_INVALID_ARG_COUNT. */
export function argError(message, code = 'ERR_INVALID_ARG_TYPE') {
  const err = new TypeError(message);
  err.code = code;
  return err;
}

/** ERR_CLOSED for a use after close; `instead` says what to do. */
export function closedError(what, instead) {
  return new InterlockError(`${what} is closed: ${instead}`, 'ERR_CLOSED');
}
