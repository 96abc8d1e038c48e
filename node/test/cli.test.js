// The package's command line, node/cli.js (package.json bin
// `agent-interlock`), run as a user runs it: a child process.
//   doctor: what confines commands here, as engine.info() says it.
//   audit:  the audit log of a real store file a test engine wrote, once
//           that engine is closed; a store an engine holds is refused.
//   hub:    its usage errors here; serving a real hub is tested with
//           PostgreSQL in engine/webui/fleet_test.go.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { Engine } from '../index.js';
import { packageRoot } from '../load.js';
import { askConfirm, askContinue, runNode, tempDir } from './helpers.js';

const cli = path.join(packageRoot, 'node', 'cli.js');
const SNEAKY = 'rm -rf ~/project\r\u001b[8mls -la\u001b[0m \u202eexe.sh';
const hash = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');

test('package.json names node/cli.js as the agent-interlock command, and it runs as one', () => {
  const pkg = JSON.parse(readFileSync(path.join(packageRoot, 'package.json'), 'utf8'));
  assert.deepEqual(pkg.bin, { 'agent-interlock': './node/cli.js' });
  assert.match(readFileSync(cli, 'utf8'), /^#!\/usr\/bin\/env node\n/);
  assert.ok(statSync(cli).mode & 0o111, 'node/cli.js is executable');
});

test('doctor prints what confines commands here and exits 1 only when degraded', async () => {
  const engine = new Engine();
  const { sandbox } = engine.info();
  engine.close();
  const r = await runNode(cli, ['doctor']);
  assert.equal(r.code, sandbox.some((s) => s.degraded) ? 1 : 0, r.stderr);
  for (const s of sandbox) {
    assert.match(r.stdout, new RegExp(`^${s.tool}: sandbox mode ${s.mode}$`, 'm'));
    assert.ok(r.stdout.includes(`  filesystem: ${s.filesystem}\n`), r.stdout);
    assert.ok(r.stdout.includes(`  tree:       ${s.tree}\n`), r.stdout);
    for (const w of s.warnings ?? []) assert.ok(r.stdout.includes(`  warning: ${w}\n`), r.stdout);
  }
  assert.match(r.stdout, /=> (everything in force|degraded: see the warnings)/);
});

describe('audit', () => {
  const dir = tempDir('interlock-cli-');
  const store = path.join(dir, 'sessions.db');
  let logged; // what the engine itself reported before it closed

  before(async () => {
    const engine = new Engine({ store });
    const deploy = engine.createSession({ id: 'deploy', script: askConfirm });
    const lint = engine.createSession({ id: 'lint', script: askContinue });
    // A message that would rewrite itself on a terminal: a carriage return
    // back over it, then concealed text (ESC[8m).
    const sneaky = engine.createSession({ id: 'sneaky', script: [{ toolCalls: [{ name: 'ask', args: { kind: 'confirm', message: SNEAKY } }] }, { text: 'ok' }] });
    deploy.on('paused', () => deploy.confirm(false));
    lint.on('paused', () => lint.resume());
    sneaky.on('paused', () => sneaky.confirm(false));
    await deploy.prompt('deploy');
    await lint.prompt('lint');
    await sneaky.prompt('clean');
    logged = engine.auditLog();
    engine.close();
    await engine.closed;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('--jsonl: one JSON object a line, the entries the engine logged', async () => {
    const before = hash(store);
    const r = await runNode(cli, ['audit', store, '--jsonl']);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trimEnd().split('\n');
    assert.deepEqual(lines.map((l) => JSON.parse(l)), logged);
    assert.ok(logged.some((e) => e.session === 'deploy' && e.event === 'answered' && e.answer === 'denied'), JSON.stringify(logged));
    assert.ok(logged.some((e) => e.session === 'lint' && e.event === 'answered' && e.answer === 'resumed'), JSON.stringify(logged));
    assert.equal(hash(store), before, 'reading the log changes nothing in the store');
  });

  test('a table by default, one row per entry; --session keeps one session\'s', async () => {
    let r = await runNode(cli, ['audit', store]);
    assert.equal(r.code, 0, r.stderr);
    const [header, ...rows] = r.stdout.trimEnd().split('\n');
    assert.match(header, /^at +session +run +pause +event +kind +tool +answer +by +remember +reason +message$/);
    assert.equal(rows.length, logged.length);
    assert.match(rows.find((l) => / deploy /.test(l) && / answered /.test(l)), / confirm +Ask +denied /);

    // The table is text: what a logged string holds cannot act on the terminal.
    assert.doesNotMatch(r.stdout, /[\u0000-\u0009\u000b-\u001f\u202e]/, 'no control character or override reaches the terminal');
    assert.ok(r.stdout.includes('rm -rf ~/project\\u{d}\\u{1b}[8mls -la\\u{1b}[0m \\u{202e}exe.sh'), r.stdout);

    r = await runNode(cli, ['audit', store, '--session', 'lint', '--jsonl']);
    assert.equal(r.code, 0, r.stderr);
    const lint = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(lint, logged.filter((e) => e.session === 'lint'));
  });

  test('a store an engine holds is refused, naming the owner', async () => {
    const engine = new Engine({ store });
    try {
      const r = await runNode(cli, ['audit', store]);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /^agent-interlock audit: .*in use by another process/);
      assert.match(r.stderr, new RegExp(`process ${process.pid} holds`));
      assert.doesNotMatch(r.stderr, /il_\w+/);
    } finally {
      engine.close();
      await engine.closed;
    }
  });

  test('a path with no store says so and creates nothing', async () => {
    const missing = path.join(dir, 'missing.db');
    const r = await runNode(cli, ['audit', missing]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /no store file at this path/);
    assert.ok(r.stderr.includes(missing), r.stderr);
    assert.equal(existsSync(missing), false);
  });
});

test('usage errors exit 2 with the usage', async () => {
  for (const args of [[], ['bogus'], ['audit'], ['audit', 'a.db', 'b.db'], ['audit', 'a.db', '--json'], ['doctor', 'x'],
    ['hub', '--url', 'postgres://h/db', '--port', '99999'], ['hub', '--url', 'postgres://h/db', 'extra'], ['hub', '--bogus']]) {
    const r = await runNode(cli, args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /^agent-interlock: .+\nusage:\n {2}agent-interlock doctor/, args.join(' '));
  }
  const r = await runNode(cli, ['--version']);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /^\d+\.\d+\.\d+/);
});
