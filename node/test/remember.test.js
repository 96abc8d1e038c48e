// Remembered approvals of ordinary confirms: a JS tool's ctx.pause and a
// host loop's run.pause with a rememberKey, approved for the session or the
// project, are not asked again; what an approval can't be remembered with
// is refused at once.

import assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';

import { Engine, internals } from '../index.js';
import { askConfirm, nextEvent, tempDir } from './helpers.js';

const engine = new Engine({ workDir: tempDir() });
after(async () => {
  engine.close();
  await engine.closed;
  assert.equal(internals.counters().openHandles, 0, 'the library handle table is empty');
});

const answers = [];
engine.registerTool('js_deploy', {
  run: async (args, ctx) => {
    const a = await ctx.pause({ kind: 'confirm', message: `Deploy to ${args.env}?`, rememberKey: `deploy to ${args.env}` });
    answers.push(a);
    return a.answer === 'approved' ? 'deployed' : 'not deployed';
  },
});
const deploy = (env) => [{ toolCalls: [{ name: 'js_deploy', args: { env } }] }, { text: 'done' }];
/** Fails on any pause of s until the returned function is called. */
const noPause = (s) => {
  const fail = (ev) => assert.fail(`asked again: ${ev.pause.message}`);
  s.on('paused', fail);
  return () => s.off('paused', fail);
};

test("a JS tool's confirm approved for the session is not asked again in that session, and only there", async () => {
  const dir = tempDir();
  const s = engine.createSession({ workDir: dir, script: deploy('production') });
  const other = engine.createSession({ workDir: dir, script: deploy('production') });
  try {
    const shown = nextEvent(s, 'paused');
    const first = s.prompt('deploy');
    const pause = (await shown).pause;
    assert.deepEqual(pause.rememberScopes, ['session', 'project'], 'a keyed confirm offers both scopes');
    assert.equal(pause.rememberKey, 'deploy to production', 'the pause says what is remembered');
    s.confirm(true, { pauseId: pause.id, remember: 'session' });
    assert.equal((await first).status, 'idle');
    assert.deepEqual(answers.at(-1), { answer: 'approved', remember: 'session' });

    const off = noPause(s);
    const granted = nextEvent(s, 'granted');
    assert.equal((await s.prompt('deploy again')).status, 'idle');
    const ev = await granted;
    assert.deepEqual([ev.tool, ev.text, ev.remember, ev.answer, ev.by], ['js_deploy', 'deploy to production', 'session', 'approved', 'grant']);
    assert.deepEqual(answers.at(-1), { answer: 'approved', remember: 'session', by: 'grant' }, 'the tool learns a grant approved');
    assert.equal(s.history().filter((m) => m.role === 'tool').at(-1).text, 'deployed');
    off();

    const asked = nextEvent(other, 'paused');
    const third = other.prompt('deploy');
    other.confirm(false, { pauseId: (await asked).pause.id });
    assert.equal((await third).status, 'idle', "another session's grant approves nothing");
    assert.deepEqual(answers.at(-1), { answer: 'denied' });
  } finally {
    s.close();
    other.close();
  }
});

test("a host loop's run.pause approved for the session is not asked again", async () => {
  const s = engine.createSession();
  try {
    const run = s.begin();
    const req = { kind: 'confirm', tool: 'mailer', message: 'Send the weekly report?', details: 'to team@example.com', rememberKey: 'send weekly report to team@example.com' };
    const shown = nextEvent(s, 'paused');
    const first = run.pause(req);
    const pause = (await shown).pause;
    assert.deepEqual(pause.rememberScopes, ['session', 'project']);
    s.confirm(true, { pauseId: pause.id, remember: 'session' });
    assert.deepEqual(await first, { answer: 'approved', remember: 'session' });

    const off = noPause(s);
    const granted = nextEvent(s, 'granted');
    assert.deepEqual(await run.pause(req), { answer: 'approved', remember: 'session', by: 'grant' });
    assert.equal((await granted).tool, 'mailer');
    off();

    const asked = nextEvent(s, 'paused');
    const other = run.pause({ ...req, rememberKey: 'send weekly report to all@example.com' });
    s.confirm(false, { pauseId: (await asked).pause.id });
    assert.equal((await other).answer, 'denied', 'another key is asked');
    run.end();
  } finally {
    s.close();
  }
});

