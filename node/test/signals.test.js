// The signal guard (node/src/signals.h): every installed handler keeps
// SA_ONSTACK after Node installs new ones, and the crash scenario (Node
// spawning children and handling signals while Go runs bash tools) survives
// many runs.

import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { constants } from 'node:os';
import { test } from 'node:test';

import { Engine, internals } from '../index.js';
import { describeExit, fixture, runNode } from './helpers.js';

function assertAllOnStack(when) {
  const report = internals.signalReport();
  assert.ok(report.length > 0, 'some handlers are installed (Go installs its own)');
  const bad = report.filter((h) => !h.onstack);
  assert.deepEqual(bad, [], `handlers without SA_ONSTACK ${when}`);
}

const installed = (signo) => internals.signalReport().some((h) => h.signal === signo);

test('at load every installed handler has SA_ONSTACK, SIGCHLD included', () => {
  assertAllOnStack('at load');
  assert.ok(installed(constants.signals.SIGCHLD), 'the permanent SIGCHLD watcher is installed');
});

test('process.on(SIG...) handlers get SA_ONSTACK at once', () => {
  const fn = () => {};
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGUSR2', 'SIGHUP', 'SIGWINCH']) {
    process.on(sig, fn);
    assert.ok(installed(constants.signals[sig]), `${sig} installed`);
    assertAllOnStack(`after process.on('${sig}')`);
  }
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGUSR2', 'SIGHUP', 'SIGWINCH']) process.off(sig, fn);
  process.once('SIGUSR2', fn);
  assertAllOnStack("after process.once('SIGUSR2')");
  process.off('SIGUSR2', fn);
});

test('child processes never leave SIGCHLD without SA_ONSTACK', async () => {
  await new Promise((resolve) => spawn('true').on('exit', resolve));
  assertAllOnStack('after spawn');
  execFileSync('true');
  assertAllOnStack('after execFileSync');
});

const hasScript = spawnSync('script', ['--version']).status === 0;

test('TTY writes leave every handler with SA_ONSTACK', { skip: !hasScript && 'needs script(1) for a pty' }, () => {
  const r = spawnSync('script', ['-qec', `${process.execPath} ${fixture('tty-write.mjs')}`, '/dev/null'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  // script(1) puts the child's stdout and stderr on its pty: the last line is the report.
  const report = JSON.parse(r.stdout.trim().split(/\r?\n/).at(-1));
  assert.deepEqual(report, { isTTY: true, bad: [] });
});

test('engine creation keeps the handlers fixed', () => {
  const e = new Engine();
  assertAllOnStack('after new Engine()');
  e.close();
});

// 24 on the system Node; make test runs 8 on Node 22 and 24 (INTERLOCK_SIGNAL_RUNS): ~40 s less of a make test that must stay under 15 minutes.
const RUNS = Number(process.env.INTERLOCK_SIGNAL_RUNS ?? 24);
const PARALLEL = 4;

test(`regression: signals while Go runs bash tools, ${RUNS} runs, zero crashes`, async (t) => {
  const results = [];
  for (let i = 0; i < RUNS; i += PARALLEL) {
    results.push(...(await Promise.all(Array.from({ length: PARALLEL }, () => runNode(fixture('signal-storm.mjs'), ['2000'])))));
  }
  const crashed = results.filter((r) => r.code !== 0 || r.signal !== null || !/^ok /m.test(r.stdout));
  t.diagnostic(`runs=${results.length} crashed=${crashed.length}; first: ${results[0].stdout.split('\n').find((l) => l.startsWith('ok')) ?? ''}`);
  assert.equal(crashed.length, 0, crashed.map(describeExit).join('\n====\n'));
});

// The control experiment: the same scenario with the guard turned off
// (INTERLOCK_UNSAFE_NO_SIGNAL_GUARD=1) crashes. Opt-in: it is slow and only
// shows that the regression test above can fail.
test('control: without the guard the scenario crashes', { skip: !process.env.INTERLOCK_SIGNAL_CONTROL }, async (t) => {
  const results = await Promise.all(Array.from({ length: 8 }, () =>
    runNode(fixture('signal-storm.mjs'), ['3000'], { env: { INTERLOCK_UNSAFE_NO_SIGNAL_GUARD: '1' } })));
  const crashed = results.filter((r) => r.code !== 0 || r.signal !== null);
  t.diagnostic(`unguarded: ${crashed.length}/${results.length} crashed; e.g. ${crashed[0]?.stderr.split('\n').slice(0, 3).join(' | ')}`);
  assert.ok(crashed.length > 0, 'expected at least one crash without the guard');
});
