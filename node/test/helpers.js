// Shared test helpers: scripts, event waits, child-process scenarios.

import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const testDir = path.dirname(fileURLToPath(import.meta.url));
export const fixture = (name) => path.join(testDir, 'fixtures', name);

export function tempDir(prefix = 'interlock-test-') {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

/** A turn calling one tool. */
export const call = (name, args, text = '') => ({ text, toolCalls: [{ name, args }] });

/** Script: the model asks for a continue pause, then ends. */
export const askContinue = [call('ask', { kind: 'continue', message: 'Continue?' }), { text: 'ok' }];
/** Script: the model asks for a confirm pause, then ends. */
export const askConfirm = [call('ask', { kind: 'confirm', message: 'Allow?' }), { text: 'ok' }];
/** Script: the model stalls until interrupted. */
export const hang = [{ text: 'thinking', hang: true }];

/** Resolves with the next event of type (or any event for 'event') on emitter. */
export function nextEvent(emitter, type, { timeoutMs = 10_000 } = {}) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      emitter.off(type, on);
      reject(new Error(`no ${type} event within ${timeoutMs} ms`));
    }, timeoutMs);
    const on = (ev) => {
      clearTimeout(timer);
      emitter.off(type, on);
      resolve(ev);
    };
    emitter.on(type, on);
  });
}

/**
 * Runs `node file ...args` and resolves with {code, signal, stdout, stderr}.
 * stdout is a pipe (no TTY) unless opts.stdio says otherwise.
 */
export function runNode(file, args = [], { timeoutMs = 60_000, env = {} } = {}) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [file, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** A one-line description of a child's end, for assertion messages. */
export function describeExit(r) {
  return `exit ${r.code} signal ${r.signal}\n--- stdout\n${r.stdout.slice(-2000)}\n--- stderr\n${r.stderr.slice(-4000)}`;
}

/**
 * Resolves with internals.counters() once no event sink or event copy is
 * left (their thread-safe functions are finalized on a later loop turn
 * after close), or with the last reading after timeoutMs.
 */
export async function settledCounters({ timeoutMs = 5_000 } = {}) {
  const { internals } = await import('../index.js'); // not at the top: pack.test.js must not load the addon
  const deadline = Date.now() + timeoutMs;
  let c = internals.counters();
  while ((c.sinks !== 0 || c.queuedEvents !== 0) && Date.now() < deadline) {
    await new Promise((r) => setImmediate(r));
    c = internals.counters();
  }
  return c;
}

/**
 * Starts the replay server of recorded OpenAI-compatible responses
 * (cmd/interlock-openaitest) and resolves with {url, close}. The model
 * name picks the recording ('text', 'tool_calls', 'stall', ...).
 */
export function startReplayServer({ timeoutMs = 120_000 } = {}) {
  const root = path.resolve(testDir, '..', '..');
  return new Promise((resolve, reject) => {
    const child = spawn('go', ['run', './cmd/interlock-openaitest'], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the replay server did not start within ${timeoutMs} ms: ${stderr}`));
    }, timeoutMs);
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.on('data', (d) => {
      stdout += d;
      const nl = stdout.indexOf('\n');
      if (nl < 0) return;
      clearTimeout(timer);
      const closed = new Promise((r) => child.on('close', r));
      resolve({
        url: stdout.slice(0, nl).trim(),
        close: () => {
          child.stdin.end(); // it serves until stdin closes
          return closed;
        },
      });
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`go run ./cmd/interlock-openaitest: ${err.message}`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`the replay server exited (${code}) before serving: ${stderr}`));
    });
  });
}

/**
 * Live (not zombie) processes whose command line holds marker. Found by
 * name, not by pid: under the supervisor's PID namespace the shell's $$ is
 * not its pid on the host.
 */
export function liveMarked(marker) {
  const live = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (!readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(marker)) continue;
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
      if (state !== 'Z' && state !== 'X') live.push(Number(name));
    } catch {
      // exited meanwhile
    }
  }
  return live;
}
