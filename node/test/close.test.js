// close() returns at once, also while a command ignores SIGTERM (its kill
// needs the grace); `closed` settles once everything has unwound and the
// command is gone. Process exit still waits for a close in progress.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Engine, internals } from '../index.js';
import { describeExit, fixture, liveMarked, runNode, tempDir } from './helpers.js';

/** A command that ignores SIGTERM (its children inherit that), named by marker in its argv. */
const stubborn = (marker) => `sh -c 'trap "" TERM; echo ready; while :; do sleep 30; done' ${marker}`;

let seq = 0;
/** A session running a stubborn command; resolves with it, its run and the command's marker. */
async function spinning(engine) {
  const marker = `interlock-close-test-${process.pid}-${++seq}`;
  const s = engine.createSession({ script: [{ toolCalls: [{ name: 'bash', args: { command: stubborn(marker) } }] }] });
  s.on('paused', () => s.confirm(true));
  const ready = new Promise((resolve) => s.on('tool_progress', function on(ev) {
    if (!/ready/.test(ev.text ?? '')) return;
    s.off('tool_progress', on);
    resolve();
  }));
  const run = s.prompt('spin');
  await ready;
  assert.ok(liveMarked(marker).length > 0, `the command (${marker}) runs`);
  return { s, run, marker };
}

// A grace long enough that "still alive right after close() returned" can
// only fail if close() waited for the kill.
const config = () => ({ workDir: tempDir(), bash: { graceMs: 1500, policy: { rule: [{ name: 'sh', decision: 'allow', reason: 'the tests run shell snippets', program: 'sh' }] } } });

test('session.close() returns before the command dies; closed settles after it is gone and after the closed event', async () => {
  const engine = new Engine(config());
  const { s, run, marker } = await spinning(engine);
  const order = [];
  s.on('closed', () => order.push('closed event'));
  s.close();
  assert.ok(liveMarked(marker).length > 0, 'close() returned only after the command was killed');
  assert.equal(s.status, 'closed');
  await s.closed;
  order.push('closed promise');
  assert.deepEqual(liveMarked(marker), [], 'the command is gone once closed settled');
  assert.deepEqual(order, ['closed event', 'closed promise']);
  const res = await run;
  assert.equal(res.status, 'interrupted');
  assert.equal(res.interruption.reason, 'system_stop');
  await s.closed; // settles once, stays settled
  engine.close();
  await engine.closed;
});

test('engine.close() returns before the command dies; engine.closed settles after it is gone and every object settled', async () => {
  const engine = new Engine(config());
  const { s, run, marker } = await spinning(engine);
  const idle = engine.createSession();
  engine.close();
  assert.ok(liveMarked(marker).length > 0, 'engine.close() returned only after the command was killed');
  const events = [];
  s.on('event', (ev) => events.push(ev.type));
  await engine.closed;
  assert.deepEqual(liveMarked(marker), []);
  assert.equal((await run).status, 'interrupted');
  await Promise.all([s.closed, idle.closed]);
  assert.ok(events.includes('closed'), `the last events were delivered: ${events}`);
  assert.equal(internals.openEngines(), 0);
});

test('process exit waits for a close in progress: no command outlives Node', async () => {
  const marker = `interlock-close-exit-${process.pid}`;
  const r = await runNode(fixture('close-exit.mjs'), [marker]);
  assert.equal(r.code, 0, describeExit(r));
  assert.match(r.stdout, /running/, describeExit(r));
  assert.deepEqual(liveMarked(marker), [], 'the command outlived the process');
});
