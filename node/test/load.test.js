// The loader: tries every build folder and reports each path it tried and why.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { addonCandidates, loadAddon, loadAdvice, packageRoot, prebuildDir } from '../load.js';
import { tempDir } from './helpers.js';

test('candidates: build/Release, build/Debug, prebuilds, with $INTERLOCK_ADDON first', () => {
  const rel = (p) => path.relative(packageRoot, p);
  assert.deepEqual(addonCandidates({}).map(rel), [
    path.join('build', 'Release', 'interlock.node'),
    path.join('build', 'Debug', 'interlock.node'),
    path.join('prebuilds', `${process.platform}-${process.arch}`, 'interlock.node'),
  ]);
  assert.equal(addonCandidates({ INTERLOCK_ADDON: '/x/y.node' })[0], '/x/y.node');
});

test('loads the built addon', () => {
  const native = loadAddon();
  assert.equal(typeof native.sessionStatus, 'function');
});

test('when nothing loads, one error lists every path and why', () => {
  const dir = tempDir();
  const broken = path.join(dir, 'broken.node');
  writeFileSync(broken, 'not an ELF file');
  const missing = path.join(dir, 'missing.node');
  assert.throws(() => loadAddon([missing, broken]), (err) => {
    assert.equal(err.code, 'ERR_INTERLOCK_ADDON_LOAD');
    assert.equal(err.tried.length, 2);
    assert.match(err.message, new RegExp(`${missing}: not found`));
    assert.match(err.message, new RegExp(`${broken}: .*(invalid ELF header|file too short)`));
    assert.match(err.message, /npm rebuild interlock --build-from-source/);
    return true;
  });
});

test('the library soname carries the version, and the addon needs exactly that soname', () => {
  const native = loadAddon();
  const [major, minor] = native.version().split('.');
  const soname = `libinterlock.so.${major}.${minor}`;
  const lib = execFileSync('readelf', ['-d', path.join(packageRoot, 'lib', soname)], { encoding: 'utf8' });
  assert.match(lib, new RegExp(`\\(SONAME\\)\\s+Library soname: \\[${soname.replaceAll('.', '\\.')}\\]`));
  const addon = execFileSync('readelf', ['-d', path.join(packageRoot, 'build', 'Release', 'interlock.node')], { encoding: 'utf8' });
  const needed = [...addon.matchAll(/\(NEEDED\)\s+Shared library: \[(libinterlock[^\]]*)\]/g)].map((m) => m[1]);
  assert.deepEqual(needed, [soname]);
});

test('a platform without a prebuild gets one error saying how to build, naming skipped install scripts', () => {
  const advice = loadAdvice('darwin-arm64');
  assert.match(advice, /no prebuilt binary for darwin-arm64 \(prebuilt: linux-x64\)/);
  assert.match(advice, /npm rebuild interlock --build-from-source/);
  assert.match(advice, /Go 1\.26.*node-addon-api/);
  assert.match(advice, /install scripts were skipped.*npm 12 or pnpm 10/);
  assert.match(loadAdvice('linux-x64-musl'), /no prebuilt binary for linux-x64-musl/);
  assert.match(loadAdvice('linux-x64'), /glibc 2\.34 or newer/);
});

test('the prebuild needs no newer glibc than the load error says (2.34)', (t) => {
  const dir = prebuildDir();
  let out;
  try {
    out = execFileSync('objdump', ['-T', path.join(dir, 'interlock.node'), path.join(dir, 'libinterlock.so.0.1')], { encoding: 'utf8' });
  } catch (err) {
    assert.fail(`objdump of ${dir} failed (run make prebuild): ${err.message}`);
  }
  const versions = [...out.matchAll(/GLIBC_(\d+)\.(\d+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
  assert.ok(versions.length > 0);
  for (const [major, minor] of versions) assert.ok(major < 2 || (major === 2 && minor <= 34), `needs GLIBC_${major}.${minor}`);
});
