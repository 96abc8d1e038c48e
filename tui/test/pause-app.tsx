/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
// A small Ink app built only from the package's public surface: a real
// engine, one scripted session that pauses (a bash confirm or a continue
// pause), and InputTransition owning the keys. No hook of its own turns
// bracketed paste on. For the paste test (paste.test.ts), it writes what
// the engine says to the file --state after every event and every read:
// the session's status, its pending pause, the answers given, and how many
// reads came and how many of them were bracketed pastes.
//
//   node --import tsx tui/test/pause-app.tsx --kind confirm|continue --state FILE

import { render, useApp, useStdin } from 'ink';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { useEffect } from 'react';
import { Engine, type EngineEvent } from '../../node/index.js';
import { InputTransition } from '../src/index.js';

const { values: opts } = parseArgs({ options: { kind: { type: 'string' }, state: { type: 'string' } } });
if (opts.kind !== 'confirm' && opts.kind !== 'continue') throw new Error(`--kind ${opts.kind}: use confirm or continue`);
if (!opts.state) throw new Error('--state FILE is required');
const stateFile = opts.state;

const workDir = mkdtempSync(join(tmpdir(), 'interlock-paste-'));
const engine = new Engine({ workDir });
const pausing =
  opts.kind === 'confirm'
    ? { name: 'bash', args: { command: 'rm -rf ./scratch' } }
    : { name: 'ask', args: { kind: 'continue', message: 'Look at the scratch directory' } };
const session = engine.createSession({ script: [{ text: 'Asking.', toolCalls: [pausing] }, { text: 'Done.' }] });

const answers: string[] = [];
let reads = 0;
let bracketed = 0;
function report() {
  const snap = session.snapshot();
  writeFileSync(stateFile, JSON.stringify({ status: snap.status, pause: snap.pause?.id ?? null, answers, reads, bracketed }));
}
const onEvent = (ev: EngineEvent) => {
  if (ev.type === 'pause_answered') answers.push(ev.answer);
  report();
};
session.on('event', onEvent);

function App() {
  const { exit } = useApp();
  const { stdin } = useStdin();
  useEffect(() => {
    const onData = (data: string | Buffer) => {
      reads++;
      if (String(data).includes('\u001B[200~')) bracketed++;
      report();
    };
    stdin.on('data', onData);
    return () => void stdin.removeListener('data', onData);
  }, [stdin]);
  return <InputTransition session={session} onSubmit={(text) => void session.prompt(text).catch(() => {})} onQuit={exit} />;
}

report();
const app = render(<App />);
try {
  await app.waitUntilExit();
} finally {
  session.off('event', onEvent); // the close's own events come after the last report
  engine.close();
  await engine.closed;
  rmSync(workDir, { recursive: true, force: true });
}
