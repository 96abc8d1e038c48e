// Your app already runs its own agent loop (its own model client, its own
// tools). session.begin() puts Interlock in front of it: while the loop
// runs the session is proceeding, its pauses are answered with the same
// keys and components, and Esc or an emergency stop abort run.signal.
import { Engine } from 'interlock';

const engine = new Engine();
const session = engine.createSession();

// Stand-in for the person watching (in an Ink app, InputTransition does this).
session.on('paused', (ev) => {
  console.log(`paused (${ev.pause.kind}): ${ev.pause.message} ${ev.pause.details}`);
  session.confirm(true);
});
session.on('tool_progress', (ev) => process.stdout.write(ev.text));

async function myAgentLoop(run) {
  for (const step of ['plan', 'write the patch', 'apply it']) {
    if (run.signal.aborted) return; // Esc or emergency stop
    run.progress(`step: ${step}\n`);
    if (step === 'apply it') {
      const command = 'git apply fix.patch && git push --force';
      const { decision } = run.check(command); // the bash danger gate's verdict
      if (decision !== 'allow') {
        const { answer } = await run.pause({ kind: 'confirm', tool: 'Bash', message: 'Run this command?', details: command });
        console.log(`answer: ${answer}`);
      }
    }
  }
}

const run = session.begin();
await myAgentLoop(run);
console.log(`run ended: ${run.end().status}`); // run ended: idle

// A second run, stopped as Esc would stop it: the loop sees run.signal abort.
const second = session.begin();
const aborted = new Promise((resolve) => second.signal.addEventListener('abort', resolve));
session.interrupt(); // what Esc does
await aborted;
const res = second.end();
console.log(`run ended: ${res.status}, ${res.interruption.label}`); // run ended: interrupted, Stopped by you
engine.close();
await engine.closed;
