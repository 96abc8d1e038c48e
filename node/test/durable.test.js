// Crash recovery through the real addon: a Node host with sessions
// proceeding (bash running sleep, model streams, pauses pending, some
// answered) over a store is killed with SIGKILL at random points; a new
// Engine on the store must find every proceeding session interrupted by
// server restart, every pending question needing input, the histories the
// killed host had reported, every answer it reported in the audit log, and
// a sound file.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { Engine } from '../index.js';
import { fixture, nextEvent, tempDir } from './helpers.js';

/** Runs the host over store, kills it killAfterMs after it reported the fact `from` (opened the store, or 'ready'), returns what it reported. */
function killedHost(store, sessions, killAfterMs, from = 'opened') {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fixture('durable-host.mjs'), store, String(sessions)], { stdio: ['ignore', 'pipe', 'pipe'] });
    const facts = [];
    let buf = '';
    let stderr = '';
    let timer;
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.on('data', (d) => {
      buf += d;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const fact = JSON.parse(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        facts.push(fact);
        if (fact.kind === from) timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
      }
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (signal !== 'SIGKILL') reject(new Error(`host ended with ${code ?? signal} before the kill: ${stderr}`));
      else resolve(facts); // a partial last line is dropped: it was never reported
    });
  });
}

/** Checks a store its host was killed over against what the host reported. */
function checkRecovery(store, facts) {
  const seen = new Map(); // session -> {mode, events, history, answered}
  for (const f of facts) {
    if (f.kind === 'created') seen.set(f.session, { mode: f.mode, events: [], history: [], answered: [] });
    const s = seen.get(f.session);
    if (f.kind === 'event') s.events.push(f.type);
    if (f.kind === 'history') s.history = f.history;
    if (f.kind === 'answered') s.answered.push(f.pause);
  }
  const engine = new Engine({ store });
  try {
    assert.equal(engine.checkStore(), 'ok');
    const snaps = new Map(engine.sessions().map((snap) => [snap.id, snap]));
    const audit = engine.auditLog();
    for (const [id, s] of seen) {
      const snap = snaps.get(id);
      assert.ok(snap, `session ${id} was created before the kill: it is in the store`);
      assert.notEqual(snap.runState, 'proceeding', `${id}: nothing proceeds after a restart`);
      const session = engine.session(id);
      const history = session.history();
      assert.deepEqual(history.slice(0, s.history.length), s.history, `${id} (${s.mode}): the history JS saw before the kill is kept`);
      const ended = s.events.some((t) => t === 'run_finished' || t === 'interrupted' || t === 'run_failed');
      const pending = s.events.includes('paused') && s.answered.length === 0;
      if (s.mode === 'pending' && pending) {
        assert.equal(snap.runState, 'blocked', `${id}: a pending question needs input`);
        assert.equal(snap.needsInput?.message, 'Allow?');
        assert.equal(snap.interruption?.reason, 'server_restart');
      } else if (s.events.includes('run_started') && !ended && s.mode !== 'answered' && s.mode !== 'streaming') {
        // bash sleep 30 and sleep 600000 cannot end by themselves: proceeding at the kill
        assert.ok(['interrupted', 'blocked'].includes(snap.runState), `${id} (${s.mode}): ${snap.runState}`);
        assert.equal(snap.interruption?.reason, 'server_restart', `${id} (${s.mode})`);
        assert.equal(history.at(-1).text, 'Interrupted by server restart');
      }
      if (snap.runState === 'interrupted' && snap.interruption.reason === 'server_restart') {
        // The sessions' scripts are their own models, which the store keeps:
        // this engine has no model of its own, and Continue is offered.
        assert.equal(snap.eligibility.eligible, true, `${id}: ${JSON.stringify(snap.eligibility)}`);
      }
      for (const pause of s.answered) {
        assert.ok(
          audit.some((a) => a.session === id && a.pause === pause && a.event === 'answered'),
          `${id}: the answer to ${pause} is in the audit log`,
        );
      }
    }
    const counts = engine.counts();
    assert.equal(counts.proceeding, 0);
    assert.equal(counts.needsInput, [...snaps.values()].filter((s) => s.runState === 'blocked').length);
  } finally {
    engine.close();
  }
  return engine.closed;
}

