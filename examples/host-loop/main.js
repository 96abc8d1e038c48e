// Your app already runs its own agent loop (its own model client, its own
// tools). session.begin() puts Interlock in front of it: while the loop
// runs the session is proceeding, its pauses are answered with the same
// keys and components, and Esc or an emergency stop abort run.signal.
import { Engine } from 'agent-interlock';

const engine = new Engine();
const session = engine.createSession();

// Stand-in for the person watching (in an Ink app, InputTransition does this):
// approve, and remember the approval for the rest of the session.
session.on('paused', (ev) => {
  console.log(`paused (${ev.pause.kind}): ${ev.pause.message}: ${ev.pause.details}`);
  if (ev.pause.kind === 'confirm') session.confirm(true, { pauseId: ev.pause.id, remember: 'session' });
  else session.resume();
});
session.on('tool_progress', (ev) => process.stdout.write(ev.text));

async function myAgentLoop(run) {
  for (const step of ['plan', 'write the patch', 'apply it', 'apply it again']) {
    await run.step(); // a step boundary: signal('pause') parks here; rejects once interrupted
    run.progress(`step: ${step}\n`);
    if (step.startsWith('apply it')) {
      const command = 'git apply fix.patch && git push --force';
      // The session's bash gate: its rules, working directory and remembered approvals.
      const { decision, reasons } = run.check(command);
      console.log(`check: ${decision} ${reasons.join('; ')}`);
      if (decision === 'deny') continue;
      if (decision === 'confirm') {
        // The bash tool's own confirm: an approval the user remembers is a grant.
        const { answer } = await run.pause({ kind: 'confirm', command });
        console.log(`answer: ${answer}`);
        if (answer !== 'approved') continue;
      }
      // ... run the command with your own tool
    }
  }
}

const run = session.begin();
await myAgentLoop(run);
console.log(`run ended: ${run.end().outcome}`); // run ended: finished

// A second run, stopped as Esc would stop it: run.signal aborts, step() rejects.
const second = session.begin();
const aborted = new Promise((resolve) => second.signal.addEventListener('abort', resolve));
session.interrupt(); // what Esc does
await aborted;
await second.step().catch((err) => console.log(`step: ${err.code}`)); // step: ERR_INTERRUPTED
const res = second.end();
console.log(`run ended: ${res.outcome}, ${res.interruption.label}`); // run ended: interrupted, Stopped by you
await engine.close();
