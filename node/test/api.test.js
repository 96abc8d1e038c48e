// The typed JS API end to end: sessions, pauses, signals, interrupts, task
// loops, events and the getters.

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';

import { Engine, InterlockError, internals, version } from '../index.js';
import { askConfirm, askContinue, call, describeExit, fixture, hang, nextEvent, runNode, settledCounters, tempDir } from './helpers.js';

const engine = new Engine({ workDir: tempDir() });
after(async () => {
  engine.close();
  assert.equal(internals.openEngines(), 0);
  await engine.closed;
  assert.equal(internals.counters().openHandles, 0, 'the library handle table is empty');
  const c = await settledCounters();
  assert.deepEqual([c.sinks, c.queuedEvents], [0, 0], 'event sinks and copies freed');
});

test('version', () => {
  assert.match(version, /^\d+\.\d+\.\d+/);
});

test('a new session is idle with sync getters', () => {
  const s = engine.createSession({ script: [{ text: 'hi' }] });
  try {
    assert.equal(s.status, 'idle');
    assert.equal(s.pauseState, null);
    assert.equal(typeof s.version, 'number');
    const snap = s.snapshot();
    assert.equal(snap.id, s.id);
    assert.equal(snap.status, 'idle');
    assert.deepEqual(s.history(), []);
    assert.equal(engine.session(s.id), s);
    assert.ok(engine.sessions().some((x) => x.id === s.id));
  } finally {
    s.close();
  }
  assert.equal(s.status, 'closed');
});

test('each session gets the options it was created with, also when they repeat or change in place', async () => {
  const opts = { id: 'same-1' };
  const made = [engine.createSession(opts)];
  opts.id = 'same-2'; // the same object, changed
  made.push(engine.createSession(opts));
  made.push(engine.createSession({ id: 'same-3' }));
  const nested = { script: [{ text: 'three' }] };
  made.push(engine.createSession(nested));
  nested.script[0].text = 'four'; // a nested value changed: converted anew
  made.push(engine.createSession(nested));
  assert.deepEqual(made.slice(0, 3).map((s) => s.id), ['same-1', 'same-2', 'same-3']);
  for (const s of made) assert.equal(engine.session(s.id), s);
  const said = [];
  for (const s of made.slice(3)) said.push((await s.prompt('go')).text);
  for (const s of made) s.close();
  assert.deepEqual(said, ['three', 'four']);
});

test('prompt resolves when the run finishes; events arrive in version order', async () => {
  const s = engine.createSession({ script: [{ text: 'one two three' }] });
  const seen = [];
  s.on('event', (ev) => seen.push(ev));
  const res = await s.prompt('hello');
  assert.deepEqual(res, { outcome: 'finished', status: 'idle', text: 'one two three', usage: res.usage, run: res.run });
  assert.ok(res.usage.output > 0, 'the run counted its tokens');
  assert.equal(seen.at(-1).type, 'run_finished');
  assert.equal(seen.at(-1).run, res.run, "the run's own terminal event settled the promise");
  assert.equal(s.status, 'idle');
  assert.equal(seen[0].type, 'run_started');
  assert.equal(seen.at(-1).type, 'run_finished');
  for (let i = 1; i < seen.length; i++) assert.equal(seen[i].version, seen[i - 1].version + 1 + (seen[i].coalesced ?? 0));
  assert.equal(seen.at(-1).version, s.version);
  assert.deepEqual(s.history().map((m) => m.role), ['user', 'assistant']);
  s.close();
});

test('a continue pause is resumed from the paused event', async () => {
  const s = engine.createSession({ script: askContinue });
  s.on('paused', (ev) => {
    assert.equal(ev.status, 'paused');
    assert.equal(ev.pause.kind, 'continue');
    assert.equal(s.status, 'paused');
    assert.deepEqual(s.pauseState, ev.pause);
    s.resume(ev.pause.id);
  });
  const answered = nextEvent(s, 'pause_answered');
  const res = await s.prompt('go');
  assert.equal(res.status, 'idle');
  assert.equal((await answered).answer, 'resumed');
  s.close();
});

test('a confirm pause can be denied with a reason the model sees', async () => {
  const s = engine.createSession({ script: askConfirm });
  s.on('paused', () => s.confirm(false, { reason: 'not today' }));
  const res = await s.prompt('go');
  assert.equal(res.status, 'idle');
  const tool = s.history().find((m) => m.role === 'tool');
  assert.match(tool.text, /denied: not today/);
  s.close();
});

test('interrupt ends the run as interrupted; continue resumes it', async () => {
  const s = engine.createSession({ script: [...hang, ...hang] });
  const running = nextEvent(s, 'run_started');
  const run = s.prompt('think');
  await running;
  const interrupted = nextEvent(s, 'interrupted');
  s.interrupt('user_stop');
  const res = await run;
  assert.equal(res.status, 'interrupted');
  assert.equal(res.outcome, 'interrupted');
  assert.equal(res.interruption.reason, 'user_stop');
  assert.equal((await interrupted).reason, 'user_stop');
  assert.equal(s.status, 'interrupted');
  assert.equal(s.snapshot().interruption.label, 'Stopped by you');
  const cont = s.continue();
  await nextEvent(s, 'run_started');
  s.signal('cancel');
  assert.equal((await cont).status, 'interrupted');
  s.close();
});

