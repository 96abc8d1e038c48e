// Contained commands from Node: nothing a bash command started survives
// its host's death, by any signal. /proc is checked by the test.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

async function runWorkerHost(args) {
  const host = spawn(process.execPath, [fixture('contain-worker.mjs'), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  host.stdout.on('data', (d) => (out += d));
  await exited(host);
  assert.equal(host.exitCode, 0, `the host (main thread) went on and exited normally: ${out}`);
  return JSON.parse(out.trim().split('\n').at(-1));
}

async function requireGone(pids, what) {
  const deadline = Date.now() + 1000;
  while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  const survivors = pids.filter(alive);
  for (const pid of survivors) process.kill(pid, 'SIGKILL');
  assert.deepEqual(survivors, [], `${what} outlived the worker`);
}

test('a worker thread terminated while its command runs: 0 survivors, no handle left, Node goes on', async () => {
  const pidFile = path.join(tempDir(), 'pids');
  writeFileSync(pidFile, '');
  const res = await runWorkerHost([pidFile]);
  assert.equal(res.pids.length, 3, `child, grandchild and great-grandchild recorded: ${res.pids}`);
  assert.equal(res.openHandles, 0, 'the worker engine\'s handles were released');
  await requireGone(res.pids, 'the command\'s processes');
});

test('a worker thread terminated while its browser navigates: browser and command gone, no handle left', { timeout: 60_000 }, async () => {
  const { createServer } = await import('node:http');
  const hanging = createServer(() => {}); // accepts, never answers
  await new Promise((r) => hanging.listen(0, '127.0.0.1', r));
  try {
    const pidFile = path.join(tempDir(), 'pids');
    writeFileSync(pidFile, '');
    const res = await runWorkerHost([pidFile, 'web', `http://127.0.0.1:${hanging.address().port}/`]);
    assert.ok(res.browsers.length > 0, 'the browser ran when the worker was terminated');
    assert.equal(res.openHandles, 0);
    await requireGone([...res.pids, ...res.browsers], 'the command and the browser');
  } finally {
    hanging.closeAllConnections();
    hanging.close();
  }
});

test('engine.info() and the snapshot say what confines commands; a degraded sandbox warns once per session', async () => {
  const { Engine } = await import('../index.js');
  const full = new Engine();
  try {
    const [sb] = full.info().sandbox;
    assert.equal(sb.tool, 'bash');
    assert.equal(sb.mode, 'workspace-write');
    assert.equal(sb.degraded, (sb.warnings ?? []).length > 0, 'degraded exactly when something is missing');
    const s = full.createSession({});
    assert.deepEqual(s.snapshot().sandbox, sb);
    s.close();
  } finally {
    full.close();
  }

  const off = new Engine({ bash: { sandbox: { mode: 'off' } } });
  try {
    const [sb] = off.info().sandbox;
    assert.equal(sb.mode, 'off');
    assert.equal(sb.filesystem, 'off');
    assert.equal(sb.degraded, true);
    assert.match(sb.warnings.join('\n'), /sandbox off/);
    const s = off.createSession({ script: [{ toolCalls: [{ name: 'bash', args: { command: 'true' } }] }, { toolCalls: [{ name: 'bash', args: { command: 'true' } }] }, { text: 'done' }] });
    const warnings = [];
    s.on('warning', (ev) => warnings.push(ev));
    await s.prompt('go');
    assert.equal(warnings.length, 1, 'one warning event per session');
    assert.match(warnings[0].text, /Sandbox not fully in force: .*sandbox off/);
    assert.equal(s.snapshot().sandbox.degraded, true);
  } finally {
    off.close();
  }
});

test('bad sandbox config is refused naming the field', async () => {
  const { Engine } = await import('../index.js');
  const cases = [
    [{ bash: { sandbox: { mode: 'strict' } } }, /bash\.sandbox\.mode is "strict"/],
    [{ bash: { sandbox: { writable: ['build'] } } }, /bash\.sandbox\.writable\[0\] is "build": use an absolute path/],
    [{ bash: { sandbox: { writable: ['/nonexistent/x'] } } }, /bash\.sandbox\.writable\[0\] is "\/nonexistent\/x"/],
    [{ bash: { sandbox: { network: 'maybe' } } }, /bash\.sandbox\.network/],
    [{ bash: { sandbox: { maxProcesses: -1 } } }, /bash\.sandbox\.maxProcesses is -1/],
  ];
  for (const [config, message] of cases) {
    assert.throws(() => new Engine(config), (err) => err.code === 'ERR_INVALID_ARGUMENT' && message.test(err.message), JSON.stringify(config));
  }
  const e = new Engine();
  try {
    assert.throws(() => e.createSession({ sandbox: { mode: 'nope' } }), /sandbox\.mode is "nope"/);
  } finally {
    e.close();
  }
});

test('secrets in the host environment are not visible to commands', () => {
  const script = `
    import { Engine } from ${JSON.stringify(new URL('../index.js', import.meta.url).href)};
    const e = new Engine();
    const s = e.createSession({ env: { GIVEN_TOKEN: 'by-session' }, script: [{ toolCalls: [{ name: 'bash', args: { command: 'env' } }] }, { text: 'done' }] });
    await s.prompt('go');
    console.log(JSON.stringify(s.history().find((m) => m.role === 'tool').text));
    e.close();`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { ...process.env, OPENAI_API_KEY: 'sk-host-secret', GITHUB_TOKEN: 'ghp-host-secret', PLAIN_VALUE: 'visible' },
  });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout.trim().split('\n').at(-1));
  assert.doesNotMatch(out, /sk-host-secret|ghp-host-secret/);
  assert.match(out, /PLAIN_VALUE=visible/);
  assert.match(out, /GIVEN_TOKEN=by-session/);
});

