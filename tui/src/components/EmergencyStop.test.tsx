/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
// The sessions view over a real engine (issue 27): a session whose turn runs
// a long call beside a confirm is proceeding, so the view counts it for
// emergency stop, and E stops it.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, afterEach, describe, it } from 'node:test';
import { Engine } from '../../../node/index.js';
import { useEngineState } from '../hooks/useEngineState.js';
import { cleanup, render, tick } from '../testing/ink.js';
import { SessionsView } from './SessionsView.js';

const engine = new Engine({ workDir: mkdtempSync(path.join(tmpdir(), 'interlock-tui-estop-')) });
after(async () => {
  engine.close();
  await engine.closed;
});
afterEach(cleanup);

/** The sessions view as an app wires it: E calls engine.emergencyStop(). */
function Sessions({ onReport }: { onReport: (stopped: string[]) => void }) {
  const state = useEngineState(engine);
  return <SessionsView sessions={state.sessions} counts={state.counts} onEmergencyStop={() => onReport(engine.emergencyStop().stopped)} />;
}

/** Renders until frame() satisfies ok (events from the engine arrive asynchronously). */
async function frameUntil(ui: { frame: () => string }, ok: (f: string) => boolean, what: string): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const f = ui.frame();
    if (ok(f)) return f;
    if (Date.now() > deadline) throw new Error(`no frame with ${what}; last frame:\n${f}`);
    await tick();
    await new Promise((r) => setImmediate(r));
  }
}

describe('SessionsView over a real engine', () => {
  it('a call running beside a confirm is proceeding: counted for emergency stop, and E stops it', async () => {
    const session = engine.createSession({
      id: 'agent',
      script: [{ toolCalls: [{ name: 'sleep', args: { ms: 600000 } }, { name: 'ask', args: { kind: 'confirm', message: 'Potentially dangerous command' } }] }, { text: 'done' }],
    });
    const reports: string[][] = [];
    const ui = await render(<Sessions onReport={(stopped) => reports.push(stopped)} />);
    const run = session.prompt('go');
    const frame = await frameUntil(ui, (f) => f.includes('waiting for'), 'the confirm');
    assert.match(frame, /^\[E\] Emergency stop \(1 proceeding\) {3}\[R\] Resume all \(0 eligible\) {3}1 needs input$/m);
    assert.match(frame, /› agent {5}Proceeding · waiting for: Potentially dangerous command/);

    await ui.press('e');
    assert.deepEqual(reports, [['agent']]);
    const res = await run;
    assert.equal(res.interruption?.reason, 'emergency_stop');
    await frameUntil(ui, (f) => f.includes('Interrupted · Stopped by emergency stop'), 'the interruption');
    ui.unmount();
    session.close();
  });
});
