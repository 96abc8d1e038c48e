// Thirty common mistakes from JS, as a new user makes them: each fails with
// an error that has a code, names the call and the field as written, says
// what to do, and speaks JS (no C function names, no Go identifiers, no
// snake_case of the library's JSON).

import assert from 'node:assert/strict';
import { after, test } from 'node:test';

import { Engine, InterlockError } from '../index.js';
import { askConfirm, hang, nextEvent, tempDir } from './helpers.js';

const dir = tempDir();
const engine = new Engine({ workDir: dir });
const cleanups = [];
after(async () => {
  for (const c of cleanups) await c();
  await engine.close();
});

function idle(opts) {
  const s = engine.createSession(opts);
  cleanups.push(() => s.close());
  return s;
}

async function running() {
  const s = idle({ script: hang });
  const started = nextEvent(s, 'run_started');
  const run = s.prompt('go');
  cleanups.push(() => run);
  await started;
  return s;
}

async function closedEngine() {
  const e = new Engine();
  await e.close();
  return e;
}

const throwingProxy = new Proxy({}, { ownKeys() { throw new Error('trap'); } });

// call: how the message names the call; field: the field as the user wrote it.
const cases = [
  { name: 'snake_case engine key', call: 'new Engine', field: 'config.work_dir', hint: /did you mean `workDir`/, run: () => new Engine({ work_dir: dir }) },
  { name: 'engine key typo', call: 'new Engine', field: 'config.workdir', hint: /did you mean `workDir`/, run: () => new Engine({ workdir: dir }) },
  { name: 'workDir that does not exist', call: 'new Engine', field: 'config.workDir', hint: /does not exist/, run: () => new Engine({ workDir: '/nonexistent/interlock' }) },
  { name: 'store in a folder that does not exist', call: 'new Engine', field: 'config.store', hint: /does not exist/, run: () => new Engine({ store: '/nonexistent/interlock/s.db' }) },
  { name: 'provider baseURL', call: 'new Engine', field: 'config.provider.baseURL', hint: /did you mean `baseUrl`/, run: () => new Engine({ provider: { type: 'openai', baseURL: 'http://127.0.0.1:1/v1', model: 'm' } }) },
  { name: 'provider api_key_env', call: 'new Engine', field: 'config.provider.api_key_env', hint: /did you mean `apiKeyEnv`/, run: () => new Engine({ provider: { type: 'openai', model: 'm', api_key_env: 'K' } }) },
  { name: 'bash timeout as a string', call: 'new Engine', field: 'config.bash.timeoutMs', hint: /must be a number/, run: () => new Engine({ bash: { timeoutMs: '5s' } }) },
  { name: 'bash timeout without its unit', call: 'new Engine', field: 'config.bash.timeout', hint: /did you mean `timeoutMs`/, run: () => new Engine({ bash: { timeout: 5000 } }) },
  { name: 'config as a JSON string', call: 'new Engine', field: 'config', hint: /must be an object/, run: () => new Engine('{"work_dir": "/tmp"}') },
  { name: 'store as a Date', call: 'new Engine', field: 'config.store', hint: /Date/, run: () => new Engine({ store: new Date() }) },
  { name: 'toJSON that throws', call: 'new Engine', field: 'config.bash.toJSON', hint: /threw/, run: () => new Engine({ bash: { toJSON() { throw new Error('no'); } } }) },
  { name: 'toJSON that returns a number', call: 'new Engine', field: 'config.bash.toJSON', hint: /must return an object/, run: () => new Engine({ bash: { toJSON: () => 5 } }) },
  { name: 'Proxy whose trap throws', call: 'new Engine', field: 'config', hint: /threw/, run: () => new Engine(throwingProxy) },
  { name: 'session dir instead of workDir', call: 'engine.createSession', field: 'opts.dir', hint: /did you mean `workDir`/, run: () => idle({ dir }) },
  { name: 'session workDir that does not exist', call: 'engine.createSession', field: 'opts.workDir', hint: /does not exist/, run: () => idle({ workDir: `${dir}/missing` }) },
  { name: 'session tool the engine left out', call: 'engine.createSession', field: 'opts.tools', hint: /not a built-in tool of this engine: choose among/, run: () => idle({ tools: ['web', 'bsh'] }) },
  { name: 'env as KEY=value strings', call: 'engine.createSession', field: 'opts.env', hint: /object of strings/, run: () => idle({ env: ['A=1'] }) },
  { name: 'snake_case tool_calls in a script', call: 'engine.createSession', field: 'opts.script[0].tool_calls', hint: /did you mean `toolCalls`/, run: () => idle({ script: [{ tool_calls: [] }] }) },
  { name: 'script text as a number', call: 'engine.createSession', field: 'opts.script[0].text', hint: /must be a string/, run: () => idle({ script: [{ text: 5 }] }) },
  { name: 'provider without a model', call: 'engine.createSession', field: 'opts.provider.model', hint: /missing/, run: () => idle({ provider: { type: 'openai' } }) },
  { name: 'task loop without tasks', call: 'engine.createTaskLoop', field: 'opts.tasks', hint: /missing/, run: () => engine.createTaskLoop({}) },
  { name: 'task without a prompt', call: 'engine.createTaskLoop', field: 'opts.tasks[0].prompt', hint: /missing/, run: () => engine.createTaskLoop({ tasks: [{ title: 'a' }] }) },
  { name: 'prompt of a number', call: 'session.prompt', field: 'text', hint: /must be a string/, run: () => idle().prompt(42) },
  { name: 'confirm with nothing paused', call: 'session.confirm', field: 'approved', hint: /no confirm|not paused|nothing/i, run: () => idle().confirm(true) },
  { name: 'confirm with "yes"', call: 'session.confirm', field: 'approved', hint: /must be true or false/, run: () => idle({ script: askConfirm }).confirm('yes') },
  { name: 'resume with nothing paused', call: 'session.resume', field: 'pauseId', hint: /not paused|nothing/i, run: () => idle().resume() },
  { name: 'continue of an idle session', call: 'session.continue', field: 'session', hint: /nothing to continue|not/i, run: () => idle().continue() },
  { name: 'prompt while running', call: 'session.prompt', field: 'session', hint: /running|wait/i, run: async () => (await running()).prompt('again') },
  { name: 'createSession on a closed engine', call: 'engine.createSession', field: 'engine', hint: /closed.*new Engine/, run: async () => (await closedEngine()).createSession() },
  { name: 'unknown event name', call: 'session.on', field: 'type', allow: ['run_finish'], hint: /did you mean `run_finished`/, run: () => idle().on('run_finish', () => {}) },
  { name: 'tool run that is not a function', call: 'engine.registerTool', field: 'tool.run', hint: /must be a function/, run: () => engine.registerTool('t', { run: 5 }) },
  { name: 'tool key typo', call: 'engine.registerTool', field: 'tool.paramters', hint: /did you mean `parameters`/, run: () => engine.registerTool('t', { paramters: {}, run() {} }) },
  { name: 'unknown session id', call: 'engine.session', field: 'id', hint: /no open session/, run: () => engine.session('nope') },
  { name: 'interrupt with a made-up reason', call: 'session.interrupt', field: 'reason', hint: /user_stop/, run: () => idle().interrupt('because') },
  { name: 'resumeAll with one id', call: 'engine.resumeAll', field: 'ids', hint: /array/, run: () => engine.resumeAll('s1') },
];

