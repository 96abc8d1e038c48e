// Performance: how long from Esc to the stopped screen, in a real terminal.
// The demo runs a bash command (sleep 600) in tmux; Esc is sent with
// tmux send-keys through a control-mode client, which then reads the screen
// in a tight loop until it shows "Stopped by you". That covers tmux, Ink's
// input, the interrupt through the addon into the engine, killing the
// command's process group, the events back and the render.
// Target: tui_esc_to_stopped_p99_ms <= 50. A benchmark, run by `make bench`:
// with INTERLOCK_METRICS_DIR set it writes tui-esc.json there.
//
//   node --import tsx --test tui/test/esc-latency.test.ts

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Terminal, whyNoDemo } from './terminal.js';

const missing = whyNoDemo();
if (missing && process.env.INTERLOCK_REQUIRE_DEMO === '1') throw new Error(`the demo can't run: ${missing}`);

const SAMPLES = Number(process.env.INTERLOCK_ESC_SAMPLES ?? 40);

const term = new Terminal();
after(() => term.close());

/** percentile of sorted values (nearest rank). */
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

it(`Esc to the stopped screen while bash runs (${SAMPLES} samples)`, { skip: missing ? `skipped: ${missing}` : false, timeout: 300_000 }, async (t) => {
  term.start([process.execPath, '--import', 'tsx', 'tui/demo/main.tsx', '--script', 'long']);
  const control = term.control();
  await term.waitFor('> Type a prompt');
  const latencies: number[] = [];
  for (let run = 1; run <= SAMPLES; run++) {
    await term.type('go');
    const prompts = () => (term.screen().match(/^> go$/gm) ?? []).length;
    await term.waitFor((s) => /· running\n/.test(s) && s.slice(s.lastIndexOf('\n> go\n')).includes('│ working for 10 minutes'));
    assert.equal(prompts(), run);
    await sleep(50); // the command is running, not starting
    const sent = performance.now();
    control.send('send-keys -t demo Escape');
    for (;;) {
      const screen = await control.command('capture-pane -p -t demo');
      if (screen.includes('Stopped by you')) break;
      assert.ok(performance.now() - sent < 10_000, `not stopped 10 s after Esc:\n${screen}`);
    }
    latencies.push(performance.now() - sent);
  }
  const sorted = [...latencies].sort((a, b) => a - b);
  const p50 = percentile(sorted, 50);
  const p99 = percentile(sorted, 99);
  t.diagnostic(`Esc -> "Stopped by you": p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${sorted.at(-1)!.toFixed(1)} ms over ${SAMPLES}`);
  const dir = process.env.INTERLOCK_METRICS_DIR;
  if (dir) {
    const metrics = {
      tui_esc_to_stopped_p50_ms: { value: Number(p50.toFixed(2)), unit: 'ms' },
      tui_esc_to_stopped_p99_ms: { value: Number(p99.toFixed(2)), unit: 'ms' },
    };
    writeFileSync(path.join(dir, 'tui-esc.json'), JSON.stringify(metrics, null, 2) + '\n');
  }
});
