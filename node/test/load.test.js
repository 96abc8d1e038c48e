// The loader: tries every build folder and reports each path it tried and why.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { addonCandidates, loadAddon, packageRoot } from '../load.js';
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
    assert.match(err.message, /node node\/build\.js/);
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
