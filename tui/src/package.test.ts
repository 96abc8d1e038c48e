// A consumer needs no TypeScript: the package's build (tsc -p tui/tsconfig.json,
// run by prepack) emits JavaScript plus declarations, and plain Node loads it.
// Its surface is the components, the hooks and the theme an app needs;
// internals (stores, key reading, the quiet gate, labels) stay inside.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// Beside tui/dist (same depth, so its imports of react and ../../node resolve), removed after.
const outDir = mkdtempSync(path.join(ROOT, 'tui', '.dist-test-'));
after(() => rmSync(outDir, { recursive: true, force: true }));
const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

/** Every value the package exports (types are checked by the consumer below). */
const SURFACE = [
  'ContinueBar',
  'GlobalControls',
  'GrantsView',
  'InputTransition',
  'PauseIndicator',
  'PolicyTrust',
  'ResumeAllConfirm',
  'SessionsView',
  'TaskProgress',
  'TextInput',
  'ThemeProvider',
  'ThinkingIndicator',
  'answerPause',
  'noColorTheme',
  'printable',
  'theme',
  'useEngineState',
  'useSessionState',
  'useTaskLoopState',
  'useTheme',
];

it('compiles to JavaScript with type declarations that plain Node imports; it exports its surface and nothing else', { timeout: 120_000 }, () => {
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
  assert.deepEqual(exported, [...SURFACE].sort(), 'the public surface (CHANGELOG-tui.txt lists what left it)');
  const dts = readFileSync(path.join(outDir, 'index.d.ts'), 'utf8');
  assert.match(dts, /export \{ useSessionState \}/);
});

it("takes the engine's pause as it comes, under tsc --strict: <PauseIndicator pause={ev.pause} />", { timeout: 120_000 }, () => {
  if (!existsSync(path.join(outDir, 'index.d.ts'))) execFileSync(process.execPath, [tsc, '-p', 'tui/tsconfig.json', '--outDir', outDir], { cwd: ROOT, stdio: 'pipe' });
  const consumer = path.join(outDir, 'consumer.tsx');
  writeFileSync(
    consumer,
    `import type { PausedEvent, PauseAnsweredEvent, SessionSnapshot } from '../../node/index.js';
import { answerPause, PauseIndicator, useSessionState, type SessionLike } from './index.js';

export function FromEvent({ ev, session }: { ev: PausedEvent; session: SessionLike }) {
  return <PauseIndicator pause={ev.pause} onDecision={(decision, id, remember) => answerPause(session, decision, id, remember)} />;
}
export function FromAnswered({ ev }: { ev: PauseAnsweredEvent }) {
  return ev.answered ? <PauseIndicator pause={ev.answered} isActive={false} /> : null;
}
export function FromSnapshot({ snap }: { snap: SessionSnapshot }) {
  return snap.pause ? <PauseIndicator pause={snap.pause} /> : null;
}
export function FromState({ session }: { session: SessionLike }) {
  const { pauseInfo } = useSessionState(session);
  return pauseInfo ? <PauseIndicator pause={pauseInfo} /> : null;
}
`,
  );
  const args = ['--strict', '--noEmit', '--jsx', 'react-jsx', '--module', 'NodeNext', '--moduleResolution', 'NodeNext', '--target', 'ES2022', '--skipLibCheck', '--types', 'node', consumer];
  const c = spawnSync(process.execPath, [tsc, ...args], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(c.status, 0, `tsc --strict failed:\n${c.stdout}${c.stderr}`);
});
