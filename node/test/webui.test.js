// engine.serve, counts, resumeAll, emergencyStop and the run-state getters
// from JS: translations of the engine's, checked end to end.

import assert from 'node:assert/strict';
import { after, test } from 'node:test';

import { Engine, internals } from '../index.js';
import { nextEvent, tempDir } from './helpers.js';

const long = [{ text: 'working', toolCalls: [{ name: 'sleep', args: { ms: 600000 } }] }, { text: 'resumed', toolCalls: [{ name: 'sleep', args: { ms: 600000 } }] }];

after(async () => {
  assert.equal(internals.openEngines(), 0);
  // engine.close() returns at once; the handles go when the closes finish.
  const deadline = Date.now() + 10_000;
  while (internals.counters().openHandles !== 0 && Date.now() < deadline) await new Promise((r) => setImmediate(r));
  assert.equal(internals.counters().openHandles, 0, 'servers are handles too, closed with their engine');
});

const bearer = (url) => ({ headers: { authorization: `Bearer ${new URL(url).searchParams.get('token')}` } });

test('serve: a loopback URL with a token; closed by close() and by engine.close()', async () => {
  const engine = new Engine({ workDir: tempDir() });
  const web = engine.serve();
  const u = new URL(web.url);
  assert.equal(u.hostname, '127.0.0.1');
  assert.match(u.searchParams.get('token'), /^[0-9a-f]{32}$/);
  const base = `${u.origin}/api/state`;
  assert.equal((await fetch(base)).status, 401, 'no token');
  const state = await (await fetch(base, bearer(web.url))).json();
  assert.deepEqual(state.counts, { proceeding: 0, eligible: 0, needs_input: 0 });
  web.close();
  web.close(); // idempotent
  await assert.rejects(fetch(base, bearer(web.url)), 'closed: nothing listens');

  const again = engine.serve({ port: 0 });
  engine.close();
  await engine.closed; // close() returns at once; the server is down once `closed` settles
  await assert.rejects(fetch(new URL(again.url).origin, bearer(again.url)), 'closed with the engine');
  again.close(); // after the engine: a no-op
});

test('serve refuses a non-loopback host without allowRemote, and bad options', () => {
  const engine = new Engine({ workDir: tempDir() });
  try {
    assert.throws(() => engine.serve({ host: '0.0.0.0' }), (err) => err.code === 'ERR_INVALID_ARGUMENT' && /allowRemote/.test(err.message));
    assert.throws(() => engine.serve({ token: 'short' }), { code: 'ERR_INVALID_ARGUMENT' });
    assert.throws(() => engine.serve({ port: 70000 }), { code: 'ERR_INVALID_ARGUMENT' });
    assert.throws(() => engine.serve({ prot: 1 }), /prot/);
    assert.throws(() => engine.serve({}, 1), TypeError);
  } finally {
    engine.close();
  }
});

test('counts, emergencyStop, resumeAll and the run-state getters', async () => {
  const engine = new Engine({ workDir: tempDir() });
  try {
    const a = engine.createSession({ id: 'a_1', script: long });
    const idle = engine.createSession({ id: 'idle' });
    const started = nextEvent(a, 'tool_started');
    const run = a.prompt('go');
    await started;
    assert.equal(a.runState, 'proceeding');
    assert.deepEqual(a.eligibility, { eligible: false, reason: 'Already proceeding' });
    assert.deepEqual(engine.counts(), { proceeding: 1, eligible: 0, needsInput: 0 });

    assert.deepEqual(engine.emergencyStop(), { stopped: ['a_1'] }, 'session ids stay as they are');
    assert.deepEqual(engine.emergencyStop(), { stopped: [] }, 'idempotent');
    assert.equal((await run).interruption.reason, 'emergency_stop');
    assert.equal(a.runState, 'interrupted');
    assert.deepEqual(a.eligibility, { eligible: true });
    assert.deepEqual(engine.counts(), { proceeding: 0, eligible: 1, needsInput: 0 });

    // With ids, those alone: what a confirmation listed.
    for (const bad of ['a_1', [1], ['a\0'], null]) assert.throws(() => engine.resumeAll(bad), (err) => /^ERR_INVALID_ARG_(TYPE|VALUE)$/.test(err.code) && /engine.resumeAll\(ids\?: string\[\]\)/.test(err.message), String(bad));
    assert.throws(() => engine.resumeAll([], 1), { code: 'ERR_INVALID_ARG_COUNT' });
    assert.deepEqual(engine.resumeAll([]), { resumed: [], skipped: {} }, '[] resumes none');
    assert.deepEqual(engine.resumeAll(['idle', 'gone']), { resumed: [], skipped: { idle: 'Nothing to continue', gone: 'Session is closed' } });
    assert.equal(a.runState, 'interrupted', 'a session not listed is not resumed');
    const resumed = nextEvent(a, 'tool_started');
    assert.deepEqual(engine.resumeAll(), { resumed: ['a_1'], skipped: { idle: 'Nothing to continue' } }, 'session ids stay as they are');
    await resumed;
    assert.deepEqual(engine.resumeAll().resumed, [], 'never a second run');
    assert.equal(idle.runState, 'idle');
  } finally {
    engine.close();
  }
});
