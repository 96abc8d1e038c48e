// Tools as users declare them: arguments checked against the tool's own
// JSON Schema before run, needsApproval raising the engine's confirm (sync,
// async, remembered), and the built-in tools an engine offers chosen by its
// config.

import assert from 'node:assert/strict';
import { after, test } from 'node:test';

import { Engine } from '../index.js';
import { call, nextEvent, tempDir } from './helpers.js';

const engines = [];
after(async () => {
  for (const e of engines) await e.close();
});

function newEngine(config = {}) {
  const e = new Engine({ workDir: tempDir(), ...config });
  engines.push(e);
  return e;
}

const ADD = {
  type: 'object',
  properties: { a: { type: 'number' }, b: { type: 'number' } },
  required: ['a', 'b'],
  additionalProperties: false,
};

/** The tool message of the run's first tool call. */
const toolMessage = (s) => s.history().find((m) => m.role === 'tool');

// Attack (issue 28): {a: 'not a number', extra: true} reached run() despite
// `required` and `additionalProperties: false`.
test('arguments that do not match parameters never reach run: the model gets a tool error saying what is wrong', async () => {
  const e = newEngine();
  const calls = [];
  e.registerTool('add', { parameters: ADD, run: (args) => (calls.push(args), args.a + args.b) });
  const s = e.createSession({ script: [call('add', { a: 'not a number', extra: true }), { text: 'done' }] });
  const res = await s.prompt('go');
  assert.equal(res.outcome, 'finished');
  assert.deepEqual(calls, [], 'run was not called');
  const msg = toolMessage(s);
  assert.equal(msg.isError, true);
  assert.match(msg.text, /tool add: the arguments do not match its parameters/);
  assert.match(msg.text, /args\.a must be number/);
  assert.match(msg.text, /no field "extra"/);
  assert.match(msg.text, /needs the field "b"/);
  const ok = e.createSession({ script: [call('add', { a: 2, b: 3 }), { text: 'done' }] });
  await ok.prompt('go');
  assert.equal(toolMessage(ok).text, '5');
  assert.deepEqual(calls, [{ a: 2, b: 3 }]);
});

test('a parameters object that is not a JSON Schema is refused by registerTool', () => {
  const e = newEngine();
  assert.throws(() => e.registerTool('bad', { parameters: { type: 'nonsense' }, run() {} }), {
    code: 'ERR_INVALID_ARG_VALUE', message: /engine\.registerTool.*tool\.parameters is not a valid JSON Schema/,
  });
});

for (const [kind, needsApproval] of [['true', true], ['a sync function', () => true], ['an async function', async () => true]]) {
  test(`needsApproval ${kind} raises the engine's confirm before run; a denial is a tool error and run is not called`, async () => {
    const e = newEngine({ store: ':memory:' }); // the audit log is the store's
    let ran = 0;
    e.registerTool('deploy', { needsApproval, run: () => (ran++, 'deployed') });
    const s = e.createSession({ script: [call('deploy', { env: 'prod' }), call('deploy', { env: 'prod' }), { text: 'done' }] });
    const answers = [false, true];
    s.on('paused', (ev) => {
      assert.equal(ev.pause.kind, 'confirm');
      assert.equal(ev.pause.tool, 'deploy');
      assert.match(ev.pause.details, /"env": "prod"/);
      s.confirm(answers.shift(), { pauseId: ev.pause.id });
    });
    const res = await s.prompt('go');
    assert.equal(res.outcome, 'finished');
    assert.equal(ran, 1, 'run only after the approval');
    const tools = s.history().filter((m) => m.role === 'tool');
    assert.equal(tools[0].isError, true);
    assert.match(tools[0].text, /tool deploy was not run: the user answered denied/);
    assert.equal(tools[1].text, 'deployed');
    const audit = e.auditLog(s.id).filter((a) => a.event === 'answered').map((a) => a.answer);
    assert.deepEqual(audit, ['denied', 'approved'], 'the audit log has both answers');
  });
}