test('in a temporary HOME, an approved command cannot harm the home, the host or another session; it can write its project', () => {
  // HOME and TMPDIR (writable by policy) apart: ~/precious is outside every
  // writable path, as a real home is.
  const root = tempDir('interlock-home-');
  const home = path.join(root, 'home');
  const project = path.join(home, 'project');
  mkdirSync(project, { recursive: true });
  mkdirSync(path.join(root, 'tmp'));
  mkdirSync(path.join(home, 'precious'));
  writeFileSync(path.join(home, 'precious', 'file'), 'keep');
  const script = `
    import { existsSync, readdirSync, readFileSync } from 'node:fs';
    import { Engine } from ${JSON.stringify(new URL('../index.js', import.meta.url).href)};
    const e = new Engine({ workDir: ${JSON.stringify(project)} });
    const script = (command) => [{ toolCalls: [{ name: 'bash', args: { command } }] }, { text: 'done' }];
    const approveAll = (s) => s.on('paused', () => s.confirm(true));
    async function run(command) {
      const s = e.createSession({ script: script(command) });
      approveAll(s);
      await s.prompt('go');
      const text = s.history().find((m) => m.role === 'tool').text;
      s.close();
      return text;
    }
    const out = {};
    out.rm = await run('rm -rf ~/precious');
    out.inside = await run('echo made > inside && cat inside');
    out.killHost = await run('kill -TERM ${'$'}{process.pid}; echo exit=$?');
    // Another session's command, found on the host by a marker in its argv.
    const marker = 'interlock-other-' + process.pid;
    const other = e.createSession({ script: script("sh -c 'echo ready; sleep 30; true' " + marker) });
    approveAll(other);
    const ready = new Promise((resolve) => other.on('tool_progress', function on(ev) {
      if (!/ready/.test(ev.text ?? '')) return;
      other.off('tool_progress', on);
      resolve();
    }));
    const otherRun = other.prompt('go');
    await ready;
    const pid = Number(readdirSync('/proc').find((n) => /^\\d+$/.test(n) && (() => { try { return readFileSync('/proc/' + n + '/cmdline', 'utf8').includes(marker); } catch { return false; } })()));
    out.otherPid = pid;
    out.killOther = await run('kill -KILL ' + pid + '; echo exit=$?');
    out.otherAlive = existsSync('/proc/' + pid) && !/\\) [ZX] /.test(readFileSync('/proc/' + pid + '/stat', 'utf8'));
    other.interrupt();
    await otherRun;
    console.log(JSON.stringify(out));
    e.close();`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, HOME: home, TMPDIR: path.join(root, 'tmp') },
  });
  assert.equal(r.status, 0, `the host did not finish (signal ${r.signal}): ${r.stderr}`);
  const out = JSON.parse(r.stdout.trim().split('\n').at(-1));
  assert.ok(existsSync(path.join(home, 'precious', 'file')), `rm -rf ~/precious removed it: ${out.rm}`);
  assert.match(out.rm, /Permission denied|Read-only file system/); // Landlock, or first the read-only mounts of a PID namespace
  assert.ok(out.rm.includes(`[blocked by the sandbox: writing "${path.join(home, 'precious', 'file')}"`), out.rm);
  assert.match(out.rm, /add the path \(or a parent directory\) to bash\.sandbox\.writable/);
  assert.match(out.inside, /made/);
  assert.equal(readFileSync(path.join(project, 'inside'), 'utf8'), 'made\n');
  assert.doesNotMatch(out.killHost, /exit=0/, 'signalling the host must fail');
  assert.ok(out.otherPid > 0, 'the other session\'s command was found');
  assert.doesNotMatch(out.killOther, /exit=0/, 'signalling another session\'s command must fail');
  assert.ok(out.otherAlive, 'the other session\'s command was killed');
  rmSync(root, { recursive: true, force: true });
});
