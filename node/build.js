#!/usr/bin/env node
// Builds Interlock from source: the Go library (lib/libinterlock.so.0.1, cgo
// c-shared) with its command supervisor (lib/interlock-run), and then the
// N-API addon (build/Release/interlock.node) with the node-gyp that ships
// with npm.
//
//   node node/build.js            both
//   node node/build.js --lib      only the Go library
//   node node/build.js --addon    only the addon (the library must exist)
//   node node/build.js --debug    addon in build/Debug
//   node node/build.js --prebuild both, then copies the addon and everything in
//                                 lib/ (the library, helper executables) into
//                                 prebuilds/<platform>/ for npm pack; with --copy
//                                 only copies the existing build (make prebuild)
//   node node/build.js --install  the package's install script: does nothing when
//                                 a prebuild ships for this platform, unless a build
//                                 from source is asked for (npm rebuild interlock
//                                 --build-from-source, or INTERLOCK_BUILD_FROM_SOURCE=1)
//
// Go modules come from the module cache when it has them (offline), else from
// GOPROXY. Every failure names what failed and what to install.

import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadAdvice, platformName, prebuildDir } from './load.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The library's file name is its soname: two copies of the addon with the same soname would share one Go runtime. */
export const LIB_NAME = 'libinterlock.so.0.1';

class BuildError extends Error {}

function log(msg) {
  process.stderr.write(`interlock build: ${msg}\n`);
}

function run(cmd, args, opts = {}) {
  const res = spawnSync(cmd, args, { cwd: root, encoding: 'utf8', ...opts });
  return { status: res.status, error: res.error, out: `${res.stdout ?? ''}${res.stderr ?? ''}` };
}

function have(cmd, args = ['--version']) {
  const r = run(cmd, args);
  return !r.error && r.status === 0;
}

function requireTool(cmd, args, what) {
  if (!have(cmd, args)) throw new BuildError(`${cmd} not found or not working. ${what}`);
}

export function buildLibrary() {
  requireTool('go', ['version'], 'Install the Go toolchain (1.26 or newer, https://go.dev/dl/) and put `go` on PATH.');
  const cc = process.env.CC || (have('gcc') ? 'gcc' : 'cc');
  requireTool(cc, ['--version'], 'cgo needs a C compiler: install gcc (Debian/Ubuntu: `apt-get install build-essential`) or set CC.');
  mkdirSync(path.join(root, 'lib'), { recursive: true });
  const args = [
    // libinterlock: the library as shipped, without capi's test scaffolding (drive.go).
    'build', '-buildmode=c-shared', '-trimpath', '-tags', 'libinterlock',
    '-ldflags', `-extldflags -Wl,-soname,${LIB_NAME}`,
    '-o', path.join('lib', LIB_NAME), './capi',
  ];
  const env = { ...process.env, CGO_ENABLED: '1', CC: cc, GOFLAGS: process.env.GOFLAGS ?? '-mod=mod' };
  // First from the module cache only (works offline); if a module is
  // missing there, once more through the configured GOPROXY.
  log(`go ${args.join(' ')}`);
  let r = run('go', args, { env: { ...env, GOPROXY: 'off' } });
  if (r.status !== 0 && /GOPROXY=off|module lookup disabled/.test(r.out) && process.env.GOPROXY !== 'off') {
    log('modules missing from the Go module cache; downloading them');
    r = run('go', args, { env });
  }
  if (r.status !== 0) {
    throw new BuildError(`building the Go library failed (go ${args.join(' ')}):\n${r.out.trim()}\n` +
      'Needs Go 1.26+ with cgo and a C compiler; without network access the Go module cache must hold the modules in go.sum.');
  }
  buildSupervisor(env);
  return path.join(root, 'lib', LIB_NAME);
}

/** The supervisor every bash command runs under: lib/interlock-run, beside the library, which looks for it there. */
export const SUPERVISOR_NAME = 'interlock-run';

/**
 * The supervisor is a small C program (cmd/interlock-run/interlock-run.c):
 * it starts for every command, and a Go runtime's start-up would be most of
 * a command's overhead. Static where the C library allows it, so it runs
 * wherever the library does (internal/testsupervisor builds it the same way).
 */
function buildSupervisor(env) {
  const out = path.join('lib', SUPERVISOR_NAME);
  const flags = ['-O2', '-Wall', '-o', out, path.join('cmd', 'interlock-run', 'interlock-run.c')];
  log(`${env.CC} -static ${flags.join(' ')}`);
  let r = run(env.CC, ['-static', ...flags], { env });
  if (r.status !== 0) {
    log('static link failed; linking against the shared C library');
    r = run(env.CC, flags, { env });
  }
  if (r.status !== 0) {
    throw new BuildError(`building the command supervisor failed (${env.CC} ${flags.join(' ')}):\n${r.out.trim()}`);
  }
}

