// The environment as Node has it now: variables set or deleted in
// process.env after the import (as dotenv.config() does) are what the
// engine reads by name and what commands inherit. The Go runtime in the
// library took its own copy when it loaded; the engine must not read that.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { after, before, test } from 'node:test';

import { Engine } from '../index.js';
import { tempDir } from './helpers.js';

let engine;
before(() => {
  engine = new Engine({ workDir: tempDir() });
});
after(async () => {
  engine?.close();
  await engine?.closed;
});

/** A one-turn OpenAI-compatible server on 127.0.0.1 that records each request's Authorization header. */
async function startKeyServer() {
  const authorizations = [];
  const chunk = (delta, finish = null) =>
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const server = createServer((req, res) => {
    authorizations.push(req.headers.authorization ?? null);
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.end(chunk({ role: 'assistant', content: 'keyed' }) + chunk({}, 'stop') + 'data: [DONE]\n\n');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/v1`,
    authorizations,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** The output of `env` run by the bash tool of a new session. */
async function commandEnv() {
  const s = engine.createSession({ script: [{ toolCalls: [{ name: 'bash', args: { command: 'env' } }] }, { text: 'done' }] });
  try {
    const res = await s.prompt('go');
    assert.equal(res.status, 'idle', JSON.stringify(res));
    return s.history().find((m) => m.role === 'tool').text;
  } finally {
    s.close();
  }
}

test('an API key set in process.env after the import reaches the server', async () => {
  const server = await startKeyServer();
  process.env.INTERLOCK_TEST_SET_LATER_KEY = 'sk-set-from-js';
  try {
    const s = engine.createSession({ provider: { type: 'openai', baseUrl: server.url, model: 'm', apiKeyEnv: 'INTERLOCK_TEST_SET_LATER_KEY' } });
    try {
      const res = await s.prompt('hi');
      assert.equal(res.outcome, 'finished', res.error?.message);
      assert.deepEqual(server.authorizations, ['Bearer sk-set-from-js']);
      assert.equal(s.history().at(-1).text, 'keyed');
    } finally {
      s.close();
    }
  } finally {
    delete process.env.INTERLOCK_TEST_SET_LATER_KEY;
    await server.close();
  }
});

test('a variable set in process.env after the import is seen by commands; a secret-looking one is not', async () => {
  process.env.INTERLOCK_TEST_SET_LATER = 'plain-from-js';
  process.env.INTERLOCK_TEST_SET_LATER_TOKEN = 'secret-from-js';
  try {
    const out = await commandEnv();
    assert.match(out, /^INTERLOCK_TEST_SET_LATER=plain-from-js$/m);
    assert.doesNotMatch(out, /secret-from-js/);
  } finally {
    delete process.env.INTERLOCK_TEST_SET_LATER;
    delete process.env.INTERLOCK_TEST_SET_LATER_TOKEN;
  }
});

test('a variable deleted from process.env after the import is no longer seen by commands', () => {
  // The variable must be in the environment the process started with (the
  // copy the Go runtime took), so this runs in a child started with it.
  const script = `
    import { Engine } from ${JSON.stringify(new URL('../index.js', import.meta.url).href)};
    delete process.env.INTERLOCK_TEST_DELETED;
    const e = new Engine();
    const s = e.createSession({ script: [{ toolCalls: [{ name: 'bash', args: { command: 'env' } }] }, { text: 'done' }] });
    await s.prompt('go');
    console.log(JSON.stringify(s.history().find((m) => m.role === 'tool').text));
    e.close();
    await e.closed;`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { ...process.env, INTERLOCK_TEST_DELETED: 'at-start', INTERLOCK_TEST_KEPT: 'at-start' },
  });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout.trim().split('\n').at(-1));
  assert.match(out, /^INTERLOCK_TEST_KEPT=at-start$/m, 'the command got the environment');
  assert.doesNotMatch(out, /INTERLOCK_TEST_DELETED/);
});
