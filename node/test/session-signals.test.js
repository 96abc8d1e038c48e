// Seed 002's control signals from JS, on the session: signal() in; onPause /
// onResume / onCancel / onError out, each with the 0-based index of the
// step about to run.

import assert from 'node:assert/strict';
import { after, test } from 'node:test';

import { Engine } from '../index.js';
import { call, hang, nextEvent, tempDir } from './helpers.js';

const engine = new Engine({ workDir: tempDir() });
after(async () => {
  await engine.close();
});

/** Every signal event of c, in order. */
function record(c) {
  const seen = [];
  for (const t of ['onPause', 'onResume', 'onCancel', 'onError']) c.on(t, (ev) => seen.push(ev));
  return seen;
}

test('pause parks at the next step boundary; onPause carries the 0-based index of the step about to run; resume releases it', async () => {
  const s = engine.createSession({ script: [call('ask', { kind: 'continue', message: 'go on?' }, 'first'), { text: 'second turn' }] });
  const c = s;
  const seen = record(c);
  const texts = [];
  s.on('text', (ev) => texts.push(ev));
  // The tool's own pause holds the run inside step 2: a pause signal sent
  // then takes effect at the boundary after it, before step 3.
  s.on('paused', (ev) => {
    if (ev.pause.source !== 'tool') return;
    c.signal('pause');
    s.resume(ev.pause.id);
  });
  c.on('onPause', (ev) => {
    assert.equal(s.status, 'paused');
    assert.equal(ev.pause.source, 'signal');
    c.signal('resume');
  });
  c.signal('pause'); // before the run: parks at the first boundary
  const res = await s.prompt('go');
  assert.equal(res.status, 'idle');
  assert.deepEqual(seen.map((e) => [e.type, e.step]), [['onPause', 0], ['onResume', 0], ['onPause', 2], ['onResume', 2]]);
  assert.equal(seen[0].session, s.id);
  assert.equal(typeof seen[0].monoNs, 'bigint');
  // Engine events number steps from 1: the steps that ran after each pause
  // are the ones onPause announced (0-based 0 -> step 1, 0-based 2 -> step 3).
  assert.equal(texts.find((ev) => ev.text.includes('first')).step, 1);
  assert.equal(texts.find((ev) => ev.text.includes('second')).step, 3);
  s.close();
});

test('a pause withdrawn before it took effect is an onResume; cancel is an onCancel with the reason', async () => {
  const s = engine.createSession({ script: hang });
  const seen = record(s);
  // The model turn's text: step 1 has begun (run_started comes before it
  // does, and a cancel then could land at step 0).
  const thinking = nextEvent(s, 'text');
  const run = s.prompt('go');
  await thinking;
  s.signal('pause'); // the model turn hangs: no boundary comes
  s.signal('resume');
  s.signal('cancel');
  const res = await run;
  assert.equal(res.status, 'interrupted');
  assert.deepEqual(seen.map((e) => [e.type, e.reason]), [['onResume', undefined], ['onCancel', 'user_stop']]);
  assert.equal(seen[1].step, 1, 'cancelled while step 1 (0-based 0) ran: the step about to run next is 1');
  s.close();
});

test('a failed run is an onError with an Error', async () => {
  const s = engine.createSession({ script: [{ error: 'model exploded' }] });
  const errors = [];
  s.on('onError', ({ error, step }) => errors.push([error, step]));
  const res = await s.prompt('go');
  assert.ok(res.error);
  assert.equal(errors.length, 1);
  assert.ok(errors[0][0] instanceof Error);
  assert.match(errors[0][0].message, /model exploded/);
  s.close();
});

test('a misspelt signal event is refused, naming the nearest one', () => {
  const s = engine.createSession();
  assert.throws(() => s.on('onPaused', () => {}), { code: 'ERR_INVALID_ARG_VALUE', message: /did you mean `onPause`/ });
  assert.throws(() => engine.on('onPause', () => {}), { code: 'ERR_INVALID_ARG_VALUE' }, "the signal events are a session's");
  s.close();
});
