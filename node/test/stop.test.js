// Emergency stop from JS (issue 27): a turn running a command beside a
// confirm is proceeding, and engine.emergencyStop() cuts both, returning
// once the command's process tree is gone.

import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { Engine } from '../index.js';
import { liveMarked, nextEvent, tempDir } from './helpers.js';

test('emergencyStop cuts a command running beside a confirm; no process of it is left when it returns', async () => {
  const marker = `interlock-stop-test-${process.pid}`;
  const workDir = tempDir();
  mkdirSync(path.join(workDir, 'victim'));
  // The command ignores SIGTERM: only the SIGKILL after the grace ends it.
  const engine = new Engine({ workDir, bash: { graceMs: 300, policy: { rule: [{ name: 'sh', decision: 'allow', reason: 'the tests run shell snippets', program: 'sh' }] } } });
  try {
    const ticker = `sh -c 'trap "" TERM; while :; do echo tick; sleep 0.05; done' ${marker}`;
    const s = engine.createSession({
      script: [{ toolCalls: [{ name: 'bash', args: { command: ticker } }, { name: 'bash', args: { command: 'rm -rf victim' } }] }, { text: 'done' }],
    });
    const events = [];
    s.on('event', (ev) => events.push(ev));
    const ticking = new Promise((resolve) => s.on('tool_progress', function on(ev) {
      if (!/tick/.test(ev.text ?? '')) return;
      s.off('tool_progress', on);
      resolve();
    }));
    const paused = nextEvent(s, 'paused');
    const run = s.prompt('go');
    await Promise.all([ticking, paused]);
    assert.equal(s.status, 'paused', 'the confirm is shown');
    assert.equal(s.runState, 'proceeding', 'a command runs beside it');
    assert.deepEqual(engine.counts(), { proceeding: 1, eligible: 0, needsInput: 1 });
    assert.ok(liveMarked(marker).length > 0, 'the command runs');

    const report = engine.emergencyStop();
    const stoppedAt = s.version;
    assert.deepEqual(liveMarked(marker), [], 'no process of the command is left when emergencyStop returns');
    assert.deepEqual(report, { stopped: [s.id] });
    assert.deepEqual(engine.emergencyStop(), { stopped: [] }, 'nothing more to stop');

    const res = await run;
    assert.equal(res.interruption.reason, 'emergency_stop');
    assert.equal(events.find((ev) => ev.type === 'pause_answered')?.answer, 'interrupted', 'the confirm is answered interrupted');
    assert.deepEqual(events.filter((ev) => ev.type === 'tool_progress' && ev.version > stoppedAt).map((ev) => ev.text), [], 'nothing printed after the stop');
    assert.ok(existsSync(path.join(workDir, 'victim')), 'the confirmed command never ran');
  } finally {
    engine.close();
    await engine.closed;
  }
});