test('signal pause parks at the next step boundary; resume releases it', async () => {
  const s = engine.createSession({ script: [call('sleep', { ms: 50 }), { text: 'done' }] });
  s.signal('pause');
  s.on('paused', (ev) => {
    assert.equal(ev.pause.source, 'signal');
    s.signal('resume');
  });
  const res = await s.prompt('go');
  assert.equal(res.status, 'idle');
  s.close();
});

test('emergencyStop interrupts every running session', async () => {
  const a = engine.createSession({ script: hang });
  const b = engine.createSession({ script: hang });
  const started = Promise.all([nextEvent(a, 'run_started'), nextEvent(b, 'run_started')]);
  const runs = [a.prompt('x'), b.prompt('y')];
  await started;
  assert.deepEqual(engine.emergencyStop().stopped.sort(), [a.id, b.id].sort());
  for (const r of await Promise.all(runs)) assert.equal(r.interruption.reason, 'emergency_stop');
  a.close();
  b.close();
});

test('engine.on sees every session event', async () => {
  const s = engine.createSession({ script: [{ text: 'x' }] });
  const ids = new Set();
  const fn = (ev) => ids.add(ev.session);
  engine.on('run_finished', fn);
  await s.prompt('go');
  engine.off('run_finished', fn);
  assert.ok(ids.has(s.id));
  s.close();
});

test('a throwing listener becomes an uncaught exception and does not stop the others', async () => {
  const r = await runNode(fixture('throwing-listener.mjs'));
  assert.equal(r.code, 0, describeExit(r));
  assert.deepEqual(JSON.parse(r.stdout), { uncaught: 'listener bug', later: 1, status: 'idle' });
});

test('task loop runs tasks and pauses between them in pause mode', async () => {
  const loop = engine.createTaskLoop({
    pauseMode: true,
    tasks: [
      { title: 'first', prompt: 'do 1', script: [{ text: 'one' }] },
      { title: 'second', prompt: 'do 2', script: [{ text: 'two' }] },
    ],
  });
  assert.equal(loop.isPauseMode(), true);
  const types = [];
  loop.on('event', (ev) => types.push(ev.type));
  loop.on('paused', () => loop.continue());
  const state = await loop.run();
  assert.equal(state.done, true);
  assert.equal(state.completed, 2);
  assert.ok(types.includes('task_begin'));
  assert.ok(types.includes('paused'));
  assert.equal(types.at(-1), 'completed');
  assert.equal(loop.session.status, 'idle');
  loop.setPauseMode(false);
  assert.equal(loop.isPauseMode(), false);
  loop.close();
  loop.session.close();
});

test('an interrupted task loop resumes: the cut task goes on, then the rest', async () => {
  const loop = engine.createTaskLoop({
    tasks: [
      { title: 'nap', prompt: 'sleep', script: [call('sleep', { ms: 600000 }), { text: 'woke up' }] },
      { title: 'then', prompt: 'then', script: [{ text: 'done' }] },
    ],
  });
  try {
    const types = [];
    loop.on('event', (ev) => types.push(ev.type));
    const started = nextEvent(loop.session, 'tool_started');
    const first = loop.run();
    await started;
    loop.session.interrupt('user_stop');
    const cut = await first;
    assert.equal(cut.code, 'ERR_INTERRUPTED');
    assert.equal(cut.done, false);
    assert.equal(cut.interrupted, true);
    assert.deepEqual(cut.tasks.map((t) => t.status), ['interrupted', 'pending']);
    assert.deepEqual(loop.session.eligibility, { eligible: true });
    assert.equal(types.at(-1), 'interrupted');

    const resumed = loop.continue();
    assert.ok(resumed instanceof Promise, 'an interrupted loop: continue() resumes it');
    assert.equal(loop.continue(), undefined, 'resumed already: a no-op, never a second run');
    const end = await resumed;
    assert.equal(end.done, true);
    assert.equal(end.interrupted, false);
    assert.deepEqual([end.completed, end.failed], [2, 0]);
    assert.deepEqual(types.slice(types.indexOf('interrupted') + 1, types.indexOf('interrupted') + 3), ['resumed', 'task_begin']);
    assert.equal(types.at(-1), 'completed');
    const h = loop.session.history();
    assert.deepEqual(h.filter((m) => m.role === 'user').map((m) => m.text), ['sleep', 'then']);
    assert.deepEqual(h.filter((m) => m.role === 'marker').map((m) => m.text), ['Stopped by you', 'Resumed']);
    assert.equal(loop.continue(), undefined, 'done: a no-op');
  } finally {
    loop.close();
    loop.session.close();
  }
});

