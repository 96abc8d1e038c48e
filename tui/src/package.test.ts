// A consumer needs no TypeScript: the package's build (tsc -p tui/tsconfig.json,
// run by prepack) emits JavaScript plus declarations, and plain Node loads it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// Beside tui/dist (same depth, so its imports of react and ../../node resolve), removed after.
const outDir = mkdtempSync(path.join(ROOT, 'tui', '.dist-test-'));
after(() => rmSync(outDir, { recursive: true, force: true }));

it('compiles to JavaScript with type declarations that plain Node imports', { timeout: 120_000 }, () => {
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '-p', 'tui/tsconfig.json', '--outDir', outDir], { cwd: ROOT, stdio: 'pipe' });

  for (const file of ['index.js', 'index.d.ts', 'components/PauseIndicator.js', 'components/PauseIndicator.d.ts', 'components/TaskProgress.d.ts']) {
    assert.ok(existsSync(path.join(outDir, file)), `${file} is emitted`);
  }
  assert.ok(!existsSync(path.join(outDir, 'testing')), 'test helpers stay out of the package');
  assert.ok(!existsSync(path.join(outDir, 'components', 'PauseIndicator.test.js')), 'tests stay out of the package');
  const map = JSON.parse(readFileSync(path.join(outDir, 'index.js.map'), 'utf8')) as { sourcesContent?: string[] };
  assert.ok(map.sourcesContent?.[0], 'source maps carry their sources (src/ is not packed)');

  // Plain node, no tsx loader: what a consumer runs.
  const exported = execFileSync(
    process.execPath,
    ['--input-type=module', '-e', `import(${JSON.stringify(path.join(outDir, 'index.js'))}).then((m) => console.log(Object.keys(m).sort().join(' ')))`],
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
  ).trim().split(' ');
  for (const name of ['InputTransition', 'PauseIndicator', 'TaskProgress', 'ThinkingIndicator', 'useSessionState', 'useTaskLoopState', 'sessionStore', 'resetSessionStores', 'DEFAULT_SETTLE_MS']) {
    assert.ok(exported.includes(name), `exports ${name}`);
  }
  const dts = readFileSync(path.join(outDir, 'index.d.ts'), 'utf8');
  assert.match(dts, /export \{ useSessionState \}/);
});
