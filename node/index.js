// Interlock: the typed JS API (index.d.ts) over the native addon
// (native.d.ts). Translation only: the engine decides every state. The
// parts live in lib/ by concern:
//   lib/native.js        the addon, loaded once
//   lib/signal-guard.js  keeps Go's signal handling safe under Node (import side effects)
//   lib/errors.js        InterlockError and argument TypeErrors
//   lib/args.js          argument checks of the JS layer
//   lib/convert.js       snake_case JSON of the library <-> camelCase JS, the one place
//   lib/listeners.js     listeners by event type
//   lib/base.js          what Session and TaskLoop share (handle, closed state, listeners, runs)
//   lib/session.js, lib/task-loop.js, lib/engine.js
//   lib/dispatch.js      routes the event stream to objects and listeners

import { native } from './lib/native.js';
import { fixSignals } from './lib/signal-guard.js';
import { openEngineCount } from './lib/engine.js';

import { guardReceivers } from './lib/args.js';
import { EngineObject, isEngineObject } from './lib/base.js';
import { Engine, isEngine } from './lib/engine.js';
import { Session, isSession } from './lib/session.js';
import { TaskLoop, isTaskLoop } from './lib/task-loop.js';

// Methods called on a wrong receiver throw TypeError ERR_INVALID_THIS.
guardReceivers(EngineObject, isEngineObject, 'session', 'a Session or TaskLoop');
guardReceivers(Session, isSession, 'session', 'a Session');
guardReceivers(TaskLoop, isTaskLoop, 'taskLoop', 'a TaskLoop');
guardReceivers(Engine, isEngine, 'engine', 'an Engine');

export { InterlockError } from './lib/errors.js';
export { Engine, Session, TaskLoop };
export { REASON_LABELS, reasonLabel } from './reasons.js';

/** The library version. */
export const version = native.version();

/**
 * Test and diagnostics hooks: signal handler flags and native counters.
 * Not part of the stable API.
 */
export const internals = Object.freeze({
  fixSignals,
  signalReport: () => native.signalReport(),
  counters: () => native.debugCounters(),
  openEngines: openEngineCount,
});
