// close() returns at once, also while a command ignores SIGTERM (its kill
// needs the grace); `closed` settles once everything has unwound and the
// command is gone. Process exit still waits for a close in progress.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';

import { Engine, internals } from '../index.js';
import { describeExit, fixture, runNode, tempDir } from './helpers.js';

const stubborn = `sh -c 'trap "" TERM; echo "ready $$"; while :; do sleep 0.05; done'`;

/** Live (not zombie) members of process group pgid. */
function liveGroup(pgid) {
  const live = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue;
    }
    const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(group) === pgid && state !== 'Z' && state !== 'X') live.push(Number(name));
  }
  return live;
}

/** A session running the stubborn command; resolves with it, its run and the command's process group. */
async function spinning(engine) {
  const s = engine.createSession({ script: [{ toolCalls: [{ name: 'bash', args: { command: stubborn } }] }] });
  s.on('paused', () => s.confirm(true));
  const pgid = new Promise((resolve) => s.on('tool_progress', function on(ev) {
    const m = /ready (\d+)/.exec(ev.text ?? '');
    if (!m) return;
    s.off('tool_progress', on);
    resolve(Number(m[1])); // sh -c leads its own group: the tool's process group
  }));
  const run = s.prompt('spin');
  return { s, run, pgid: await pgid };
}

// A grace long enough that "still alive right after close() returned" can
// only fail if close() waited for the kill.
const config = () => ({ workDir: tempDir(), bash: { graceMs: 1500, rules: [{ prefix: 'sh -c', action: 'allow' }] } });

test('session.close() returns before the command dies; closed settles after it is gone and after the closed event', async () => {
  const engine = new Engine(config());
  const { s, run, pgid } = await spinning(engine);
  const order = [];
  s.on('closed', () => order.push('closed event'));
  s.close();
  assert.ok(liveGroup(pgid).length > 0, 'close() returned only after the command was killed');
  assert.equal(s.status, 'closed');
  await s.closed;
  order.push('closed promise');
  assert.deepEqual(liveGroup(pgid), [], 'the command is gone once closed settled');
  assert.deepEqual(order, ['closed event', 'closed promise']);
  const res = await run;
  assert.equal(res.status, 'interrupted');
  assert.equal(res.interruption.reason, 'system_stop');
  await s.closed; // settles once, stays settled
  engine.close();
  await engine.closed;
});

test('engine.close() returns before the command dies; engine.closed settles after it is gone and every object settled', async () => {
  const engine = new Engine(config());
  const { s, run, pgid } = await spinning(engine);
  const idle = engine.createSession();
  engine.close();
  assert.ok(liveGroup(pgid).length > 0, 'engine.close() returned only after the command was killed');
  const events = [];
  s.on('event', (ev) => events.push(ev.type));
  await engine.closed;
  assert.deepEqual(liveGroup(pgid), []);
  assert.equal((await run).status, 'interrupted');
  await Promise.all([s.closed, idle.closed]);
  assert.ok(events.includes('closed'), `the last events were delivered: ${events}`);
  assert.equal(internals.openEngines(), 0);
});

test('process exit waits for a close in progress: no command outlives Node', async () => {
  const r = await runNode(fixture('close-exit.mjs'));
  assert.equal(r.code, 0, describeExit(r));
  const pgid = Number(r.stdout.trim().split('\n')[0]);
  assert.ok(pgid > 0, describeExit(r));
  assert.deepEqual(liveGroup(pgid), [], 'the command outlived the process');
});
