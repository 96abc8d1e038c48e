// Answers fail one way: confirm() and resume() apply the answer at once and
// throw every failure (never a process warning), and an answer without a
// pause id never answers a pause no event has shown.

import assert from 'node:assert/strict';
import { after, test } from 'node:test';

import { Engine, internals } from '../index.js';
import { kRawHandle } from '../lib/base.js';
import { native } from '../lib/native.js';
import { askConfirm, askContinue, call, hang, nextEvent, settledCounters, tempDir } from './helpers.js';

const engine = new Engine({ workDir: tempDir() });
after(async () => {
  await engine.close();
  assert.equal(internals.counters().openHandles, 0, 'the library handle table is empty');
  const c = await settledCounters();
  assert.deepEqual([c.sinks, c.queuedEvents], [0, 0], 'event sinks and copies freed');
});

/** A session parked at a pause of script; resolves with it and its prompt() promise. */
async function parked(script = askConfirm) {
  const s = engine.createSession({ script });
  const paused = nextEvent(s, 'paused');
  const run = s.prompt('go');
  await paused;
  return { s, run };
}

test('what JS can know is still thrown at once', async (t) => {
  await t.test('the same pause answered twice in one tick: the first applies, the second throws ERR_NOT_PAUSED', async () => {
    const { s, run } = await parked();
    s.confirm(true);
    assert.throws(() => s.confirm(true), { code: 'ERR_NOT_PAUSED' });
    assert.equal((await run).outcome, 'finished');
    s.close();
  });
  await t.test('a pause id that is not the current one: ERR_UNKNOWN_PAUSE', async () => {
    const { s } = await parked();
    assert.throws(() => s.confirm(true, { pauseId: 'p999' }), { code: 'ERR_UNKNOWN_PAUSE' });
    assert.equal(s.status, 'paused');
    s.close();
  });
  await t.test('a continue pause: ERR_WRONG_PAUSE_KIND', async () => {
    const { s } = await parked(askContinue);
    assert.throws(() => s.confirm(true), { code: 'ERR_WRONG_PAUSE_KIND' });
    s.close();
  });
  await t.test('an unknown remember scope: ERR_INVALID_ARGUMENT', async () => {
    const { s } = await parked();
    assert.throws(() => s.confirm(true, { reason: '', remember: 'forever' }), { code: 'ERR_INVALID_ARGUMENT', message: /forever/ });
    assert.equal(s.status, 'paused');
    s.close();
  });
  await t.test('a closed session: ERR_CLOSED', async () => {
    const { s } = await parked();
    s.close();
    assert.throws(() => s.confirm(true), { code: 'ERR_CLOSED' });
  });
  await t.test('a NUL in the reason: the addon\'s TypeError', async () => {
    const { s } = await parked();
    assert.throws(() => s.confirm(true, { reason: 'a\0b' }), { name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE' });
    s.close();
  });
});

test('an answer is applied at once: a read, an interrupt or close() right after it comes after it', async (t) => {
  await t.test('a read in the same tick sees it', async () => {
    const { s, run } = await parked();
    s.confirm(true);
    assert.notEqual(s.status, 'paused');
    assert.equal(s.pauseState, null);
    await run;
    await s.close();
  });
  await t.test('an interrupt right after it', async () => {
    // The model's next turn hangs: the run is still there to interrupt.
    const { s, run } = await parked([call('ask', { kind: 'confirm', message: 'Allow?' }), ...hang]);
    const answered = nextEvent(s, 'pause_answered');
    s.confirm(true);
    s.interrupt();
    assert.equal((await answered).answer, 'approved', 'the answer went first, not "interrupted"');
    assert.equal((await run).outcome, 'interrupted');
    await s.close();
  });
});

test('an answer the engine refuses is thrown at once, never a process warning', async () => {
  const { s, run } = await parked();
  // Answer behind the wrapper's back: its last event still says the pause is pending.
  native.sessionConfirm(s[kRawHandle], false);
  let warned = false;
  const onWarning = () => (warned = true);
  process.on('warning', onWarning);
  assert.throws(() => s.confirm(true), (err) => err.code === 'ERR_NOT_PAUSED' && /^session\.confirm\(approved, options\?\)/.test(err.message));
  assert.equal((await run).outcome, 'finished', 'the first answer stands');
  await new Promise((resolve) => setImmediate(resolve));
  process.off('warning', onWarning);
  assert.equal(warned, false, 'no process warning');
  await s.close();
});

test('an answer without a pause id answers the pause the last event showed, never one raised after it', async (t) => {
  // One turn calls the ask tool twice: two pauses pending at once, p1 shown first.
  const both = (kind) => [{ text: '', toolCalls: [1, 2].map((n) => ({ name: 'ask', args: { kind, message: `Allow ${n}?` } })) }, { text: 'ok' }];
  for (const [kind, answer] of [['confirm', (s) => s.confirm(true)], ['continue', (s) => s.resume()]]) {
    await t.test(`a double ${kind} answer in one tick: the second throws and the later pause stays pending`, async () => {
      const s = engine.createSession({ script: both(kind) });
      const seen = new Promise((resolve) => s.on('paused', () => s.snapshot().pauses?.length === 2 && resolve()));
      const run = s.prompt('go');
      await seen;
      answer(s);
      assert.throws(() => answer(s), { code: 'ERR_UNKNOWN_PAUSE', message: /pause "p1"/ });
      assert.deepEqual(s.snapshot().pauses.map((p) => p.id), ['p2'], 'p2 was not answered: no event had shown it');
      await nextEvent(s, 'pause_answered');
      answer(s); // the event has shown p2 now
      assert.equal((await run).outcome, 'finished');
      s.close();
    });
  }
});

test('after an event said no pause is pending, an answer without an id never approves one raised since', async () => {
  // A host's own loop raises the pauses: the second is pending in the engine before its event reaches JS.
  const s = engine.createSession({});
  const run = s.begin();
  const shown = nextEvent(s, 'paused');
  const first = run.pause({ kind: 'confirm', message: 'echo 1?' });
  await shown;
  const none = nextEvent(s, 'pause_answered');
  s.confirm(true);
  assert.equal((await first).answer, 'approved');
  await none; // the last event: no pause pending
  const second = run.pause({ kind: 'confirm', message: 'rm -rf ~?' });
  // Until the engine has it; this thread never yields meanwhile, so its event cannot arrive.
  for (const deadline = Date.now() + 10_000; s.pauseState === null; ) assert.ok(Date.now() < deadline, 'the pause was never raised');
  assert.throws(() => s.confirm(true), { code: 'ERR_UNKNOWN_PAUSE' }, 'a Y meant for echo 1 approved rm -rf ~');
  assert.equal(s.pauseState?.message, 'rm -rf ~?', 'still pending');
  await nextEvent(s, 'paused');
  s.confirm(false); // the event has shown it now
  assert.equal((await second).answer, 'denied');
  run.end();
  s.close();
});
