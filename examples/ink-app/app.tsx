// An Ink app: InputTransition follows the session and owns the keys (Esc
// stops a run; at a confirm pause Y approves, N denies, Esc stops). The agent
// asks to run `rm -rf ./build` inside a temporary directory. Without a
// terminal (CI), the app approves by itself, so it can run unattended.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Box, Text, render } from 'ink';
import { Engine } from 'agent-interlock';
import { InputTransition } from 'agent-interlock/tui';

const workDir = mkdtempSync(path.join(tmpdir(), 'interlock-example-'));
mkdirSync(path.join(workDir, 'build'));
const engine = new Engine({ workDir });
const session = engine.createSession({
  script: [
    { text: 'Cleaning up. ', toolCalls: [{ name: 'bash', args: { command: 'rm -rf ./build' } }] },
    { text: 'Done.' },
  ],
});

const interactive = Boolean(process.stdin.isTTY);
if (!interactive) session.on('paused', () => session.confirm(true));

const app = render(
  <Box flexDirection="column">
    <Text>Interlock example: the agent will ask before it deletes ./build</Text>
    <InputTransition session={session} isActive={interactive} onSubmit={(text) => void session.prompt(text)} />
  </Box>,
);

const result = await session.prompt('clean up');
app.unmount();
await app.waitUntilExit();
console.log(`run ended: ${result.outcome}`);
await engine.close(); // resolves once everything has unwound; never blocks the thread
rmSync(workDir, { recursive: true, force: true });
