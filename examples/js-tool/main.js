// A tool written in JS: the model (scripted here) calls send_email. The
// tool declares what it takes (a JSON Schema: arguments that do not match
// never reach run) and that it needs approval: the engine asks the user
// first, with a real engine pause (the same events, keys and components as
// the bash tool's). Its rememberKey names exactly what an approval covers,
// so the user can approve it for the session (the TUI's [S]) and is not
// asked again.
import { Engine } from 'agent-interlock';

const engine = new Engine();
engine.registerTool('send_email', {
  description: 'Send an email',
  parameters: {
    type: 'object',
    properties: { to: { type: 'string' }, subject: { type: 'string' } },
    required: ['to', 'subject'],
    additionalProperties: false,
  },
  needsApproval: true, // or (args, ctx) => boolean | Promise<boolean>
  rememberKey: ({ to, subject }) => `send "${subject}" to ${to}`,
  run: async ({ to }, ctx) => {
    if (ctx.signal.aborted) throw new Error('interrupted before sending');
    ctx.progress(`sending to ${to}...\n`);
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
  console.log(`paused (${ev.pause.tool}): ${ev.pause.message}`); // paused (send_email): Run send_email?
  console.log(`can be remembered for: ${ev.pause.rememberScopes.join(', ')}`); // can be remembered for: session, project
  session.confirm(true, { pauseId: ev.pause.id, remember: 'session' }); // what [S] does
});
session.on('granted', (ev) => console.log(`approved by a ${ev.remember} grant: ${ev.text}`)); // approved by a session grant: send "Release notes" to team@example.com
session.on('tool_progress', (ev) => process.stdout.write(ev.text));
const result = await session.prompt('mail the release notes to the team');
const toolResult = session.history().find((m) => m.role === 'tool');
console.log(`tool result: ${toolResult.text}`); // tool result: sent
console.log(`run ended: ${result.outcome}: ${result.text}`); // run ended: finished: Done.
await session.prompt('and once more'); // not asked again
await engine.close();
