// Loads the native addon (node/native.d.ts describes it). It tries, in order,
// $INTERLOCK_ADDON, the node-gyp build folders (present only after a build
// from source) and the prebuilt folder for this platform, and when none
// loads throws one error listing every path it tried and why, and what to do.

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/** The package root (the folder holding binding.gyp). */
export const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Platforms a prebuilt binary ships for (prebuilds/<name>/). */
export const PREBUILT_PLATFORMS = Object.freeze(['linux-x64']);

/** The C library: 'glibc', 'musl' or undefined off Linux. */
export function libc() {
  if (process.platform !== 'linux') return undefined;
  const header = process.report?.getReport?.().header;
  return header?.glibcVersionRuntime ? 'glibc' : 'musl';
}

/** This platform's prebuild folder name (linux-x64 for glibc, linux-x64-musl...). */
export function platformName() {
  const base = `${process.platform}-${process.arch}`;
  return libc() === 'musl' ? `${base}-musl` : base;
}

/** The prebuilt folder for this platform, whether one ships or not. */
export function prebuildDir(root = packageRoot) {
  return path.join(root, 'prebuilds', platformName());
}

/** Where the addon may be, in the order they are tried. */
export function addonCandidates(env = process.env) {
  const paths = [
    path.join(packageRoot, 'build', 'Release', 'interlock.node'),
    path.join(packageRoot, 'build', 'Debug', 'interlock.node'),
    path.join(prebuildDir(), 'interlock.node'),
  ];
  return env.INTERLOCK_ADDON ? [path.resolve(env.INTERLOCK_ADDON), ...paths] : paths;
}

/** What to do when nothing loaded, for the error message. */
export function loadAdvice(name = platformName()) {
  const build = 'npm rebuild interlock --build-from-source (needs Go 1.26+ with cgo, gcc/g++, python3, make,' +
    ' and node-addon-api: npm install --save-dev node-addon-api@8)';
  if (!PREBUILT_PLATFORMS.includes(name)) {
    return `There is no prebuilt binary for ${name} (prebuilt: ${PREBUILT_PLATFORMS.join(', ')}). Build it from source: ${build}.` +
      ' If install scripts were skipped (npm --ignore-scripts, npm 12 or pnpm 10 by default), the build never ran; the command above runs it.';
  }
  return `The prebuilt binary for ${name} is missing or does not load: the package may be incomplete (reinstall it) or this system too old` +
    ` (it needs glibc 2.34 or newer). Or build from source: ${build}.`;
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
      `\n${loadAdvice()}\nOr point INTERLOCK_ADDON at a built interlock.node.`,
  );
  err.code = 'ERR_INTERLOCK_ADDON_LOAD';
  err.tried = tried;
  throw err;
}

function firstLine(err) {
  const msg = err && err.message ? String(err.message) : String(err);
  return msg.split('\n')[0];
}