test('a remember scope the pause does not offer is refused at once', async (t) => {
  await t.test('a confirm without a key', async () => {
    const s = engine.createSession({ script: askConfirm });
    try {
      const shown = nextEvent(s, 'paused');
      const run = s.prompt('go');
      const pause = (await shown).pause;
      assert.equal(pause.rememberScopes, undefined, 'nothing offered');
      assert.throws(() => s.confirm(true, { pauseId: pause.id, remember: 'session' }), { code: 'ERR_INVALID_ARGUMENT', message: /not offered by this pause/ });
      assert.equal(s.status, 'paused', 'still waiting');
      s.confirm(true, { pauseId: pause.id, remember: 'once' });
      assert.equal((await run).status, 'idle');
    } finally {
      s.close();
    }
  });
  await t.test('a key on a continue pause', async () => {
    const s = engine.createSession();
    try {
      const run = s.begin();
      await assert.rejects(run.pause({ kind: 'continue', message: 'next?', rememberKey: 'next' }), { code: 'ERR_INVALID_ARGUMENT', message: /only an approval is remembered/ });
      run.end();
    } finally {
      s.close();
    }
  });
  await t.test('a scope that is not one', async () => {
    const s = engine.createSession();
    try {
      const run = s.begin();
      await assert.rejects(run.pause({ kind: 'confirm', message: 'Send?', rememberKey: 'send', rememberScopes: ['forever'] }), { code: 'ERR_INVALID_ARGUMENT', message: /remember scope "forever" \(offer "session" or "project"\)/ });
      await assert.rejects(run.pause({ kind: 'confirm', message: 'Send?', rememberKey: 5 }), { code: 'ERR_INVALID_ARGUMENT', message: /rememberKey must be a string, got a number/ });
      run.end();
    } finally {
      s.close();
    }
  });
  await t.test('a key with a command', async () => {
    const s = engine.createSession();
    try {
      const run = s.begin();
      await assert.rejects(async () => run.pause({ kind: 'confirm', command: 'rm -rf build', rememberKey: 'rm' }), { code: 'ERR_INVALID_ARGUMENT', message: /bash gate keys/ });
      run.end();
    } finally {
      s.close();
    }
  });
});

/** The grants_changed events of engine about session id, as [text, grant] (the engine's events, no session's). */
function grantChanges(id) {
  const seen = [];
  engine.on('grants_changed', (ev) => {
    assert.equal(ev.session, '', "the engine's event");
    if (ev.grant.session === id) seen.push([ev.text, ev.grant]);
  });
  return seen;
}

/** Resolves once seen has n entries. */
async function changes(seen, n) {
  while (seen.length < n) await nextEvent(engine, 'grants_changed');
  return seen;
}

test('engine.grants() lists what was remembered; revokeGrant() takes it back: the next confirm asks again; each change is a grants_changed event', async () => {
  const dir = tempDir();
  const s = engine.createSession({ workDir: dir, script: deploy('staging') });
  const seen = grantChanges(s.id);
  try {
    const shown = nextEvent(s, 'paused');
    const first = s.prompt('deploy');
    s.confirm(true, { pauseId: (await shown).pause.id, remember: 'session' });
    await first;
    const mine = engine.grants().filter((g) => g.session === s.id);
    assert.equal(mine.length, 1);
    assert.deepEqual({ ...mine[0], at: undefined }, { tool: 'js_deploy', key: 'deploy to staging', scope: 'session', session: s.id, at: undefined });
    assert.deepEqual(await changes(seen, 1), [['added', mine[0]]]);

    engine.revokeGrant(mine[0]);
    assert.deepEqual(engine.grants().filter((g) => g.session === s.id), []);
    assert.deepEqual(await changes(seen, 2), [['added', mine[0]], ['revoked', mine[0]]], 'a revoke by code is told to every listener');
    assert.throws(() => s.on('grants_changed', () => {}), { code: 'ERR_INVALID_ARG_VALUE' }, "the engine's event: a session's listener would never hear it");
    const asked = nextEvent(s, 'paused');
    const again = s.prompt('deploy again');
    s.confirm(false, { pauseId: (await asked).pause.id });
    assert.equal((await again).status, 'idle', 'asked again after the revoke');

    assert.throws(() => engine.revokeGrant(mine[0]), { code: 'ERR_INVALID_ARGUMENT', message: /deploy to staging/ });
    assert.throws(() => engine.revokeGrant('all'), { code: 'ERR_INVALID_ARG_TYPE' });
  } finally {
    s.close();
  }
});

