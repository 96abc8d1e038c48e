/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
// The words for an interruption come from the engine: a real engine's
// session stopped for each reason shows, in the sessions view and the
// ContinueBar, the label the engine's snapshot carries.
import assert from 'node:assert/strict';
import { after, afterEach, describe, it } from 'node:test';
import { Engine, type Reason } from '../../../node/index.js';
import { ContinueBar } from '../components/ContinueBar.js';
import { SessionsView } from '../components/SessionsView.js';
import { cleanup, render } from '../testing/ink.js';
import type { EngineLike } from '../types.js';
import { createEngineStore } from './engineStore.js';

const engine = new Engine();
after(() => engine.close());
afterEach(cleanup);

async function stopped(reason: Reason) {
  const s = engine.createSession({ script: [{ text: 'thinking', hang: true }] });
  const started = new Promise<void>((resolve) => {
    const on = () => (s.off('run_started', on), resolve());
    s.on('run_started', on);
  });
  const run = s.prompt('think');
  await started;
  s.interrupt(reason);
  await run;
  return s;
}

describe('interruption labels', () => {
  for (const reason of ['system_stop', 'user_stop', 'timeout'] as const) {
    it(`a session stopped by ${reason} reads as the engine says, in its row and its ContinueBar`, async () => {
      const s = await stopped(reason);
      try {
        const label = s.snapshot().interruption?.label;
        assert.ok(label, 'the engine labels the interruption');
        const store = createEngineStore(engine as unknown as EngineLike);
        const row = store.getSnapshot().sessions.find((r) => r.id === s.id);
        assert.ok(row);
        assert.equal(row.reasonLabel, label);
        const bar = await render(<ContinueBar session={row} />);
        assert.match(bar.frame(), new RegExp(`^${label.replace(/[()]/g, '\\$&')} — \\[C\\] Continue`));
        bar.unmount();
        const list = await render(<SessionsView sessions={[row]} counts={{ proceeding: 0, eligible: 1, needsInput: 0 }} />);
        assert.ok(list.frame().includes(`· ${label}\n`) || list.frame().endsWith(`· ${label}`) || list.frame().includes(`· ${label} `), list.frame());
        list.unmount();
      } finally {
        s.close();
      }
    });
  }
});
