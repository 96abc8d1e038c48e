// Teardown in every order, each in a child node process (a crash there must
// not take the test runner down): exit code 0, no signal, nothing on stderr.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { describeExit, fixture, runNode } from './helpers.js';

const modes = [
  ['process.exit() from a listener during an event flood', 'exit-mid-flood'],
  ['process.exit() from a timer during an event flood', 'exit-timer-mid-flood'],
  ['engine never closed at exit (idle and running sessions)', 'never-closed'],
  ['event function unref\'d while Go still emits', 'unref-while-emitting'],
  ['unref\'d while Go emits, without the exit hook (native finalizer only)', 'unref-no-exit-hook'],
  ['engine.close() from a listener during a flood (function released while Go emits)', 'close-mid-flood'],
  ['worker terminated while Go emits (environment teardown)', 'worker-terminated'],
  ['process.exit() from a JS tool while Go calls JS tools (host line)', 'exit-mid-tool-calls'],
  ['unref\'d while Go calls JS tools, without the exit hook: the host function finalized under Go', 'unref-mid-tool-calls'],
  ['worker terminated while Go calls JS tools', 'worker-terminated-mid-tool-calls'],
];

const ROUNDS = 3;

for (const [name, mode] of modes) {
  test(`${name} (x${ROUNDS})`, async () => {
    const results = await Promise.all(Array.from({ length: ROUNDS }, () => runNode(fixture('teardown.mjs'), [mode])));
    for (const r of results) {
      assert.equal(r.signal, null, describeExit(r));
      assert.equal(r.code, 0, describeExit(r));
      assert.equal(r.stderr, '', describeExit(r));
    }
  });
}
