// Loads the native addon (node/native.d.ts describes it). It tries, in order,
// $INTERLOCK_ADDON, the node-gyp build folders and the prebuilt folder, and
// when none loads throws one error listing every path it tried and why.

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/** The package root (the folder holding binding.gyp). */
export const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Where the addon may be, in the order they are tried. */
export function addonCandidates(env = process.env) {
  const paths = [
    path.join(packageRoot, 'build', 'Release', 'interlock.node'),
    path.join(packageRoot, 'build', 'Debug', 'interlock.node'),
    path.join(packageRoot, 'prebuilds', `${process.platform}-${process.arch}`, 'interlock.node'),
  ];
  return env.INTERLOCK_ADDON ? [path.resolve(env.INTERLOCK_ADDON), ...paths] : paths;
}

/**
 * Loads the first candidate that loads.
 * @param {string[]} candidates
 * @returns {import('./native.js').Native}
 */
export function loadAddon(candidates = addonCandidates()) {
  const tried = [];
  for (const file of candidates) {
    if (!existsSync(file)) {
      tried.push(`${file}: not found`);
      continue;
    }
    try {
      return require(file);
    } catch (err) {
      tried.push(`${file}: ${firstLine(err)}`);
    }
  }
  const err = new Error(
    'interlock: cannot load the native addon. Tried:\n' +
      tried.map((t) => `  - ${t}`).join('\n') +
      '\nBuild it from the package folder with `node node/build.js` (needs the Go toolchain and a C/C++ compiler),' +
      ' or point INTERLOCK_ADDON at a built interlock.node.',
  );
  err.code = 'ERR_INTERLOCK_ADDON_LOAD';
  err.tried = tried;
  throw err;
}

function firstLine(err) {
  const msg = err && err.message ? String(err.message) : String(err);
  return msg.split('\n')[0];
}
