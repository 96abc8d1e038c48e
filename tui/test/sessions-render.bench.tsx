/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
// A benchmark, run by `make bench`: the sessions view with 500 sessions,
// rendered again 300 times as one session's state changes (a busy engine),
// in a 40-row terminal (the list cut to the rows around the cursor) and,
// for comparison in the same run, with no terminal height (every row
// rendered, as before the list was cut). React render, Ink layout and the
// frame's output, as ink-testing-library's rerender runs them. With
// INTERLOCK_METRICS_DIR set it writes tui-sessions.json.
//
//   node --import tsx tui/test/sessions-render.bench.tsx

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { render } from 'ink-testing-library';
import { SessionsView } from '../src/components/SessionsView.js';
import type { SessionRow } from '../src/types.js';

const SESSIONS = 500;
const RENDERS = 300;
const counts = { proceeding: 1, eligible: SESSIONS - 1, needsInput: 0 };
const sessions = (k: number): SessionRow[] =>
  Array.from({ length: SESSIONS }, (_, i) =>
    i === k % SESSIONS
      ? { id: `session-${i}`, runState: 'proceeding', eligible: false }
      : { id: `session-${i}`, runState: 'interrupted', reasonLabel: 'Stopped by emergency stop', eligible: true },
  );

function measure(rows: number | undefined) {
  const ui = render(<SessionsView sessions={sessions(0)} counts={counts} />);
  if (rows) Object.defineProperty(ui.stdout, 'rows', { value: rows });
  const ms: number[] = [];
  for (let k = 1; k <= RENDERS; k++) {
    const start = performance.now();
    ui.rerender(<SessionsView sessions={sessions(k)} counts={counts} />);
    ms.push(performance.now() - start);
  }
  ui.unmount();
  ms.sort((a, b) => a - b);
  const at = (p: number) => Number(ms[Math.min(ms.length - 1, Math.floor((p / 100) * ms.length))].toFixed(2));
  return { p50: at(50), p99: at(99) };
}

const cut = measure(40);
const whole = measure(undefined);
console.log(`500 sessions, rendered again: 40-row terminal p50 ${cut.p50} ms p99 ${cut.p99} ms; every row p50 ${whole.p50} ms p99 ${whole.p99} ms`);
const dir = process.env.INTERLOCK_METRICS_DIR;
if (dir) {
  const metrics = {
    tui_sessions_500_render_p50_ms: { value: cut.p50, unit: 'ms' },
    tui_sessions_500_render_p99_ms: { value: cut.p99, unit: 'ms' },
    tui_sessions_500_render_every_row_p50_ms: { value: whole.p50, unit: 'ms' },
  };
  writeFileSync(path.join(dir, 'tui-sessions.json'), JSON.stringify(metrics, null, 2) + '\n');
}
process.exit(0); // ink-testing-library's stdin keeps the process alive
