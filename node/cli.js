#!/usr/bin/env node
// The package's command line (`npx agent-interlock ...`):
//
//   agent-interlock doctor                       what confines the bash tool's commands here
//   agent-interlock audit <store> [--jsonl] [--session ID]
//                                                the audit log of a store no engine holds
//
// Exit status: 0 done; 1 the sandbox is degraded (doctor) or the command
// failed (the message says why); 2 a usage error.

import { parseArgs } from 'node:util';

import { Engine, version } from './index.js';
import { native } from './lib/native.js';

const USAGE = `usage:
  agent-interlock doctor
      What confines the bash tool's commands on this machine (Landlock,
      namespaces), one line each, with a warning for anything missing.
      Exits 1 when the sandbox is degraded.
  agent-interlock audit <store> [--jsonl] [--session ID]
      The audit log of the store file <store> (every decision about a pause,
      oldest first) as a table, or with --jsonl one JSON object a line.
      The store must not be open in an engine; reading it changes nothing.
  agent-interlock --version`;

class UsageError extends Error {}

function doctor(args) {
  if (args.length) throw new UsageError(`doctor takes no arguments, got ${args.join(' ')}`);
  const engine = new Engine();
  try {
    let degraded = false;
    for (const s of engine.info().sandbox) {
      console.log(`${s.tool}: sandbox mode ${s.mode}`);
      console.log(`  filesystem: ${s.filesystem}`);
      console.log(`  signals:    ${s.signals}`);
      console.log(`  network:    ${s.network}`);
      console.log(`  tree:       ${s.tree}`);
      console.log(`  processes:  ${s.processes}`);
      for (const w of s.warnings ?? []) console.log(`  warning: ${w}`);
      console.log(s.degraded ? '  => degraded: see the warnings' : '  => everything in force');
      degraded ||= s.degraded;
    }
    return degraded ? 1 : 0;
  } finally {
    engine.close();
  }
}

/**
 * A logged string as text on one line: control characters (a carriage
 * return, an escape sequence) and bidirectional overrides would let a
 * logged command hide or rewrite itself on the terminal; they are shown as
 * \u{…} escapes instead.
 */
function visible(text) {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
    (ch) => `\\u{${ch.codePointAt(0).toString(16)}}`);
}

/** The columns of the audit table, in order. */
const AUDIT_COLUMNS = ['at', 'session', 'run', 'pause', 'event', 'kind', 'tool', 'answer', 'by', 'remember', 'reason', 'message'];

function audit(args) {
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, options: { jsonl: { type: 'boolean' }, session: { type: 'string' } } });
  } catch (err) {
    throw new UsageError(err.message);
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1) throw new UsageError(`audit takes one store path, got ${positionals.length}`);
  const entries = JSON.parse(native.storeAuditLog(positionals[0], values.session ?? ''));
  if (values.jsonl) {
    for (const e of entries) process.stdout.write(`${JSON.stringify(e)}\n`);
    return 0;
  }
  if (entries.length === 0) {
    console.log('no audit entries');
    return 0;
  }
  const rows = entries.map((e) => AUDIT_COLUMNS.map((c) => visible(String(e[c] ?? ''))));
  const widths = AUDIT_COLUMNS.map((c, i) => Math.max(c.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]))).join('  ');
  console.log(line(AUDIT_COLUMNS));
  for (const r of rows) console.log(line(r));
  return 0;
}

/** Runs one command; an engine error is reported under its name, without the library call's. */
function run(name, fn, args) {
  try {
    return fn(args);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    console.error(`agent-interlock ${name}: ${String(err.message).replace(/^il_\w+: /, '')}`);
    return 1;
  }
}

function main(argv) {
  const [command, ...rest] = argv;
  switch (command) {
    case 'doctor':
      return run('doctor', doctor, rest);
    case 'audit':
      return run('audit', audit, rest);
    case '--version':
    case '-v':
      console.log(version);
      return 0;
    case '--help':
    case '-h':
    case 'help':
      console.log(USAGE);
      return 0;
    case undefined:
      throw new UsageError('no command given');
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  }
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (err) {
  if (err instanceof UsageError) {
    console.error(`agent-interlock: ${err.message}\n${USAGE}`);
    process.exitCode = 2;
  } else {
    console.error(`agent-interlock: ${err.message}`);
    process.exitCode = 1;
  }
}
