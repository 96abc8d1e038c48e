// The fleet's hub from JS: new Engine({hub: {url, host}}) through the
// config path. The hub's own behaviour (mirror, answers, stops, partitions)
// is tested in Go with real PostgreSQL and Node host processes
// (engine/hub/*_test.go).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Engine } from '../index.js';

// Nothing listens on port 1: the hub is unreachable.
const unreachable = 'postgres://interlock:pw@127.0.0.1:1/fleet?connect_timeout=1';

test('hub needs url and host, each a string, named as written', () => {
  assert.throws(() => new Engine({ hub: { url: unreachable } }), { code: 'ERR_INVALID_ARG_TYPE', message: /config\.hub\.host is missing/ });
  assert.throws(() => new Engine({ hub: { url: unreachable, host: 3 } }), { code: 'ERR_INVALID_ARG_TYPE', message: /config\.hub\.host must be a string/ });
  assert.throws(() => new Engine({ hub: { url: unreachable, host: 'a', retentionDays: '30' } }), { code: 'ERR_INVALID_ARG_TYPE', message: /config\.hub\.retentionDays must be a number/ });
  assert.throws(() => new Engine({ hub: { url: unreachable, hostname: 'a' } }), { code: 'ERR_INVALID_ARG_VALUE', message: /config\.hub\.hostname is not a known field/ });
  assert.throws(() => new Engine({ hub: { url: unreachable, host: '' } }), (err) => err.code === 'ERR_INVALID_ARGUMENT' && /hub: invalid argument: host is empty/.test(err.message) && !err.message.includes(':pw@'));
});

test('with the hub unreachable the engine works and pauses are answered locally', async () => {
  const engine = new Engine({ hub: { url: unreachable, host: 'laptop', retentionDays: 7 } });
  try {
    const s = engine.createSession({
      script: [{ toolCalls: [{ name: 'ask', args: { kind: 'confirm', message: 'Deploy?' } }] }, { text: 'Done.' }],
    });
    s.on('paused', (ev) => s.confirm(true, { pauseId: ev.pause.id }));
    const r = await s.prompt('deploy');
    assert.equal(r.outcome, 'finished');
  } finally {
    await engine.close();
  }
});

test('serve({fleet: true}) needs the engine\'s hub, and says how to get one', async () => {
  const engine = new Engine();
  try {
    assert.throws(() => engine.serve({ fleet: true }), (err) => err.code === 'ERR_INVALID_ARGUMENT'
      && /^engine\.serve\(opts\): fleet: true serves the fleet of the engine's hub, and this engine has none: create it with a hub \(new Engine\(\{hub: \{url, host\}\}\)\), or run agent-interlock hub --url URL$/.test(err.message));
    assert.throws(() => engine.serve({ fleet: 'yes' }), { code: 'ERR_INVALID_ARG_TYPE', message: /opts\.fleet must be true or false, got a string/ });
  } finally {
    await engine.close();
  }
});
