// Errors of the JS API: InterlockError for what the engine refused, and
// TypeErrors with Node-style codes for bad arguments.

// Marks argument TypeErrors (the addon's too: it sets the same symbol).
const kArgError = Symbol.for('interlock.argError');

/**
 * An error of the JS API: `code` says what kind ("ERR_NOT_PAUSED",
 * "ERR_INVALID_ARG_VALUE", ...). A bad argument is also a TypeError (see
 * argError) and still an InterlockError.
 */
export class InterlockError extends Error {
  constructor(message, code) {
    super(message);
    this.name = 'InterlockError';
    this.code = code;
  }

  static [Symbol.hasInstance](o) {
    return Function.prototype[Symbol.hasInstance].call(this, o) || (this === InterlockError && o?.[kArgError] === true);
  }
}

/** A TypeError for a bad argument, with a code like Node's own:
 *  ERR_INVALID_ARG_TYPE, ERR_INVALID_ARG_VALUE or ERR_INVALID_ARG_COUNT.
 *  `instanceof InterlockError` holds for it too. */
export function argError(message, code = 'ERR_INVALID_ARG_TYPE') {
  const err = new TypeError(message);
  err.code = code;
  Object.defineProperty(err, kArgError, { value: true });
  return err;
}

/** ERR_CLOSED for a use after close; `instead` says what to do. */
export function closedError(what, instead) {
  return new InterlockError(`${what} is closed: ${instead}`, 'ERR_CLOSED');
}
