// Contained commands from Node: nothing a bash command started survives
// its host's death, by any signal. /proc is checked by the test.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { fixture, tempDir } from './helpers.js';

/** Whether pid runs (exists and is not a zombie). */
function alive(pid) {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return false;
  try {
    const text = readFileSync(stat, 'utf8');
    const state = text.slice(text.lastIndexOf(')') + 2)[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Resolves once child printed line. */
function waitForLine(child, line, timeoutMs = 20_000) {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no "${line}" from the host within ${timeoutMs} ms: ${out}`)), timeoutMs);
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes(line)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', (code, sig) => {
      clearTimeout(timer);
      reject(new Error(`host exited (${code ?? sig}) before "${line}": ${out}`));
    });
  });
}

const exited = (child) => new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', resolve)));

for (const signal of ['SIGKILL', 'SIGTERM', 'SIGINT', 'SIGHUP']) {
  test(`host killed by ${signal} while a command runs a child and a grandchild: 0 survivors 1 s later`, async () => {
    const pidFile = path.join(tempDir(), 'pids');
    writeFileSync(pidFile, '');
    const host = spawn(process.execPath, [fixture('contain-host.mjs'), pidFile], { stdio: ['ignore', 'pipe', 'inherit'] });
    await waitForLine(host, 'started');
    const pids = readFileSync(pidFile, 'utf8').trim().split('\n').map(Number);
    assert.equal(pids.length, 3, `child, grandchild and great-grandchild recorded: ${pids}`);
    assert.ok(pids.every(alive), 'they run before the host dies');
    host.kill(signal);
    await exited(host);
    assert.equal(host.signalCode, signal, 'the host died of the signal (Node default action)');
    const deadline = Date.now() + 1000;
    while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    const survivors = pids.filter(alive);
    for (const pid of survivors) process.kill(pid, 'SIGKILL');
    assert.deepEqual(survivors, [], `processes outlived the host killed by ${signal}`);
  });
}
