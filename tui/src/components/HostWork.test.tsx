/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
// The TUI over host work with a real engine: a pause raised by a tool
// written in JS is answered with the same keys as any tool's, and Esc stops
// a host-driven loop (its signal aborts).
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, afterEach, describe, it } from 'node:test';
import { Engine } from '../../../node/index.js';
import { resetSessionStores } from '../store/sessionStore.js';
import { cleanup, KEY, manualClock, render, tick } from '../testing/ink.js';
import { InputTransition } from './InputTransition.js';

const engine = new Engine({ workDir: mkdtempSync(path.join(tmpdir(), 'interlock-tui-host-')) });
after(async () => {
  engine.close();
  await engine.closed;
});
afterEach(() => {
  cleanup();
  resetSessionStores();
});

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

describe('InputTransition over host work (real engine)', () => {
  it('a JS tool pause is shown and answered with Y', async () => {
    engine.registerTool('js_deploy', {
      run: async (_args, ctx) => (await ctx.pause({ kind: 'confirm', message: 'Deploy to production?', details: 'v1.2.3' })).answer,
    });
    const session = engine.createSession({ script: [{ toolCalls: [{ name: 'js_deploy', args: {} }] }, { text: 'done' }] });
    const clock = manualClock();
    const ui = await render(<InputTransition session={session} now={clock.now} />);
    const run = session.prompt('deploy');
    const frame = await frameUntil(ui, (f) => f.includes('Deploy to production?'), 'the JS tool pause');
    assert.match(frame, /js_deploy: Deploy to production\?\nv1\.2\.3\n\[Y\] Approve {2}\[N\] Deny {2}\[Esc\] Cancel/);
    clock.advance(1_000); // past the settle guard
    await ui.press('y');
    const res = await run;
    assert.equal(res.status, 'idle');
    assert.equal(session.history().find((m) => m.role === 'tool')?.text, 'approved');
    ui.unmount();
    session.close();
  });

  it('Esc aborts the signal of a host-driven loop', async () => {
    const session = engine.createSession();
    const clock = manualClock();
    const ui = await render(<InputTransition session={session} now={clock.now} />);
    const run = session.begin();
    await frameUntil(ui, (f) => f.includes('Thinking...'), 'the running state');
    const aborted = new Promise((resolve) => run.signal.addEventListener('abort', resolve));
    await ui.press(KEY.escape);
    await aborted;
    const res = run.end();
    assert.equal(res.status, 'interrupted');
    await frameUntil(ui, (f) => f.includes('Stopped by you'), 'the interruption');
    ui.unmount();
    session.close();
  });
});
