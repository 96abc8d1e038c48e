// node/index.d.ts compiles for a TypeScript consumer (strict), and its types
// reject wrong calls: fixtures/types-usage.ts is type-checked with tsc.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';

import { packageRoot } from '../load.js';
import { fixture } from './helpers.js';

const tsc = path.join(packageRoot, 'node_modules', 'typescript', 'bin', 'tsc');

// typescript is a devDependency: npm install (make test) always has it.
test('index.d.ts type-checks a consumer and rejects wrong calls', () => {
  const r = spawnSync(process.execPath, [tsc, '--noEmit', '--strict', '--target', 'es2022', '--module', 'node16',
    '--moduleResolution', 'node16', '--types', 'node', '--skipLibCheck', 'false', fixture('types-usage.ts'), path.join(packageRoot, 'node', 'native.d.ts')],
  { cwd: packageRoot, encoding: 'utf8' });
  assert.equal(r.status, 0, `tsc:\n${r.stdout}${r.stderr}`);
});