/** npm's bundled node-gyp: $npm_config_node_gyp (set by npm for install scripts), else beside this node's npm. */
export function findNodeGyp(env = process.env) {
  const tried = [];
  const candidates = [
    env.npm_config_node_gyp,
    path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
  ];
  const npm = run('sh', ['-c', 'command -v npm']);
  if (npm.status === 0 && npm.out.trim()) {
    candidates.push(path.join(path.dirname(npm.out.trim()), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'));
  }
  for (const c of candidates) {
    if (!c) continue;
    if (existsSync(c)) return c;
    tried.push(c);
  }
  throw new BuildError(`node-gyp not found (tried ${tried.join(', ')}). It ships with npm; reinstall npm, or install node-gyp and set npm_config_node_gyp to its bin/node-gyp.js.`);
}

/** The folder holding include/node (Node's headers), so node-gyp never downloads them. */
export function findNodeDir(env = process.env) {
  if (env.npm_config_nodedir) return env.npm_config_nodedir;
  const prefix = path.resolve(path.dirname(process.execPath), '..');
  if (existsSync(path.join(prefix, 'include', 'node', 'node_api.h'))) return prefix;
  return undefined;
}

/** node-addon-api's folder, resolved from the package up (a devDependency here; a consumer building from source installs it). */
function requireNodeAddonApi() {
  try {
    return path.dirname(createRequire(path.join(root, 'package.json')).resolve('node-addon-api/package.json'));
  } catch {
    throw new BuildError('node-addon-api not found: it is needed only to build from source. Install it in your project' +
      ' (npm install --save-dev node-addon-api@8) and run the build again.');
  }
}

export function buildAddon({ debug = false } = {}) {
  requireNodeAddonApi();
  if (!existsSync(path.join(root, 'lib', LIB_NAME))) {
    throw new BuildError(`lib/${LIB_NAME} is missing: build the Go library first (node node/build.js --lib).`);
  }
  requireTool('python3', ['--version'], 'node-gyp needs Python 3: install python3.');
  requireTool('make', ['--version'], 'node-gyp needs make: install make (Debian/Ubuntu: `apt-get install build-essential`).');
  const cxx = process.env.CXX || 'g++';
  requireTool(cxx, ['--version'], 'The addon needs a C++17 compiler: install g++ (Debian/Ubuntu: `apt-get install build-essential`) or set CXX.');
  const gyp = findNodeGyp();
  const nodedir = findNodeDir();
  const args = [gyp, 'rebuild', ...(debug ? ['--debug'] : [])];
  if (nodedir) args.push(`--nodedir=${nodedir}`);
  log(`node ${args.join(' ')}`);
  const r = run(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status !== 0) {
    throw new BuildError(`building the addon failed (node-gyp rebuild):\n${r.out.trim().split('\n').slice(-40).join('\n')}\n` +
      (nodedir ? '' : 'Node headers were not found beside this node (no include/node): install them (Debian: `apt-get install libnode-dev`) or set npm_config_nodedir.\n') +
      'Needs python3, make and a C++17 compiler.');
  }
  return path.join(root, 'build', debug ? 'Debug' : 'Release', 'interlock.node');
}

/** Whether a build from source was asked for (npm --build-from-source sets npm_config_build_from_source). */
export function fromSourceRequested(env = process.env) {
  const on = (v) => v !== undefined && v !== '' && v !== 'false' && v !== '0';
  return on(env.INTERLOCK_BUILD_FROM_SOURCE) || on(env.npm_config_build_from_source);
}

/** Builds both and copies the addon and every file of lib/ but headers into prebuilds/<platform>/. */
export function buildPrebuild({ copyOnly = false } = {}) {
  const addon = path.join(root, 'build', 'Release', 'interlock.node');
  if (!copyOnly) {
    buildLibrary();
    buildAddon();
  } else if (!existsSync(addon)) {
    throw new BuildError(`${path.relative(root, addon)} is missing: build it first (node node/build.js).`);
  }
  const dir = prebuildDir(root);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  copyFileSync(addon, path.join(dir, 'interlock.node'));
  const libDir = path.join(root, 'lib');
  for (const name of readdirSync(libDir)) {
    const file = path.join(libDir, name);
    if (name.endsWith('.h') || !statSync(file).isFile()) continue;
    copyFileSync(file, path.join(dir, name)); // keeps the mode: helper executables stay executable
  }
  return dir;
}

/** The install script: a prebuild needs nothing; otherwise (or on request) build from source. */
function install() {
  const prebuilt = existsSync(path.join(prebuildDir(root), 'interlock.node'));
  if (prebuilt && !fromSourceRequested()) {
    log(`using the prebuilt binary for ${platformName()}`);
    return;
  }
  log(prebuilt ? 'building from source as asked' : `no prebuilt binary for ${platformName()}: building from source`);
  try {
    requireNodeAddonApi();
    buildLibrary();
    buildAddon();
  } catch (err) {
    if (err instanceof BuildError && !prebuilt) err.message += `\n${loadAdvice()}`;
    throw err;
  }
}

function main(argv) {
  if (argv.includes('--install') || argv.includes('--prebuild')) {
    try {
      if (argv.includes('--install')) install();
      else log(`prebuilt ${path.relative(root, buildPrebuild({ copyOnly: argv.includes('--copy') }))}`);
    } catch (err) {
      if (!(err instanceof BuildError)) throw err;
      log(`error: ${err.message}`);
      process.exitCode = 1;
    }
    return;
  }
  const lib = argv.includes('--lib');
  const addon = argv.includes('--addon');
  const debug = argv.includes('--debug');
  try {
    if (lib || !addon) log(`built ${path.relative(root, buildLibrary())}`);
    if (addon || !lib) log(`built ${path.relative(root, buildAddon({ debug }))}`);
  } catch (err) {
    if (!(err instanceof BuildError)) throw err;
    log(`error: ${err.message}`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2));
}