test("a JS tool's project grant is honoured after a restart with a file store, in its project only", async () => {
  const dir = tempDir('interlock-remember-');
  const store = path.join(dir, 's.db');
  const project = path.join(dir, 'project');
  const other = path.join(dir, 'other');
  mkdirSync(project);
  mkdirSync(other);
  /** An engine on the store with the deploy tool. */
  const open = () => {
    const e = new Engine({ store });
    e.registerTool('js_deploy', { run: async (args, ctx) => (await ctx.pause({ kind: 'confirm', message: 'Deploy?', rememberKey: `deploy to ${args.env}` })).answer });
    return e;
  };
  /** Deploys from cwd; answers a confirm with answer; returns whether it was asked. */
  async function run(e, cwd, answer) {
    const s = e.createSession({ workDir: cwd, script: deploy('production') });
    let asked = false;
    s.on('paused', (ev) => {
      asked = true;
      answer(s, ev.pause.id);
    });
    assert.equal((await s.prompt('deploy')).status, 'idle');
    return asked;
  }
  const first = open();
  try {
    assert.equal(await run(first, project, (s, id) => s.confirm(true, { pauseId: id, remember: 'project' })), true);
  } finally {
    first.close();
    await first.closed;
  }
  const second = open();
  try {
    assert.equal(await run(second, project, (s, id) => s.confirm(false, { pauseId: id })), false, 'the grant came back with the store');
    assert.equal(await run(second, other, (s, id) => s.confirm(false, { pauseId: id })), true, 'another project is asked');
    const granted = second.auditLog().filter((a) => a.event === 'granted');
    assert.deepEqual(granted.map((a) => [a.tool, a.message, a.remember]), [['js_deploy', 'deploy to production', 'project']]);
  } finally {
    second.close();
    await second.closed;
  }
  rmSync(dir, { recursive: true, force: true });
});

test("engine.grants() lists the bash tool's grants too, and revokeGrant() takes them back", async () => {
  const dir = tempDir();
  const s = engine.createSession({ workDir: dir, script: [{ toolCalls: [{ name: 'bash', args: { command: 'rm -f notes.txt' } }] }, { text: 'done' }] });
  const seen = grantChanges(s.id);
  try {
    let asked = 0;
    const keys = [];
    s.on('paused', (ev) => {
      asked++;
      keys.push(ev.pause.rememberKey);
      s.confirm(true, { pauseId: ev.pause.id, remember: 'session' });
    });
    await s.prompt('tidy');
    const mine = engine.grants().filter((g) => g.session === s.id);
    assert.deepEqual(mine.map((g) => [g.tool, g.key, g.scope]), [['bash', `rm -f notes.txt (in ${dir})`, 'session']]);
    assert.deepEqual(keys, [mine[0].key], 'the confirm said what [S] remembers');
    assert.deepEqual(await changes(seen, 1), [['added', mine[0]]]);
    await s.prompt('tidy again');
    assert.equal(asked, 1, 'remembered');
    engine.revokeGrant(mine[0]);
    assert.deepEqual(await changes(seen, 2), [['added', mine[0]], ['revoked', mine[0]]]);
    await s.prompt('tidy once more');
    assert.equal(asked, 2, 'asked again after the revoke');
  } finally {
    s.close();
  }
});
