// Performance: a TUI waiting at a pause must cost next to nothing. Runs the
// demo in tmux, brings it to its first confirm pause, and measures the demo
// process's CPU (utime + stime from /proc/<pid>/stat) over 10 s.
// Target: at most 1% of one core (INTERLOCK_IDLE_CPU_MAX overrides, in %).
// A benchmark, run by `make bench`: with INTERLOCK_METRICS_DIR set it writes
// tui_idle_cpu_percent to $INTERLOCK_METRICS_DIR/tui.json.
//
//   node --import tsx --test tui/test/idle-cpu.test.ts

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CONFIRM_DIALOG, clockTicks, cpuSeconds, Terminal, whyNoDemo } from './terminal.js';

const missing = whyNoDemo();
if (missing && process.env.INTERLOCK_REQUIRE_DEMO === '1') throw new Error(`the demo can't run: ${missing}`);

const WINDOW_S = 10;
const MAX_PERCENT = Number(process.env.INTERLOCK_IDLE_CPU_MAX ?? 1);

const term = new Terminal();
after(() => term.close());

it(`the demo idles at a pause using at most ${MAX_PERCENT}% of a core`, { skip: missing ? `skipped: ${missing}` : false, timeout: 60_000 }, async (t) => {
  term.start([process.execPath, '--import', 'tsx', 'tui/demo/main.tsx']);
  await term.waitFor('> Type a prompt');
  term.keys('go', { literal: true });
  term.keys('Enter');
  await term.waitFor(CONFIRM_DIALOG);
  const pid = term.pid();
  const ticks = clockTicks();
  const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  assert.match(command, /tui\/demo\/main\.tsx/, 'measuring the demo itself');

  // A measurement window, not a wait for something to happen.
  const before = cpuSeconds(pid, ticks);
  const start = performance.now();
  await sleep(WINDOW_S * 1000);
  const used = cpuSeconds(pid, ticks) - before;
  const percent = (used / ((performance.now() - start) / 1000)) * 100;

  t.diagnostic(`idle CPU at a pause: ${percent.toFixed(2)}% of a core (${(used * 1000).toFixed(0)} ms CPU in ${WINDOW_S} s, pid ${pid}: ${command})`);
  const dir = process.env.INTERLOCK_METRICS_DIR;
  if (dir) {
    const metrics = { tui_idle_cpu_percent: { value: Number(percent.toFixed(3)), unit: '%' } };
    writeFileSync(path.join(dir, 'tui.json'), JSON.stringify(metrics, null, 2) + '\n');
  }
  assert.ok(term.screen().includes(CONFIRM_DIALOG), 'still paused');
  assert.ok(percent <= MAX_PERCENT, `idle CPU ${percent.toFixed(2)}% > ${MAX_PERCENT}%`);

  term.keys('Escape');
  await term.waitFor('Stopped by you');
  // q on the empty prompt quits once the keys of the run are over (the prompt's quiet rule).
  await term.answer('q', (s) => /\[demo exited \d+\]/.test(s));
  assert.equal(await term.waitForExit(), 0);
});
