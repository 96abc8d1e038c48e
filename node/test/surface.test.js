// The JS surface is camelCase everywhere: events, snapshots, history, pause
// state, task-loop state and results; camelCase options reach the engine;
// tool-call arguments cross unchanged in both directions.

import assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import { after, test } from 'node:test';

import { Engine } from '../index.js';
import { askConfirm, tempDir } from './helpers.js';

const workDir = realpathSync(tempDir());
const engine = new Engine({ workDir, bash: { timeoutMs: 5_000, graceMs: 100 }, streamIdleTimeoutMs: 10_000 });
after(() => engine.close());

/** Every key path with an underscore, outside tool-call args. */
function snakeKeys(value, where = '$', out = []) {
  if (Array.isArray(value)) value.forEach((v, i) => snakeKeys(v, `${where}[${i}]`, out));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k.includes('_')) out.push(`${where}.${k}`);
      if (k !== 'args') snakeKeys(v, `${where}.${k}`, out);
    }
  }
  return out;
}

test('events, snapshots, history and results have camelCase keys; args cross unchanged', async () => {
  const s = engine.createSession({
    script: [
      { text: 'a', toolCalls: [{ name: 'bash', args: { command: 'pwd' } }] },
      { toolCalls: [{ name: 'no_such_tool', args: { snake_key: 1, camelKey: { inner_key: 2 } } }] },
      ...askConfirm,
    ],
  });
  const seen = [];
  s.on('event', (ev) => seen.push(ev));
  let paused;
  s.on('paused', (ev) => {
    paused = { ev, state: s.pauseState, snap: s.snapshot() };
    s.confirm(true);
  });
  const res = await s.prompt('go');
  const history = s.history();
  assert.deepEqual(snakeKeys({ seen, paused, res, history, sessions: engine.sessions() }), []);
  assert.ok(seen.some((ev) => ev.type === 'tool_started' && typeof ev.callId === 'string' && ev.callId.length > 0));
  assert.equal(typeof paused.snap.pauseRequested, 'boolean');
  assert.equal(history.find((m) => m.role === 'tool').text.split('\n')[0], workDir, 'workDir reached the engine');
  const call = history.flatMap((m) => m.toolCalls ?? []).find((c) => c.name === 'no_such_tool');
  assert.deepEqual(call.args, { snake_key: 1, camelKey: { inner_key: 2 } });
  assert.ok(history.some((m) => m.role === 'tool' && m.isError === true));
  s.close();
});

test('task-loop state, events and results have camelCase keys', async () => {
  const loop = engine.createTaskLoop({ pauseMode: false, tasks: [{ title: 't1', prompt: 'p', script: [{ text: 'ok' }] }] });
  const seen = [];
  loop.on('event', (ev) => seen.push(ev));
  assert.equal(loop.state().pauseMode, false);
  loop.setPauseMode(true);
  const done = await loop.run();
  assert.deepEqual(snakeKeys({ seen, done, state: loop.state() }), []);
  assert.ok(seen.some((ev) => ev.type === 'pause_mode_changed' && ev.pauseMode === true));
  loop.close();
  loop.session.close();
});

test('engine.stats(): Go heap (and live, and stacks), goroutines, sessions by status, events queued, coalesced and dropped', async () => {
  const e = new Engine({ workDir });
  const paused = e.createSession({ script: askConfirm });
  const idle = e.createSession();
  const isPaused = new Promise((resolve) => paused.on('paused', resolve));
  const run = paused.prompt('go');
  await isPaused;
  const st = e.stats();
  assert.deepEqual(Object.keys(st).sort(), ['eventsCoalesced', 'eventsDropped', 'eventsQueued', 'goroutines', 'heapBytes', 'liveHeapBytes', 'sessions', 'stackBytes']);
  assert.deepEqual(st.sessions, { idle: 1, running: 0, interrupted: 0, paused: 1, stopping: 0, closed: 0 });
  assert.ok(st.heapBytes > 0 && st.goroutines > 0 && st.stackBytes > 0);
  assert.ok(Number.isInteger(st.liveHeapBytes) && st.liveHeapBytes >= 0);
  for (const k of ['eventsQueued', 'eventsCoalesced', 'eventsDropped']) assert.ok(Number.isInteger(st[k]) && st[k] >= 0, k);
  paused.confirm(true);
  await run;
  assert.equal(e.stats().sessions.idle, 2);
  idle.close();
  e.close();
  assert.throws(() => e.stats(), { code: 'ERR_CLOSED' });
  await e.closed;
});