// Go identifiers and C names a JS user never wrote.
const FOREIGN = [/\bil_[a-z_]+/, /\bWith[A-Z][A-Za-z]+\(?/, /\bengine\.[A-Z]\w+/, /\bErr[A-Z]\w+/, /json: /, /\bstruct\b/, /\bGo\b/];
const SNAKE = /\b[a-z]+(?:_[a-z]+)+\b/g;

for (const c of cases) {
  test(`mistake: ${c.name}`, async () => {
    let err;
    try {
      await c.run();
    } catch (e) {
      err = e;
    }
    assert.ok(err, 'no error');
    assert.ok(err instanceof InterlockError, `not an InterlockError: ${err?.name}: ${err?.message}`);
    assert.match(err.code, /^ERR_[A-Z_]+$/, err.message);
    assert.ok(err.message.includes(c.call), `message does not name the call ${c.call}: ${err.message}`);
    const field = c.field.split('.').pop();
    assert.ok(err.message.includes(field), `message does not name the field ${c.field}: ${err.message}`);
    assert.match(err.message, c.hint);
    for (const re of FOREIGN) assert.doesNotMatch(err.message, re);
    // snake_case words are allowed only where the user wrote them, or are event and reason names of the API.
    const allowed = new Set([...c.field.split(/[.[\]]/), ...(c.allow ?? []), 'user_stop', 'emergency_stop', 'server_restart', 'system_stop', 'run_finished']);
    for (const w of err.message.match(SNAKE) ?? []) assert.ok(allowed.has(w), `snake_case ${w} in: ${err.message}`);
  });
}

test('there are at least 30 mistakes', () => {
  assert.ok(cases.length >= 30);
});
