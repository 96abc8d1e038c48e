// Tools written in JS and host-driven loops: the engine's control plane
// (pauses, interrupt, emergency stop, events) over code running in Node.

import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';

import { Engine, internals } from '../index.js';
import { nextEvent, settledCounters, tempDir } from './helpers.js';

const engine = new Engine({ workDir: tempDir() });
after(async () => {
  engine.close();
  await engine.closed;
  assert.equal(internals.counters().openHandles, 0, 'the library handle table is empty (host handles too)');
  const c = await settledCounters();
  assert.deepEqual([c.sinks, c.queuedEvents], [0, 0]);
});

const callTool = (name, args) => [{ toolCalls: [{ name, args }] }, { text: 'done' }];
const toolResult = (s) => s.history().find((m) => m.role === 'tool');

test('a JS tool gets its args, streams progress, and its result reaches the model', async () => {
  let seen;
  engine.registerTool('js_echo', {
    description: 'Echo the text',
    parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    run: async (args, ctx) => {
      seen = { args, sessionId: ctx.sessionId, aborted: ctx.signal.aborted };
      ctx.progress('echoing\n');
      return { echoed: args.text };
    },
  });
  const s = engine.createSession({ script: callTool('js_echo', { text: 'hi', Keep_Case: 1 }) });
  try {
    const progress = nextEvent(s, 'tool_progress');
    const res = await s.prompt('go');
    assert.equal(res.status, 'idle');
    assert.deepEqual(seen, { args: { text: 'hi', Keep_Case: 1 }, sessionId: s.id, aborted: false });
    assert.equal((await progress).text, 'echoing\n');
    assert.equal(toolResult(s).text, '{"echoed":"hi"}');
    assert.equal(toolResult(s).isError, undefined);
  } finally {
    s.close();
  }
});

test('ctx.pause raises a real engine pause', async () => {
  engine.registerTool('js_send', {
    run: async (args, ctx) => {
      const a = await ctx.pause({ kind: 'confirm', message: 'Send the email?', details: args.to });
      return a.answer === 'approved' ? 'sent' : `not sent: ${a.reason}`;
    },
  });
  const s = engine.createSession({ script: callTool('js_send', { to: 'bob@example.com' }) });
  try {
    s.on('paused', (ev) => {
      assert.equal(ev.pause.kind, 'confirm');
      assert.equal(ev.pause.tool, 'js_send');
      assert.equal(ev.pause.details, 'bob@example.com');
      assert.equal(s.status, 'paused');
      s.confirm(false, { reason: 'wrong person' });
    });
    await s.prompt('go');
    assert.equal(toolResult(s).text, 'not sent: wrong person');
  } finally {
    s.close();
  }
});

test('a throwing JS tool is a tool error the model sees', async () => {
  engine.registerTool('js_throws', { run: () => { throw new Error('disk full'); } });
  const s = engine.createSession({ script: callTool('js_throws', {}) });
  try {
    const res = await s.prompt('go');
    assert.equal(res.status, 'idle', 'the run goes on');
    assert.deepEqual([toolResult(s).text, toolResult(s).isError], ['disk full', true]);
  } finally {
    s.close();
  }
});

