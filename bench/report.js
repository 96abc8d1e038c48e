#!/usr/bin/env node
// Merges the metric files that `make bench` wrote to bench/out/*.json into
// bench/out/results.json, an ignored path ({"<metric>": {"value": N, "unit": "..."}}) and prints
// them as a table against their targets. Exits non-zero when a file is
// missing or unreadable, so a broken benchmark never looks like a result.
// A run leaves the tree clean: to publish numbers, copy the file to
// docs/benchmarks/results-<date>.json.
//
// The JS benchmarks run once per Node version users run (the arguments,
// e.g. `22 24`; js-node22.json, scale-node22.json, ...): a JS metric's value
// is its worst over those versions, and each version's value is kept beside
// it ({"value": N, "unit": "...", "node": {"22": N, "24": N}}).

import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const outDir = process.env.INTERLOCK_METRICS_DIR || path.join(here, 'out');
const nodeVersions = process.argv.slice(2);
if (nodeVersions.length === 0) {
  console.error('usage: node bench/report.js <node major version>... (those the JS benchmarks ran on, e.g. 22 24)');
  process.exit(2);
}
const perNode = nodeVersions.flatMap((v) => [`js-node${v}.json`, `scale-node${v}.json`]);
const expected = ['engine.json', 'bash.json', 'provider.json', 'web.json', 'webui.json', 'fleet.json', ...perNode, 'tui.json', 'tui-esc.json', 'tui-sessions.json'];

// Targets from the issues: [comparison, value].
const targets = {
  engine_interrupt_p99_us: ['<=', 100],
  engine_pause_notify_p99_us: ['<=', 50],
  engine_pause_answer_p99_us: ['<=', 50],
  engine_parked_session_bytes: ['<=', 4096], // Go heap + stacks of a parked session (issue 18)
  engine_parked_session_goroutines: ['<=', 0], // a parked run holds no goroutine
  engine_answer_all_10k_ms: ['<=', 100],
  engine_pause_notify_store_p99_us: ['<=', 100], // with a file store (issue 15)
  store_recovery_ms: ['<=', 1000], // 10,000 sessions
  js_pause_roundtrip_store_p99_us: ['<=', 500],
  engine_event_deliveries_per_s: ['>=', 5_000_000],
  bash_interrupt_p99_ms: ['<=', 3], // through the supervisor (issue 11)
  bash_spawn_overhead_ms: ['<=', 3],
  bash_interrupt_sigterm_ignored_p99_ms: ['<=', 210],
  web_interrupt_p99_ms: ['<=', 50],
  web_event_to_dom_p99_ms: ['<=', 50],
  web_idle_cpu_percent: ['<=', 1],
  web_stop_seen_in_other_tab_p99_ms: ['<=', 200],
  provider_interrupt_p99_ms: ['<=', 5],
  classifier_us_per_command: ['<=', 50],
  classifier_policy_p99_us: ['<=', 50], // a 200-rule policy loaded (issue 31)
  policy_load_200_rules_ms: ['<=', 20],
  // The held-out corpus judged in a git checkout with the default sandbox (issue 31).
  policy_heldout_dangerous_caught_pct: ['>=', 99],
  policy_heldout_harmless_prompt_pct: ['<=', 3],
  js_status_get_ns: ['<=', 150],
  js_event_p99_us: ['<=', 200],
  js_pause_roundtrip_p99_us: ['<=', 500],
  js_interrupt_p99_ms: ['<=', 3],
  js_tool_call_overhead_p99_us: ['<=', 300],
  js_parked_session_rss_bytes: ['<=', 8192],
  // Issue 29 retired the wall-time targets (150 ms, 30 ms): these two may not
  // get worse than 1.25x the figures of a154768 (262 ms, 139 ms).
  js_park_all_10k_ms: ['<=', 328],
  js_approve_all_10k_ms: ['<=', 174],
  js_pause_notify_p99_us: ['<=', 100],
  js_approve_continue_p99_us: ['<=', 100],
  js_close_blocking_ms: ['<=', 1],
  tui_idle_cpu_percent: ['<=', 1],
  tui_esc_to_stopped_p99_ms: ['<=', 50],
  // The fleet on a loopback PostgreSQL hub (issue 30).
  fleet_approve_to_continue_p99_ms: ['<=', 50],
  fleet_mirror_lag_p99_ms: ['<=', 50],
  fleet_emergency_stop_ms: ['<=', 1000], // 3 hosts x 100 running bash commands
  fleet_overhead_pause_ratio: ['<=', 1.2], // a local pause round trip, p99 with the hub on / off
};

/** The worse of two values of a metric: the larger, unless its target asks for at least. */
const worse = (name, a, b) => (targets[name]?.[0] === '>=' ? Math.min(a, b) : Math.max(a, b));

const results = {};
const problems = [];
for (const name of expected) {
  const file = path.join(outDir, name);
  let metrics;
  try {
    metrics = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    problems.push(`${path.relative(process.cwd(), file)}: ${err.message}`);
    continue;
  }
  const node = /-node(\d+)\.json$/.exec(name)?.[1];
  for (const [metric, m] of Object.entries(metrics)) {
    if (!node) {
      results[metric] = m;
      continue;
    }
    const seen = results[metric];
    results[metric] = {
      value: seen ? worse(metric, seen.value, m.value) : m.value,
      unit: m.unit,
      node: { ...seen?.node, [node]: m.value },
    };
  }
}
for (const extra of readdirSync(outDir).filter((f) => f.endsWith('.json') && !expected.includes(f) && f !== 'results.json')) {
  problems.push(`unexpected ${extra} in ${outDir}: add it to bench/report.js or delete it`);
}

const sorted = Object.fromEntries(Object.entries(results).sort(([a], [b]) => a.localeCompare(b)));
const resultsFile = path.join(outDir, 'results.json');
writeFileSync(resultsFile, JSON.stringify(sorted, null, 2) + '\n');

const rows = Object.entries(sorted).map(([name, { value, unit, node }]) => {
  const t = targets[name];
  let verdict = '';
  if (t) verdict = `${t[0]} ${t[1]}  ${(t[0] === '<=' ? value <= t[1] : value >= t[1]) ? 'ok' : 'MISSED'}`;
  const each = node ? nodeVersions.map((v) => `${v}: ${node[v] ?? '-'}`).join(', ') : '';
  return [name, String(value), unit, verdict, each];
});
const header = ['metric', 'value', 'unit', 'target', 'per Node version'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (r) => r.map((c, i) => (i === 1 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ').trimEnd();
console.log(line(header));
console.log(line(widths.map((w) => '-'.repeat(w))));
for (const r of rows) console.log(line(r));
console.log(`\nwrote ${path.relative(process.cwd(), resultsFile)}`);
if (problems.length) {
  console.error(`\nmissing results:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