test('needsApproval per call: false runs without asking; a throw fails closed', async () => {
  const e = newEngine();
  let ran = 0;
  e.registerTool('rm', {
    needsApproval: (args) => {
      if (args.path === '?') throw new Error('cannot tell');
      return args.path.startsWith('/');
    },
    run: () => (ran++, 'removed'),
  });
  const s = e.createSession({ script: [call('rm', { path: 'tmp/x' }), call('rm', { path: '?' }), { text: 'done' }] });
  s.on('paused', () => assert.fail('asked for a relative path'));
  await s.prompt('go');
  const tools = s.history().filter((m) => m.role === 'tool');
  assert.equal(tools[0].text, 'removed');
  assert.equal(tools[1].isError, true);
  assert.match(tools[1].text, /needsApproval threw \(cannot tell\)/);
  assert.equal(ran, 1);
});

test('rememberKey: an approval remembered for the session approves the same key without asking, not another', async () => {
  const e = newEngine();
  let ran = 0;
  e.registerTool('mail', { needsApproval: true, rememberKey: (args) => `mail ${args.to}`, run: () => (ran++, 'sent') });
  const s = e.createSession({
    script: [call('mail', { to: 'a@x' }), call('mail', { to: 'a@x' }), call('mail', { to: 'b@x' }), { text: 'done' }],
  });
  const asked = [];
  s.on('paused', (ev) => {
    asked.push(ev.pause.rememberKey);
    s.confirm(true, { pauseId: ev.pause.id, remember: 'session' });
  });
  const granted = nextEvent(s, 'granted');
  await s.prompt('go');
  assert.deepEqual(asked, ['mail a@x', 'mail b@x'], 'the second a@x was not asked');
  assert.equal((await granted).text, 'mail a@x');
  assert.equal(ran, 3);
  assert.ok(e.grants().some((g) => g.tool === 'mail' && g.key === 'mail a@x' && g.scope === 'session'));
});

test('tools: the engine offers only the built-in tools chosen; a call of another is an unknown tool', async () => {
  const e = newEngine({ tools: ['ask'] });
  assert.deepEqual(e.info().tools.filter((t) => ['ask', 'bash', 'sleep', 'web'].includes(t)).sort(), ['ask']);
  e.registerTool('mine', { run: () => 'mine ran' });
  assert.ok(e.info().tools.includes('mine'), 'tools registered later are offered');
  const s = e.createSession({ script: [call('bash', { command: 'echo hi' }), { text: 'done' }] });
  await s.prompt('go');
  const msg = toolMessage(s);
  assert.equal(msg.isError, true);
  assert.match(msg.text, /unknown tool/);
  const all = newEngine();
  assert.deepEqual(all.info().tools.filter((t) => ['ask', 'bash', 'sleep', 'web'].includes(t)).sort(), ['ask', 'bash', 'sleep', 'web'], 'default: all of them');
});

test('tools: a name that is not a built-in tool is refused, naming it', () => {
  assert.throws(() => new Engine({ tools: ['bash', 'shell'] }), { code: 'ERR_INVALID_ARGUMENT', message: /new Engine\(config\): tools: "shell" is not a built-in tool: choose among ask, bash, sleep, web/ });
});

test('tools: a session chooses among the engine\'s built-in tools; the others are neither offered nor run', async () => {
  const e = newEngine({ tools: ['ask', 'sleep'] });
  e.registerTool('mine', { run: () => 'mine ran' });
  const s = e.createSession({ tools: ['sleep'], script: [call('ask', { kind: 'continue', message: 'hi' }), call('mine', {}), { text: 'done' }] });
  const r = await s.prompt('go');
  assert.equal(r.outcome, 'finished');
  const tools = s.history().filter((m) => m.role === 'tool');
  assert.equal(tools[0].isError, true);
  assert.match(tools[0].text, /"ask" is not offered in this session \(its tools: sleep\)/);
  assert.equal(tools[1].text, 'mine ran', 'tools registered with registerTool are offered too');
  assert.throws(() => e.createSession({ tools: ['bash'] }), {
    code: 'ERR_INVALID_ARGUMENT',
    message: /^engine\.createSession\(opts\): tools: "bash" is not a built-in tool of this engine: choose among ask, sleep/,
  });
});
