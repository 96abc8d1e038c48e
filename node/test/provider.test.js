// A real model provider from JS: an OpenAI-compatible server (the replay
// server of recorded responses) drives a session with the bash tool.

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { Engine, internals } from '../index.js';
import { nextEvent, settledCounters, startReplayServer, tempDir } from './helpers.js';

let server;
let engine;
before(async () => {
  server = await startReplayServer();
  engine = new Engine({ workDir: tempDir() });
});
after(async () => {
  engine?.close();
  await engine?.closed; // close() returns at once; handles are released once `closed` settles
  await server?.close();
  assert.equal(internals.counters().openHandles, 0, 'the library handle table is empty');
  const c = await settledCounters();
  assert.deepEqual([c.sinks, c.queuedEvents], [0, 0]);
});

test('a full agent turn: bash confirm approved from JS, arguments streamed', async () => {
  const dir = tempDir();
  mkdirSync(path.join(dir, 'build'));
  const s = engine.createSession({ workDir: dir, provider: { type: 'openai', baseUrl: server.url, model: 'tool_calls', maxTokens: 100 } });
  try {
    let args = '';
    s.on('tool_call_delta', (ev) => (args += ev.text));
    s.on('paused', (ev) => {
      assert.equal(ev.pause.kind, 'confirm');
      assert.equal(ev.pause.details, 'rm -rf ./build');
      s.confirm(true);
    });
    const res = await s.prompt('clean up');
    assert.equal(res.status, 'idle', JSON.stringify(res));
    assert.equal(args, '{"command": "rm -rf ./build"}');
    assert.equal(existsSync(path.join(dir, 'build')), false, 'the approved command ran');
    const h = s.history();
    assert.equal(h.at(-1).text, 'Removed ./build.');
    assert.deepEqual(s.snapshot().tokens, { input: 200, output: 23 });
    assert.equal(s.snapshot().model, 'openai:tool_calls');
  } finally {
    s.close();
  }
});

test('a failure is run_failed with its code', async () => {
  const s = engine.createSession({ provider: { type: 'openai', baseUrl: server.url, model: 'server_error', maxRetries: 1, retryWaitMs: 1, headers: { 'X-Title': 'interlock' } } });
  try {
    const failed = nextEvent(s, 'run_failed');
    const res = await s.prompt('go');
    const ev = await failed;
    assert.equal(ev.code, 'server_error');
    assert.match(ev.text, /The server had an error while processing your request/);
    assert.equal(res.outcome, 'failed', 'a failed run never looks idle-and-fine');
    assert.equal(res.error.code, 'server_error');
    assert.match(res.error.message, /after 2 attempts/);
  } finally {
    s.close();
  }
});

test('interrupt mid-stream keeps the partial text', async () => {
  const s = engine.createSession({ provider: { type: 'openai', baseUrl: server.url, model: 'stall' } });
  try {
    let text = '';
    const spoke = new Promise((resolve) => s.on('text', (ev) => (text += ev.text) === 'Thinking about it' && resolve()));
    const run = s.prompt('think');
    await spoke;
    s.interrupt();
    const res = await run;
    assert.equal(res.status, 'interrupted');
    const h = s.history();
    assert.deepEqual(h[1], { role: 'assistant', text: 'Thinking about it', interrupted: true });
  } finally {
    s.close();
  }
});

test('a bad provider config is an InterlockError saying what to fix', () => {
  assert.throws(() => engine.createSession({ provider: { type: 'openai', model: 'm', baseUrl: 'x' } }), /base URL "x"/);
  assert.throws(() => engine.createSession({ provider: { type: 'anthropic', model: 'm' } }), /provider type must be "openai"/);
  assert.throws(() => engine.createSession({ provider: { type: 'openai' } }), /opts\.provider\.model is missing/);
  assert.throws(() => engine.createSession({ script: [], provider: { type: 'openai', model: 'm' } }), /both script and provider/);
});

// (The API key's variable: engine/provider/openai/store_test.go, and set
// from JS after the import: environ.test.js.)
test('a session with its own model comes back after a restart with the same model, never a secret', async () => {
  const dir = tempDir('interlock-provider-store-');
  const store = path.join(dir, 's.db');
  // The engine's own model fails: a restored session that fell back to it would fail.
  const config = { store, provider: { type: 'openai', baseUrl: server.url, model: 'server_error', maxRetries: 0 } };
  const own = { type: 'openai', baseUrl: server.url, model: 'text', headers: { 'X-Title': 'interlock', Authorization: 'Bearer sk-js-header-secret' } };
  const first = new Engine(config);
  try {
    const warnings = [];
    first.on('warning', (ev) => warnings.push(ev.text));
    const s = first.createSession({ id: 'own', provider: own });
    const res = await s.prompt('hi');
    assert.equal(res.status, 'idle', JSON.stringify(res));
    assert.equal(s.history().at(-1).text, 'Hello from the test server.');
    assert.match(warnings.join('\n'), /header Authorization/, 'the dropped header is reported');
  } finally {
    first.close();
    await first.closed;
  }
  const bytes = ['s.db', 's.db-wal'].map((f) => (existsSync(path.join(dir, f)) ? readFileSync(path.join(dir, f), 'latin1') : '')).join('');
  assert.ok(bytes.length > 0);
  assert.ok(!bytes.includes('sk-js-header-secret'), 'a secret-looking header is not stored');
  assert.ok(bytes.includes('X-Title'), 'the other headers are');

  const second = new Engine(config);
  try {
    const s = second.session('own');
    assert.equal(s.snapshot().model, 'openai:text');
    const res = await s.prompt('again');
    assert.equal(res.status, 'idle', JSON.stringify(res));
    const h = s.history();
    assert.deepEqual(h.slice(-2).map((m) => m.text), ['again', 'Hello from the test server.'], 'the same server and model answered');
  } finally {
    second.close();
    await second.closed;
  }
  rmSync(dir, { recursive: true, force: true });
});
