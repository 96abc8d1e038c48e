// A tool written in JS: the model (scripted here) calls send_email; the
// tool asks the user first with ctx.pause, a real engine pause (the same
// events, keys and components as the bash tool's), and honours ctx.signal.
// Its rememberKey names exactly what an approval covers, so the user can
// approve it for the session (the TUI's [S]) and is not asked again.
import { Engine } from 'agent-interlock';

const engine = new Engine();
engine.registerTool('send_email', {
  description: 'Send an email',
  parameters: { type: 'object', properties: { to: { type: 'string' }, subject: { type: 'string' } }, required: ['to', 'subject'] },
  run: async ({ to, subject }, ctx) => {
    const { answer, reason, by } = await ctx.pause({
      kind: 'confirm',
      message: `Send "${subject}"?`,
      details: to,
      rememberKey: `send "${subject}" to ${to}`,
    });
    if (answer !== 'approved') return `not sent: ${reason ?? answer}`;
    if (ctx.signal.aborted) throw new Error('interrupted before sending');
    ctx.progress(`sending to ${to}${by === 'grant' ? ' (approved before)' : ''}...\n`);
    return 'sent';
  },
});

const session = engine.createSession({
  script: [
    { toolCalls: [{ name: 'send_email', args: { to: 'team@example.com', subject: 'Release notes' } }] },
    { text: 'Done.' },
  ],
});
session.on('paused', (ev) => {
  console.log(`paused (${ev.pause.tool}): ${ev.pause.message} ${ev.pause.details}`); // paused (send_email): Send "Release notes"? team@example.com
  console.log(`can be remembered for: ${ev.pause.rememberScopes.join(', ')}`); // can be remembered for: session, project
  session.confirm(true, undefined, ev.pause.id, 'session'); // what [S] does
});
session.on('granted', (ev) => console.log(`approved by a ${ev.remember} grant: ${ev.text}`)); // approved by a session grant: send "Release notes" to team@example.com
session.on('tool_progress', (ev) => process.stdout.write(ev.text));
const result = await session.prompt('mail the release notes to the team');
const toolResult = session.history().find((m) => m.role === 'tool');
console.log(`tool result: ${toolResult.text}`); // tool result: sent
console.log(`run ended: ${result.status}`); // run ended: idle
await session.prompt('and once more'); // not asked again: sending to team@example.com (approved before)...
engine.close();
await engine.closed;
