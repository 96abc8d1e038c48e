// make bench leaves a fresh clone clean: its report is written beside the
// metric files (an ignored path), never over a tracked file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

test('bench/report.js writes its results into the metrics folder and leaves the tree as it was', () => {
  const out = mkdtempSync(path.join(tmpdir(), 'interlock-metrics-'));
  writeFileSync(path.join(out, 'engine.json'), JSON.stringify({ engine_interrupt_p99_us: { value: 12, unit: 'us' } }));
  const before = spawnSync('git', ['status', '--porcelain', '--', 'bench'], { cwd: root, encoding: 'utf8' }).stdout;
  const r = spawnSync(process.execPath, [path.join(root, 'bench/report.js'), '22'], { cwd: root, encoding: 'utf8', env: { ...process.env, INTERLOCK_METRICS_DIR: out } });
  // The other metric files are missing: the report says so and fails...
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /missing results/);
  // ...but what it found is written beside them, and nothing tracked changed.
  assert.equal(JSON.parse(readFileSync(path.join(out, 'results.json'), 'utf8')).engine_interrupt_p99_us.value, 12);
  assert.equal(existsSync(path.join(root, 'bench', 'results.json')), false, 'bench/results.json is back in the tree');
  assert.equal(spawnSync('git', ['status', '--porcelain', '--', 'bench'], { cwd: root, encoding: 'utf8' }).stdout, before);
});
