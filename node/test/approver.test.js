// engine.setApprover: the host's approver decides a command the gate would
// put to a person, through the real addon and the bash tool. allow runs it
// and deny refuses it without a pause; ask, a throw, another answer or no
// answer in time put it to the person (fail closed).
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { Engine } from '../index.js';
import { tempDir } from './helpers.js';

/** Runs `rm -f notes.txt` (the gate asks: a project file) in a new session; returns whether a person was asked, the tool result and the decided events. */
async function attempt(engine, answerPerson = false) {
  const dir = tempDir('interlock-approver-');
  writeFileSync(path.join(dir, 'notes.txt'), 'keep');
  const s = engine.createSession({ workDir: dir, script: [{ toolCalls: [{ name: 'bash', args: { command: 'rm -f notes.txt' } }] }, { text: 'done' }] });
  let pause;
  const decided = [];
  s.on('decided', (ev) => decided.push([ev.by, ev.answer]));
  s.on('paused', (ev) => {
    pause = ev.pause;
    s.confirm(answerPerson);
  });
  await s.prompt('tidy up');
  const tool = s.history().filter((m) => m.role === 'tool').at(-1);
  return { pause, result: tool.text, decided, dir, session: s.id };
}

test('the approver decides before a person: allow, deny, ask, with the command as judged', async () => {
  const engine = new Engine();
  const asked = [];
  let answer = 'allow';
  engine.setApprover(async (request) => {
    asked.push(request);
    return answer;
  });
  try {
    let r = await attempt(engine);
    assert.equal(r.pause, undefined, 'allowed by the approver: nobody asked');
    assert.deepEqual(r.decided, [['approver', 'approved']]);
    assert.equal(asked.length, 1);
    assert.deepEqual({ ...asked[0] }, { session: r.session, dir: asked[0].dir, tool: 'Bash', command: 'rm -f notes.txt', reasons: ['forced deletion: rm -f notes.txt'] });
    assert.ok(asked[0].dir.endsWith(path.basename(r.dir)), asked[0].dir);

    answer = 'deny';
    r = await attempt(engine);
    assert.equal(r.pause, undefined);
    assert.equal(r.result, 'Command denied by the approver');
    assert.deepEqual(r.decided, [['approver', 'denied']]);

    answer = 'ask';
    r = await attempt(engine, true);
    assert.deepEqual(r.pause.reasons, ['forced deletion: rm -f notes.txt']);

    engine.setApprover(null);
    r = await attempt(engine);
    assert.equal(asked.length, 3, 'removed: not asked');
    assert.ok(r.pause);
  } finally {
    await engine.close();
  }
});

test('an approver that throws, answers something else or does not answer in time leaves it to the person', async () => {
  const engine = new Engine();
  try {
    for (const [approver, reason] of [
      [() => { throw new Error('review service down'); }, 'approver did not decide: review service down'],
      [async () => 'yes', 'approver did not decide: it answered "yes": answer "allow", "deny" or "ask"'],
      [() => new Promise(() => {}), 'approver did not decide: no answer within 100ms'],
    ]) {
      engine.setApprover(approver, { timeoutMs: 100 });
      const r = await attempt(engine);
      assert.deepEqual(r.pause?.reasons, ['forced deletion: rm -f notes.txt', reason]);
      assert.match(r.result, /Command denied by user/);
    }
    assert.throws(() => engine.setApprover('allow'), { code: 'ERR_INVALID_ARG_TYPE' });
    assert.throws(() => engine.setApprover(() => 'allow', { timeoutMs: -1 }), { code: 'ERR_INVALID_ARG_VALUE' });
  } finally {
    await engine.close();
  }
});

test('policy files from JS: the user\'s decides, a project\'s only once trusted, and a change untrusts it', async () => {
  const dir = tempDir('interlock-policy-');
  const project = path.join(dir, 'project');
  mkdirSync(path.join(project, '.git'), { recursive: true });
  mkdirSync(path.join(project, '.interlock'));
  const userFile = path.join(dir, 'policy.toml');
  writeFileSync(userFile, '[[rule]]\nname = "no-date"\ndecision = "deny"\nreason = "not here"\nprogram = "date"\nexamples = { match = ["sudo date"] }\n');
  const projectFile = path.join(project, '.interlock', 'policy.toml');
  writeFileSync(projectFile, '[[rule]]\nname = "no-uname"\ndecision = "deny"\nreason = "the project says no"\nprogram = "uname"\n');
  const engine = new Engine({ bash: { userPolicy: userFile, projectPolicy: { trustFile: path.join(dir, 'trust.json') } } });
  try {
    const run = async (command) => {
      const s = engine.createSession({ workDir: project, script: [{ toolCalls: [{ name: 'bash', args: { command } }] }, { text: 'done' }] });
      await s.prompt('go');
      return s.history().filter((m) => m.role === 'tool').at(-1).text;
    };
    assert.equal(await run('date'), 'Command denied by rule: denied by user rule "no-date" (not here): date');
    assert.doesNotMatch(await run('uname'), /denied/, 'not trusted yet: not used');
    const shown = engine.reviewProjectPolicy(project); // what a person reads before trusting it (the TUI's PolicyTrust)
    assert.deepEqual(shown, { path: projectFile, sha256: shown.sha256, trusted: false,
      rules: [{ name: 'no-uname', decision: 'deny', reason: 'the project says no', matches: 'program uname' }] });
    assert.equal(engine.reviewProjectPolicy(dir), null, 'no project file there');
    assert.throws(() => engine.trustProjectPolicy(project, { sha256: '0'.repeat(64) }), (err) => {
      assert.equal(err.code, 'ERR_INVALID_ARGUMENT');
      assert.match(err.message, /was shown with sha256 0{64} and is now [0-9a-f]{64}: read it again, then trust it/);
      return true;
    }, 'trust binds to the content shown');
    assert.equal(engine.reviewProjectPolicy(project).trusted, false);
    const trusted = engine.trustProjectPolicy(project, { sha256: shown.sha256 });
    assert.equal(engine.reviewProjectPolicy(project).trusted, true);
    assert.equal(trusted.path, projectFile);
    assert.equal(trusted.sha256.length, 64);
    assert.equal(await run('uname'), 'Command denied by rule: denied by project rule "no-uname" (the project says no): uname');
    writeFileSync(projectFile, '[[rule]]\nname = "no-uname"\ndecision = "allow"\nreason = "changed"\nprogram = "uname"\n');
    assert.doesNotMatch(await run('uname -a'), /denied/, 'changed since trusted: not used');
    assert.throws(() => engine.trustProjectPolicy(42), { code: 'ERR_INVALID_ARG_TYPE' });
  } finally {
    await engine.close();
  }
});
