// The package as a consumer gets it: npm pack, install the tarball into a
// fresh Node project (its install script builds the Go library and the
// addon there), then drive a session from that project: a scripted prompt
// hits a confirm pause (bash `rm -rf ./scratch`), the 'paused' listener
// approves it, the run finishes and the command really ran.

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { packageRoot } from '../load.js';
import { tempDir } from './helpers.js';

const npmCli = path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');
const npm = (args, cwd) =>
  spawnSync(process.execPath, [npmCli, ...args], { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });

const consumerScript = `
import { mkdirSync, existsSync } from 'node:fs';
import { Engine } from 'interlock';

const work = new URL('./work/', import.meta.url).pathname;
mkdirSync(work + 'scratch', { recursive: true });
const engine = new Engine({ work_dir: work });
const session = engine.createSession({
  script: [
    { text: 'Cleaning up.', tool_calls: [{ name: 'bash', args: { command: 'rm -rf ./scratch' } }] },
    { text: 'Done.' },
  ],
});
const pauses = [];
session.on('paused', (ev) => {
  pauses.push(ev.pause);
  session.confirm(true);
});
const result = await session.prompt('clean up the scratch folder');
const history = session.history();
console.log(JSON.stringify({
  result,
  status: session.status,
  pauses,
  tool: history.find((m) => m.role === 'tool'),
  scratchExists: existsSync(work + 'scratch'),
}));
engine.close();
`;

test('npm pack -> install in a fresh project -> confirm pause approved, command ran', { timeout: 15 * 60_000 }, () => {
  const dir = tempDir('interlock-pack-');

  // --ignore-scripts: prepack builds tui/dist with tsc; the addon does not
  // need it (tui/dist is packed when it was built).
  const packed = npm(['pack', '--ignore-scripts', '--json', '--pack-destination', dir], packageRoot);
  assert.equal(packed.status, 0, packed.stderr);
  const [{ filename, files }] = JSON.parse(packed.stdout);
  const names = files.map((f) => f.path);
  for (const want of ['binding.gyp', 'go.mod', 'go.sum', 'capi/interlock.h', 'capi/main.go', 'engine/session.go',
    'node/index.js', 'node/index.d.ts', 'node/load.js', 'node/build.js', 'node/src/addon.cc', 'package.json']) {
    assert.ok(names.includes(want), `tarball lacks ${want}`);
  }
  for (const name of names) {
    assert.doesNotMatch(name, /_test\.go$|\/testdata\/|^node\/test\/|^node\/bench\/|^build\/|^lib\//, `tarball has ${name}`);
  }

  const project = path.join(dir, 'consumer');
  mkdirSync(project);
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  const tarball = path.join(dir, filename);
  let installed = npm(['install', '--offline', '--no-audit', '--no-fund', tarball], project);
  if (installed.status !== 0) installed = npm(['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], project);
  assert.equal(installed.status, 0, `npm install failed:\n${installed.stdout}\n${installed.stderr}`);

  const pkgDir = path.join(project, 'node_modules', 'interlock');
  assert.ok(existsSync(path.join(pkgDir, 'lib', 'libinterlock.so.0.1')), 'install built the Go library');
  assert.ok(existsSync(path.join(pkgDir, 'build', 'Release', 'interlock.node')), 'install built the addon');
  const dynamic = execFileSync('readelf', ['-d', path.join(pkgDir, 'build', 'Release', 'interlock.node')], { encoding: 'utf8' });
  assert.match(dynamic, /RUNPATH.*\$ORIGIN\/\.\.\/\.\.\/lib/);
  assert.match(dynamic, /NEEDED.*libinterlock\.so\.0\.1/);

  writeFileSync(path.join(project, 'main.js'), consumerScript);
  const run = spawnSync(process.execPath, ['main.js'], { cwd: project, encoding: 'utf8', timeout: 60_000 });
  assert.equal(run.status, 0, `consumer failed:\n${run.stdout}\n${run.stderr}`);
  const out = JSON.parse(run.stdout.trim().split('\n').at(-1));
  assert.equal(out.result.status, 'idle');
  assert.equal(out.status, 'idle');
  assert.equal(out.pauses.length, 1);
  assert.equal(out.pauses[0].kind, 'confirm');
  assert.match(out.pauses[0].details, /rm -rf \.\/scratch/);
  assert.ok(out.tool && !out.tool.is_error, `the command ran: ${JSON.stringify(out.tool)}`);
  assert.equal(out.scratchExists, false);
  assert.ok(readFileSync(path.join(pkgDir, 'package.json'), 'utf8').includes('"name": "interlock"'));
});
