// A scripted agent asks to run `rm -rf ./build`; the bash tool's danger gate
// turns that into a confirm pause, which this listener approves. Everything
// happens inside a temporary directory: nothing of yours is touched.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Engine } from 'agent-interlock';

const workDir = mkdtempSync(path.join(tmpdir(), 'interlock-example-'));
mkdirSync(path.join(workDir, 'build'));

const engine = new Engine({ workDir });
const session = engine.createSession({
  script: [
    { toolCalls: [{ name: 'bash', args: { command: 'rm -rf ./build' } }] },
    { text: 'Done.' },
  ],
});
session.on('paused', (ev) => {
  console.log(`${ev.pause.message}: ${ev.pause.details}`); // Potentially dangerous command: rm -rf ./build
  session.confirm(true); // or session.confirm(false, { reason: 'not now' }), or session.interrupt()
});
const result = await session.prompt('clean up');
console.log(`run ended: ${result.outcome}: ${result.text}`); // run ended: finished: Done.
await engine.close(); // resolves once everything has unwound; never blocks the thread
rmSync(workDir, { recursive: true, force: true });
