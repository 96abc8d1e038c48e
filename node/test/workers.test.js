// The addon in worker threads: any number of threads load it and run engines
// at once, and a terminated worker takes its engines and their commands with
// it. Each scenario runs in a child node process (fixtures/workers.mjs), so
// an abort there is a failed test, not a dead test runner.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { describeExit, fixture, runNode, tempDir, testDir } from './helpers.js';

async function scenario(mode, ...args) {
  const r = await runNode(fixture('workers.mjs'), [mode, ...args], { timeoutMs: 30_000 });
  assert.equal(r.signal, null, describeExit(r));
  assert.equal(r.code, 0, describeExit(r));
  assert.equal(r.stderr, '', describeExit(r));
  return JSON.parse(r.stdout.trim().split('\n').at(-1));
}

test('20 times in a row a worker loads the addon, runs a bash call, closes its engine and is terminated: the process exits 0', async () => {
  const res = await scenario('cycle');
  assert.equal(res.rounds, 20);
  assert.equal(res.openHandles, 0);
});

test('the main thread and two workers run bash calls at the same time', async () => {
  const res = await scenario('concurrent');
  assert.equal(res.main, 10, 'every bash call of the main thread printed its line');
  assert.deepEqual(res.workers, [10, 10], 'every bash call of each worker printed its line');
  assert.equal(res.openHandles, 0);
});

test('a worker terminated mid-command without close(): no process of the command is left, the main thread\'s engine goes on', async () => {
  const pidFile = path.join(tempDir(), 'pids');
  writeFileSync(pidFile, '');
  const res = await scenario('terminate', pidFile);
  assert.equal(res.pids.length, 3, `the command, its child and grandchild recorded their pids: ${res.pids}`);
  assert.equal(res.before, 'before\n');
  assert.equal(res.after, 'after\n', 'the main thread\'s engine ran a bash call after the worker was terminated');
  assert.equal(res.openHandles, 0, 'the worker engine\'s handles were released');
  assert.deepEqual(res.survivors, [], 'processes of the command (by pid or process group) outlived the worker by 2 s');
});

for (const [mode, how] of [['first', 'is terminated'], ['first-ends', 'ends while the main thread loads the addon']]) {
  test(`a worker that loaded the addon first ${how}: the main thread keeps its own SIGCHLD guard`, async () => {
    // Every environment that loads the addon holds its own permanent SIGCHLD
    // watcher (node/src/signals.h), so libuv's SIGCHLD handler, fixed with
    // SA_ONSTACK, stays while any of them lives and no later spawn installs
    // it again without SA_ONSTACK; and one environment's watcher going away
    // never touches another's.
    const res = await scenario(mode);
    assert.deepEqual(res.sigchld, { signal: 17, onstack: true }, 'SIGCHLD handled, with SA_ONSTACK, after the worker went away');
    assert.deepEqual(res.sigchldAtEnd, { signal: 17, onstack: true });
    assert.equal(res.after, 'after\n');
    assert.equal(res.openHandles, 0);
  });
}

test('each thread\'s counters count its own event sinks: the main thread does not see a worker\'s engine', async () => {
  const res = await scenario('counters');
  assert.equal(res.worker.sinks, 1, 'the worker sees its engine\'s sink');
  assert.equal(res.mainWithout.sinks, 0, 'the main thread, without an engine, has no sink');
  assert.equal(res.mainWith.sinks, 1, 'the main thread sees its own engine\'s sink only');
});

test('the addon\'s C++ enters through its own boundary only: no node-addon-api wrapper that throws again when JS is off', () => {
  // Napi::Function::New, Napi::AsyncWorker and NODE_API_MODULE catch a C++
  // exception and throw it as JS; in a worker being terminated that fails
  // and they throw again, out of their catch block: std::terminate, and the
  // whole process aborts. node/src/addon.h: Export, Guard, GuardQuiet.
  const src = path.join(testDir, '..', 'src');
  const banned = /Napi::Function::New|Napi::AsyncWorker|NODE_API_MODULE|ThrowAsJavaScriptException|Napi::ThreadSafeFunction|Napi::ObjectWrap/;
  const found = [];
  for (const name of readdirSync(src)) {
    readFileSync(path.join(src, name), 'utf8').split('\n').forEach((line, i) => {
      if (banned.test(line) && !line.trimStart().startsWith('//')) found.push(`${name}:${i + 1}: ${line.trim()}`);
    });
  }
  assert.deepEqual(found, []);
});