test('a host killed at 20 random points: the next host recovers every session honestly', { timeout: 120_000 }, async () => {
  const dir = tempDir('interlock-durable-');
  try {
    for (let i = 0; i < 20; i++) {
      const store = path.join(dir, `kill-${i}.db`);
      const killAfterMs = Math.floor(Math.random() * 600);
      const facts = await killedHost(store, 5, killAfterMs);
      await checkRecovery(store, facts).catch((err) => {
        throw new Error(`kill point ${i} (${killAfterMs} ms after open): ${err.message}`, { cause: err });
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a host with 200 sessions proceeding is killed: all 200 come back', { timeout: 120_000 }, async () => {
  const dir = tempDir('interlock-durable-');
  try {
    const store = path.join(dir, 'many.db');
    // killed once every session has been created and started, however long that took
    const facts = await killedHost(store, 200, 300, 'ready');
    assert.equal(facts.filter((f) => f.kind === 'created').length, 200, 'the host created 200 sessions before the kill');
    await checkRecovery(store, facts);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a second host on the same store gets ERR_STORE; the first keeps it', async () => {
  const dir = tempDir('interlock-durable-');
  const store = path.join(dir, 's.db');
  const first = new Engine({ store });
  try {
    assert.throws(() => new Engine({ store }), (err) => err.code === 'ERR_STORE' && err.message.includes(store) && /in use/.test(err.message));
    first.createSession({ id: 'kept' });
  } finally {
    first.close();
    await first.closed;
  }
  const second = new Engine({ store });
  assert.deepEqual(second.sessions().map((s) => s.id), ['kept']);
  second.close();
  await second.closed;
  rmSync(dir, { recursive: true, force: true });
});

test('a project grant remembered in one host is honoured after a restart, only in its project', async () => {
  const dir = tempDir('interlock-durable-');
  const store = path.join(dir, 's.db');
  const project = path.join(dir, 'project');
  const other = path.join(dir, 'other');
  mkdirSync(project);
  mkdirSync(other);
  const script = [{ toolCalls: [{ name: 'bash', args: { command: 'rm -f missing.txt' } }] }, { text: 'done' }];
  /** Runs the command in dir; answers a confirm with answer; returns whether it was asked. */
  async function run(engine, cwd, answer) {
    const s = engine.createSession({ workDir: cwd, script });
    let asked = false;
    s.on('paused', () => {
      asked = true;
      answer(s);
    });
    const res = await s.prompt('tidy up');
    assert.equal(res.status, 'idle', JSON.stringify(res));
    return asked;
  }
  const first = new Engine({ store });
  try {
    assert.equal(await run(first, project, (s) => s.confirm(true, { remember: 'project' })), true);
  } finally {
    first.close();
    await first.closed;
  }
  const second = new Engine({ store });
  try {
    assert.equal(await run(second, project, (s) => s.confirm(false)), false, 'the grant came back with the store');
    assert.equal(await run(second, other, (s) => s.confirm(false)), true, 'another project is asked');
  } finally {
    second.close();
    await second.closed;
  }
  rmSync(dir, { recursive: true, force: true });
});

test('a task loop of prompt tasks stopped in one host is resumed by the next', async () => {
  const dir = tempDir('interlock-durable-');
  const store = path.join(dir, 's.db');
  const first = new Engine({ store });
  let id;
  try {
    const loop = first.createTaskLoop({
      tasks: [
        { title: 'nap', prompt: 'sleep', script: [{ toolCalls: [{ name: 'sleep', args: { ms: 600000 } }] }, { text: 'woke up' }] },
        { title: 'then', prompt: 'then', script: [{ text: 'done' }] },
      ],
    });
    id = loop.session.id;
    const started = new Promise((resolve) => loop.session.on('tool_started', resolve));
    const run = loop.run();
    await started;
    loop.session.interrupt('user_stop');
    assert.equal((await run).interrupted, true);
  } finally {
    first.close();
    await first.closed;
  }
  const second = new Engine({ store });
  try {
    const s = second.session(id);
    assert.deepEqual(s.eligibility, { eligible: true }, 'the loop and its tasks\' scripts came back with the store');
    const [loop] = second.taskLoops();
    assert.equal(loop.session, s);
    const cut = loop.state();
    assert.deepEqual([cut.interrupted, cut.done], [true, false]);
    assert.deepEqual(cut.tasks.map((t) => [t.title, t.status]), [['nap', 'interrupted'], ['then', 'pending']]);
    const res = await s.continue();
    assert.equal(res.status, 'idle', JSON.stringify(res));
    assert.deepEqual([loop.state().completed, loop.state().done], [2, true]);
    const h = s.history();
    assert.deepEqual(h.filter((m) => m.role === 'user').map((m) => m.text), ['sleep', 'then'], 'the cut task went on, then the next');
    assert.deepEqual(h.filter((m) => m.role === 'marker').map((m) => m.text), ['Stopped by you', 'Resumed']);
  } finally {
    second.close();
    await second.closed;
  }
  rmSync(dir, { recursive: true, force: true });
});

/** Runs js-tool-host.mjs over store (with mode) and kills it (SIGKILL) once it says ready. */
async function killedJsToolHost(store, ...mode) {
  const child = spawn(process.execPath, [fixture('js-tool-host.mjs'), store, ...mode], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve, reject) => {
    child.stdout.once('data', () => resolve(child.kill('SIGKILL')));
    child.once('exit', (code, signal) => reject(new Error(`host ended with ${code ?? signal} before its kill point`)));
  });
  await new Promise((resolve) => child.once('close', resolve));
}

test('a JS tool cut by the kill makes resuming ask first, though the next host registers it after opening the store', async () => {
  const dir = tempDir('interlock-durable-');
  const store = path.join(dir, 's.db');
  try {
    await killedJsToolHost(store);
    const engine = new Engine({ store });
    try {
      let runs = 0;
      engine.registerTool('deploy', { run: () => `deployed ${++runs}` });
      const s = engine.session('a');
      assert.deepEqual(s.eligibility, { eligible: true, repeatsSideEffect: true });
      const asked = nextEvent(s, 'paused');
      const res = s.continue();
      const { pause } = await asked;
      assert.equal(pause.message, 'Resuming may repeat an action that was cut off');
      s.confirm(false, { pauseId: pause.id });
      assert.equal((await res).status, 'idle');
      assert.equal(runs, 0, 'the deploy did not run again');
    } finally {
      engine.close();
      await engine.closed;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a JS tool that acted, then asked, killed at its question: continue() asks before the tool runs again', async () => {
  const dir = tempDir('interlock-durable-');
  const store = path.join(dir, 's.db');
  try {
    await killedJsToolHost(store, 'acts-first');
    const engine = new Engine({ store });
    try {
      let runs = 0;
      engine.registerTool('deploy', { run: () => `deployed ${++runs}` });
      const s = engine.session('a');
      assert.equal(s.runState, 'blocked');
      assert.deepEqual(s.eligibility, { eligible: false, reason: 'Needs input: continue to be asked again', repeatsSideEffect: true, asksAgain: true });
      const asked = nextEvent(s, 'paused');
      const res = s.continue();
      const { pause } = await asked;
      assert.equal(pause.message, 'Resuming may repeat an action that was cut off');
      assert.equal(runs, 0, 'asked before the tool ran again');
      s.confirm(false, { pauseId: pause.id });
      assert.equal((await res).status, 'idle');
      assert.equal(runs, 0, 'the deploy did not run again');
      assert.equal(readFileSync(`${store}.effects`, 'utf8'), 'deployed\n', 'acted once, before the kill');
    } finally {
      engine.close();
      await engine.closed;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