test('emergency stop, then resumeAll resumes the stopped task loops once', async () => {
  const loops = [0, 1].map(() => engine.createTaskLoop({
    tasks: [
      { title: 'nap', prompt: 'sleep', script: [call('sleep', { ms: 600000 }), { text: 'woke up' }] },
      { title: 'then', prompt: 'then', script: [{ text: 'done' }] },
    ],
  }));
  try {
    const started = loops.map((l) => nextEvent(l.session, 'tool_started'));
    const firsts = loops.map((l) => l.run());
    await Promise.all(started);
    const stopped = engine.emergencyStop();
    assert.deepEqual([...stopped.stopped].sort(), loops.map((l) => l.session.id).sort());
    for (const r of await Promise.all(firsts)) assert.equal(r.interrupted, true);
    const ends = loops.map((l) => nextEvent(l, 'completed'));
    const reports = [engine.resumeAll(), engine.resumeAll()];
    const resumed = reports.flatMap((r) => r.resumed).filter((id) => loops.some((l) => l.session.id === id));
    assert.deepEqual(resumed.sort(), loops.map((l) => l.session.id).sort(), 'each loop resumed once');
    for (const ev of await Promise.all(ends)) assert.deepEqual([ev.state.completed, ev.state.done], [2, true]);
  } finally {
    for (const l of loops) {
      l.close();
      l.session.close();
    }
  }
});

test('session.check judges commands with the session\'s rules and grants', () => {
  const s = engine.createSession();
  assert.equal(s.check('ls -la').decision, 'allow');
  const rm = s.check('echo hi && rm -rf ./scratch');
  assert.equal(rm.decision, 'confirm');
  assert.ok(rm.reasons.length > 0);
  s.close();
  const ruled = new Engine({ bash: { policy: { rule: [{ name: 'no-shred', decision: 'deny', reason: 'r', program: 'shred' }] } } });
  assert.equal(ruled.createSession().check('shred -u notes.txt').decision, 'deny', 'the engine\'s policy applies');
  ruled.close();
});

test('bash.policy is the engine tier\'s policy, in the policy format: examples checked (camelCase kept), a lock holds over the user\'s file', () => {
  const dir = tempDir('interlock-engine-policy-');
  const userFile = path.join(dir, 'policy.toml');
  writeFileSync(userFile, '[[rule]]\nname = "no-npm"\ndecision = "deny"\nreason = "r"\nprogram = "npm"\n');
  const policy = { version: 1, rule: [{
    name: 'tests', decision: 'allow', reason: 'CI runs them', program: 'npm', subcommand: 'test', lock: true,
    examples: { match: ['npm test'], notMatch: ['npm publish'] },
  }] };
  const e = new Engine({ bash: { policy, userPolicy: userFile } });
  const s = e.createSession();
  assert.equal(s.check('npm test').decision, 'allow', 'the locked engine rule');
  assert.equal(s.check('npm publish').decision, 'deny', 'the user\'s rule');
  e.close();
  policy.rule[0].examples.notMatch = ['npm test --watch'];
  assert.throws(() => new Engine({ bash: { policy } }), (err) => {
    assert.equal(err.code, 'ERR_INVALID_ARGUMENT');
    assert.match(err.message, /bash\.policy: rule "tests": example "npm test --watch" is listed under examples\.notMatch but the rule matches it/);
    return true;
  });
  // The old prefix rules are gone: one way to write a rule.
  assert.throws(() => new Engine({ bash: { rules: [{ prefix: 'shred', action: 'deny' }] } }), /bash\.rules is not a known field: did you mean `policy`\?/);
});

test('errors are InterlockErrors with a code and the library message', () => {
  const s = engine.createSession();
  try {
    assert.throws(() => s.resume(), (err) => {
      assert.ok(err instanceof InterlockError);
      assert.ok(err instanceof Error);
      assert.equal(err.code, 'ERR_NOT_PAUSED');
      assert.match(err.message, /not paused/);
      return true;
    });
  } finally {
    s.close();
  }
});

test('closed sessions leave the engine', async () => {
  const s = engine.createSession({ script: [{ text: 'x' }] });
  await s.prompt('go');
  assert.ok(engine.sessions().some((x) => x.id === s.id));
  s.close();
  await s.closed;
  assert.ok(!engine.sessions().some((x) => x.id === s.id), 'the closed session is gone from sessions()');
  assert.throws(() => engine.session(s.id), { code: 'ERR_UNKNOWN_SESSION' });
});

test('closing a session from its own listener ends the run', async () => {
  const s = engine.createSession({ script: askConfirm });
  s.on('paused', () => s.close());
  const res = await s.prompt('go');
  assert.equal(res.status, 'interrupted');
  assert.equal(res.interruption.reason, 'system_stop');
  assert.equal(s.status, 'closed');
});

test('engine.ref() keeps the process alive for events of an idle session', async () => {
  const r = await runNode(fixture('ref-idle.mjs'));
  assert.equal(r.code, 0, describeExit(r));
  assert.equal(r.stdout.trim(), 'pause_requested');
});
