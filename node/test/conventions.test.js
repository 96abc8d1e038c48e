// Node's conventions: sessions, engines and task loops work with
// events.once and events.on, `for await` over events(), once(), and
// `await close()`; prompt() says how the run ended (outcome, final text,
// usage), and a failed run never looks like a finished one.

import assert from 'node:assert/strict';
import { on, once } from 'node:events';
import { after, test } from 'node:test';

import { Engine, internals } from '../index.js';
import { askConfirm, hang, nextEvent, tempDir } from './helpers.js';

const engine = new Engine({ workDir: tempDir() });
after(async () => {
  await engine.close();
});

test('events.once(session, type) resolves with the event', async () => {
  const s = engine.createSession({ script: askConfirm });
  const run = s.prompt('go');
  const [ev] = await once(s, 'paused');
  assert.equal(ev.type, 'paused');
  assert.equal(ev.pause.kind, 'confirm');
  s.confirm(true);
  const res = await run;
  assert.deepEqual([res.outcome, res.text], ['finished', 'ok']);
  await s.close();
});

test('events.on(session, type) iterates events of that type; breaking stops listening', async () => {
  const s = engine.createSession({ script: [{ text: 'a b c', chunkDelayMs: 1 }] });
  const run = s.prompt('go');
  let text = '';
  for await (const [ev] of on(s, 'text')) {
    text += ev.text;
    if (text === 'a b c') break;
  }
  assert.equal(text, 'a b c');
  await run;
  await s.close();
});

test('once(type, fn) is called for one event only, and off(type, fn) removes it before', async () => {
  const s = engine.createSession({ script: [{ text: 'x' }, { text: 'y' }] });
  const seen = [];
  s.once('run_finished', (ev) => seen.push(ev.result.text));
  const removed = () => seen.push('removed');
  s.once('run_finished', removed);
  s.off('run_finished', removed);
  await s.prompt('one');
  await s.prompt('two');
  assert.deepEqual(seen, ['x']);
  await s.close();
});

test('for await (const ev of session.events()) sees every event in order and ends once the session has closed', async () => {
  const s = engine.createSession({ script: [{ text: 'done' }] });
  const types = [];
  const reading = (async () => {
    for await (const ev of s.events()) types.push(ev.type);
  })();
  await s.prompt('go');
  await s.close();
  await reading;
  assert.equal(types[0], 'run_started');
  assert.ok(types.includes('run_finished'));
  assert.equal(types.at(-1), 'closed');
});

test('engine.events() and taskLoop events work the same way', async () => {
  const e = new Engine({ workDir: tempDir() });
  const loop = e.createTaskLoop({ tasks: [{ title: 'one', prompt: 'p', script: [{ text: 'done one' }] }] });
  const begun = once(loop, 'task_begin');
  const engineTypes = [];
  const reading = (async () => {
    for await (const ev of e.events()) engineTypes.push(ev.type);
  })();
  const res = await loop.run();
  assert.equal(res.done, true);
  assert.equal((await begun)[0].title, 'one');
  await loop.close();
  await loop.session.close();
  await e.close();
  await reading;
  assert.ok(engineTypes.includes('run_finished'), engineTypes.join(' '));
});

test('await engine.close() returns a promise, never blocks, and resolves once everything has unwound', async () => {
  const e = new Engine({ workDir: tempDir() });
  const s = e.createSession({ script: hang });
  const run = s.prompt('go');
  await nextEvent(s, 'run_started');
  const t0 = performance.now();
  const closing = e.close();
  assert.ok(performance.now() - t0 < 50, 'close() returned at once');
  assert.ok(closing instanceof Promise);
  assert.equal(e.close(), closing, 'idempotent: the same promise');
  await closing;
  const res = await run;
  assert.equal(res.outcome, 'interrupted');
  assert.equal(internals.openEngines() >= 0, true);
});

test('a failed run is outcome failed with its error, never a finished idle run', async () => {
  const s = engine.createSession({ script: [{ error: 'model HTTP 500' }] });
  const res = await s.prompt('go');
  assert.equal(res.outcome, 'failed');
  assert.equal(res.error.code, 'ERR_RUN_FAILED');
  assert.match(res.error.message, /model HTTP 500/);
  assert.equal(res.text, '');
  await s.close();
});

test('usage counts the tokens of each run alone', async () => {
  const s = engine.createSession({ script: [{ text: 'answer', usage: { input: 10, output: 3 } }] });
  const first = await s.prompt('one');
  const second = await s.prompt('two');
  assert.deepEqual([first.outcome, first.text, first.usage], ['finished', 'answer', { input: 10, output: 3 }]);
  assert.deepEqual(second.usage, { input: 10, output: 3 }, 'not the session\'s running total');
  assert.deepEqual(s.snapshot().tokens, { input: 20, output: 6 });
  await s.close();
});

test('an interrupted run is outcome interrupted with its interruption', async () => {
  const s = engine.createSession({ script: hang });
  const run = s.prompt('go');
  await nextEvent(s, 'run_started');
  s.interrupt();
  const res = await run;
  assert.equal(res.outcome, 'interrupted');
  assert.equal(res.interruption.reason, 'user_stop');
  assert.equal(res.error, undefined);
  await s.close();
});