// A tool's mistake is the model's tool error, never an uncaught exception
// of the host: each of these took the Node process down (JSON.stringify or
// String() threw inside the call's settlement) and left the run waiting.
test('a JS tool that returns what JSON cannot hold or throws what is not text: a tool error, the host lives', { timeout: 10_000 }, async () => {
  const cyclic = {};
  cyclic.self = cyclic;
  const nullProto = Object.create(null);
  const badMessage = new Error('x');
  Object.defineProperty(badMessage, 'message', { get() { throw new Error('message getter'); } });
  const cases = [
    ['a cyclic object', () => cyclic, /returned a value that cannot be sent as JSON \(Converting circular/],
    ['a cyclic object, async', async () => cyclic, /cannot be sent as JSON \(Converting circular/],
    ['a BigInt', () => ({ id: 1n }), /cannot be sent as JSON \(Do not know how to serialize a BigInt/],
    ['a toJSON that throws', () => ({ toJSON() { throw new Error('no JSON'); } }), /cannot be sent as JSON \(no JSON\)/],
    ['a then getter that throws', () => ({ get then() { throw new Error('then getter'); } }), /^then getter$/],
    ['a thrown null-prototype object', () => { throw nullProto; }, /cannot be shown as text/],
    ['a rejected null-prototype object', async () => { throw nullProto; }, /cannot be shown as text/],
    ['an Error whose message getter throws', () => { throw badMessage; }, /cannot be shown as text/],
  ];
  for (const [what, run, want] of cases) {
    engine.registerTool('js_bad_result', { run });
    const s = engine.createSession({ script: callTool('js_bad_result', {}) });
    try {
      const res = await s.prompt('go');
      assert.equal(res.status, 'idle', `${what}: the run goes on`);
      assert.equal(toolResult(s).isError, true, what);
      assert.match(toolResult(s).text, want, what);
    } finally {
      s.close();
    }
  }
});

test('interrupt aborts the tool signal', async () => {
  let started;
  const running = new Promise((r) => (started = r));
  engine.registerTool('js_wait', {
    run: (args, ctx) => new Promise((resolve) => {
      started();
      ctx.signal.addEventListener('abort', () => resolve(`aborted: ${ctx.signal.reason.code}`));
    }),
  });
  const s = engine.createSession({ script: callTool('js_wait', {}) });
  try {
    const run = s.prompt('go');
    await running;
    s.interrupt();
    const res = await run;
    assert.equal(res.status, 'interrupted');
    assert.equal(res.interruption.reason, 'user_stop');
  } finally {
    s.close();
  }
});

test('a tool that never settles: stopping, then interrupted after the grace', async () => {
  let started;
  const running = new Promise((r) => (started = r));
  engine.registerTool('js_stuck', { graceMs: 50, run: () => { started(); return new Promise(() => {}); } });
  const s = engine.createSession({ script: callTool('js_stuck', {}) });
  try {
    const run = s.prompt('go');
    await running;
    const stopping = nextEvent(s, 'stopping');
    s.interrupt();
    assert.equal((await stopping).status, 'stopping');
    const res = await run;
    assert.equal(res.status, 'interrupted');
  } finally {
    s.close();
  }
});

test('a JS tool that ignores its signal: cut off after the grace; its late result is discarded and recorded', async () => {
  let started;
  let settle;
  let signal;
  const running = new Promise((r) => (started = r));
  engine.registerTool('js_late', {
    graceMs: 50,
    run: (args, ctx) => {
      signal = ctx.signal;
      started();
      return new Promise((resolve) => (settle = resolve));
    },
  });
  const s = engine.createSession({ script: callTool('js_late', {}) });
  try {
    const run = s.prompt('go');
    await running;
    s.interrupt();
    const res = await run;
    assert.equal(res.status, 'interrupted');
    assert.equal(signal.aborted, true, 'the tool was told to stop');
    assert.equal(toolResult(s).text, 'interrupted before completion');
    const recorded = new Promise((resolve) => {
      const poll = () => (s.history().some((m) => m.role === 'marker' && m.text.startsWith('Late result of js_late')) ? resolve() : setImmediate(poll));
      poll();
    });
    settle('too late');
    await recorded;
    assert.ok(!s.history().some((m) => m.text === 'too late'), 'the late result never reaches the model');
  } finally {
    s.close();
  }
});

test('a host-driven loop: proceeding, pause, progress, end', async () => {
  const s = engine.createSession();
  try {
    const run = s.begin();
    assert.equal(s.status, 'running');
    assert.throws(() => s.begin(), { code: 'ERR_RUNNING' });
    assert.equal(run.check('rm -rf /').decision, 'confirm');
    assert.equal(run.check('ls').decision, 'allow');
    const progress = nextEvent(s, 'tool_progress');
    run.progress('calling the model\n');
    assert.equal((await progress).text, 'calling the model\n');
    s.on('paused', (ev) => ev.pause.message === 'Apply the patch?' && s.confirm(true));
    const a = await run.pause({ kind: 'confirm', tool: 'patch', message: 'Apply the patch?', details: 'main.go' });
    assert.equal(a.answer, 'approved');
    const res = run.end();
    assert.equal(res.status, 'idle');
    assert.equal(s.status, 'idle');
    assert.throws(() => run.end(), { code: 'ERR_NOT_RUNNING' });

    const failed = s.begin();
    const ev = nextEvent(s, 'run_failed');
    const failedRes = failed.end(new Error('model HTTP 500'));
    assert.equal(failedRes.outcome, 'failed');
    assert.equal(failedRes.error.message, 'model HTTP 500');
    assert.equal((await ev).text, 'model HTTP 500');
  } finally {
    s.close();
  }
});

// Attack: end() with a result that cannot be sent threw, but the wrapper
// had already marked the run ended: the session stayed running for good
// and every later end() said 'the run has already ended'.
test("a host loop's end() with a result it cannot send throws and ends nothing: end() again ends the run", () => {
  const cyclic = {};
  cyclic.self = cyclic;
  const s = engine.createSession();
  try {
    for (const [bad, code] of [[cyclic, 'ERR_INVALID_ARG_VALUE'], [{ error: 1n }, 'ERR_INVALID_ARG_VALUE'], ['not JSON', 'ERR_INVALID_ARGUMENT'], [{ error: { code: 1 } }, 'ERR_INVALID_ARGUMENT']]) {
      const run = s.begin();
      assert.throws(() => run.end(bad), { code });
      assert.equal(s.status, 'running', 'nothing ended');
      assert.equal(run.end().status, 'idle');
      assert.throws(() => run.end(), { code: 'ERR_NOT_RUNNING' });
    }
  } finally {
    s.close();
  }
});

test('interrupt and emergency stop abort a host-driven loop', async () => {
  for (const stop of ['interrupt', 'emergencyStop']) {
    const s = engine.createSession();
    try {
      const run = s.begin();
      const aborted = new Promise((r) => run.signal.addEventListener('abort', r));
      if (stop === 'interrupt') s.interrupt();
      else assert.ok(engine.emergencyStop().stopped.length >= 1);
      await aborted;
      assert.equal(s.status, 'stopping', 'until the host loop ends');
      const res = run.end();
      assert.equal(res.status, 'interrupted');
      assert.equal(res.interruption.reason, stop === 'interrupt' ? 'user_stop' : 'emergency_stop');
    } finally {
      s.close();
    }
  }
});

test("run.check judges with the session's gate: rules, directory, grants remembered through run.pause({command})", async () => {
  const root = tempDir();
  const projA = path.join(root, 'a');
  const projB = path.join(root, 'b');
  for (const d of [projA, projB]) {
    mkdirSync(path.join(d, '.git'), { recursive: true });
    writeFileSync(path.join(d, 'notes.txt'), 'keep');
  }
  const gated = new Engine({ workDir: projA, bash: { policy: { rule: [{ name: 'no-shred', decision: 'deny', reason: 'r', program: 'shred' }] } } });
  const s = gated.createSession({ workDir: projA, script: [{ toolCalls: [{ name: 'bash', args: { command: 'rm -rf build' } }] }, { text: 'done' }] });
  const other = gated.createSession({ workDir: projA });
  try {
    let run = s.begin();
    assert.equal(run.check('shred -u notes.txt').decision, 'deny', 'the engine\'s bash policy applies');
    assert.equal(other.check('shred -u notes.txt').decision, 'deny', 'session.check knows the rules too');
    assert.equal(run.check(`echo x > ${projA}/notes.txt`).decision, 'allow', "a write in the session's directory");
    assert.equal(run.check(`echo x > ${projB}/notes.txt`).decision, 'confirm', 'a write outside it');
    const d = run.check('rm -rf build');
    assert.deepEqual(d, { decision: 'confirm', reasons: ['recursive deletion: rm -rf build'] });

    const denied = await run.pause({ kind: 'confirm', command: 'shred -u notes.txt' });
    assert.equal(denied.answer, 'denied', 'a command a deny rule refuses is denied without asking');

    const shown = nextEvent(s, 'paused');
    const approved = run.pause({ kind: 'confirm', command: 'rm -rf build' });
    const pause = (await shown).pause;
    assert.deepEqual([pause.tool, pause.message, pause.details, pause.reasons],
      ['Bash', 'Potentially dangerous command', 'rm -rf build', ['recursive deletion: rm -rf build']]);
    s.confirm(true, { pauseId: pause.id, remember: 'session' });
    assert.deepEqual(await approved, { answer: 'approved', remember: 'session' });
    assert.equal(run.check('rm -rf build').decision, 'allow', 'remembered for this session');
    run.end();

    const otherRun = other.begin();
    assert.equal(otherRun.check('rm -rf build').decision, 'confirm', 'another session has its own grants');
    otherRun.end();

    // The engine's own bash tool honours the grant: the same command runs without a pause.
    s.on('paused', (ev) => assert.fail(`unexpected pause: ${ev.pause.details}`));
    const res = await s.prompt('clean');
    assert.equal(res.status, 'idle');
    assert.match(s.history().find((m) => m.role === 'tool').text, /exit code 0/);
  } finally {
    s.close();
    other.close();
    gated.close();
    await gated.closed;
  }
});

test("signal('pause') parks a host-driven loop at run.step(), resume releases it, cancel rejects it", async () => {
  const s = engine.createSession();
  try {
    const run = s.begin();
    assert.equal(await run.step(), 1);
    const requested = nextEvent(s, 'pause_requested');
    s.signal('pause');
    await requested;
    assert.equal(s.status, 'running', "a pause signal never cuts the host's work in flight");
    const onPause = nextEvent(s, 'onPause');
    const paused = nextEvent(s, 'paused');
    let stepped = false;
    const step = run.step().then((n) => {
      stepped = true;
      return n;
    });
    const ev = await paused;
    assert.equal(ev.pause.source, 'signal');
    assert.equal(ev.pause.message, 'Paused at step 1');
    assert.equal(s.status, 'paused');
    await onPause;
    assert.equal(stepped, false, 'step() waits while the signal pause is pending');
    const onResume = nextEvent(s, 'onResume');
    s.signal('resume');
    assert.equal(await step, 2);
    await onResume;
    assert.equal(s.status, 'running');

    s.signal('pause');
    const parked = nextEvent(s, 'paused');
    const cut = run.step();
    await parked;
    const aborted = new Promise((r) => run.signal.addEventListener('abort', r));
    s.signal('cancel');
    await assert.rejects(cut, { code: 'ERR_INTERRUPTED', reason: 'user_stop' });
    await aborted;
    await assert.rejects(run.step(), { code: 'ERR_INTERRUPTED' }, 'every later step refuses to go on');
    const res = run.end();
    assert.equal(res.status, 'interrupted');
    assert.equal(res.interruption.reason, 'user_stop');
    await assert.rejects(run.step(), { code: 'ERR_NOT_RUNNING' });
  } finally {
    s.close();
  }
});

test("a JS tool judges its commands with the session's gate: ctx.check and ctx.pause({command}) share the grants", async () => {
  const dir = tempDir();
  const checks = [];
  engine.registerTool('js_shell', {
    run: async (args, ctx) => {
      const before = ctx.check(args.command).decision;
      const answer = before === 'confirm' ? (await ctx.pause({ kind: 'confirm', command: args.command })).answer : 'not asked';
      checks.push([before, answer, ctx.check(args.command).decision]);
      return answer;
    },
  });
  const call = { toolCalls: [{ name: 'js_shell', args: { command: 'rm -rf build' } }] };
  const s = engine.createSession({ workDir: dir, script: [call, call, { text: 'done' }] });
  try {
    s.on('paused', (ev) => {
      assert.equal(ev.pause.tool, 'js_shell');
      assert.deepEqual(ev.pause.reasons, ['recursive deletion: rm -rf build']);
      s.confirm(true, { pauseId: ev.pause.id, remember: 'session' });
    });
    assert.equal((await s.prompt('go')).status, 'idle');
    assert.deepEqual(checks, [['confirm', 'approved', 'allow'], ['allow', 'not asked', 'allow']]);
  } finally {
    s.close();
  }
});
