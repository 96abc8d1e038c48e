// The signal guard (see node/src/signals.h). The Go runtime needs SA_ONSTACK
// on every signal handler; libuv installs handlers without it after the
// library loaded, and a signal landing on a Go thread then crashes the
// process. The addon fixed every handler at load and holds a permanent
// SIGCHLD watcher. Node installs more handlers later; re-fix right after:
//  - process.on('SIG...'): Node installs the handler from its own
//    'newListener' listener, which runs before ours. TTY streams listen for
//    SIGWINCH the same way (process.on('SIGWINCH')).
//  - child processes: libuv's SIGCHLD handler is never re-installed thanks
//    to the permanent watcher; re-fixing after spawn costs ~30 µs and also
//    covers handlers installed by anything else in between.
//  - every new engine and every run start, as a last net
//    (fixSignalsBeforeRun(): once per turn of the event loop, since a fix
//    costs 30-50 µs and 10,000 prompt() calls in one turn would pay it
//    10,000 times; within one synchronous turn Node installs handlers only
//    through the two hooks above, which fix at once).
//
// Importing this module installs both hooks, once per process: a
// 'newListener' listener on process and a wrapper around
// ChildProcess.prototype.spawn that calls the original, then re-fixes.

import { ChildProcess } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import process from 'node:process';

import { native } from './native.js';

const SIGNALS = new Set(Object.keys(osConstants.signals));

process.on('newListener', (name) => {
  if (typeof name === 'string' && SIGNALS.has(name)) native.fixSignals();
});

{
  const spawn = ChildProcess.prototype.spawn;
  ChildProcess.prototype.spawn = function spawnWithSignalGuard(...args) {
    try {
      return spawn.apply(this, args);
    } finally {
      native.fixSignals();
    }
  };
}

/** ORs SA_ONSTACK into every installed handler again; returns how many changed. */
export function fixSignals() {
  return native.fixSignals();
}

let fixedThisTurn = false;
const endTurn = () => {
  fixedThisTurn = false;
};

/** The last net before a run starts tools: fixSignals() once per turn of the event loop. */
export function fixSignalsBeforeRun() {
  if (fixedThisTurn) return;
  native.fixSignals();
  fixedThisTurn = true;
  queueMicrotask(endTurn);
}
