// The same control surface under `tsc --strict`: every event type has its
// own listener argument type, so `ev.pause.message` type-checks on 'paused'.
// A long command is stopped while a second pause waits; the run ends
// 'interrupted' and the answer of the pause says so.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Engine, type PauseAnsweredEvent, type RunResult } from 'agent-interlock';

const workDir = mkdtempSync(path.join(tmpdir(), 'interlock-example-'));
const engine = new Engine({ workDir });
const session = engine.createSession({
  script: [
    { text: 'Checking first.', toolCalls: [{ name: 'ask', args: { kind: 'continue', message: 'Look at the plan, then continue' } }] },
    { toolCalls: [{ name: 'ask', args: { kind: 'confirm', message: 'Deploy now?' } }] },
    { text: 'Deployed.' },
  ],
});

const answers: PauseAnsweredEvent['answer'][] = [];
session.on('pause_answered', (ev) => answers.push(ev.answer));
session.on('paused', (ev) => {
  console.log(`paused (${ev.pause.kind}): ${ev.pause.message}`);
  if (ev.pause.kind === 'continue') session.resume(ev.pause.id);
  else session.interrupt('user_stop'); // Esc: stop instead of answering
});

const result: RunResult = await session.prompt('deploy');
console.log(`run ended: ${result.outcome}, ${result.interruption?.label ?? ''}`); // run ended: interrupted, Stopped by you
console.log(`answers: ${answers.join(', ')}`); // answers: resumed, interrupted
await engine.close(); // resolves once everything has unwound; never blocks the thread
rmSync(workDir, { recursive: true, force: true });
