#!/usr/bin/env node
// The package's command line (`npx agent-interlock ...`):
//
//   agent-interlock doctor                       what confines the bash tool's commands here
//   agent-interlock audit <store> [--jsonl] [--session ID]
//                                                the audit log of a store no engine holds
//   agent-interlock hub [--url URL] [--port N]   the fleet view of a hub, no engine of its own
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
  agent-interlock hub [--url URL] [--port N]
      Serves the fleet view of the hub at URL (a PostgreSQL URL; default
      $INTERLOCK_HUB_URL): the web UI over every host's sessions, on
      127.0.0.1 (port N, default a free one), with no engine of its own.
      Prints the address to open, token included, and serves until
      interrupted (Ctrl-C).
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

/** url with its password hidden, otherwise as written. */
function redacted(url) {
  return url.replace(/(:\/\/[^:/@]*:)[^@/]*@/, '$1xxxxx@').replace(/(password=)\S+/, '$1xxxxx');
}

/** Serves the fleet view until SIGINT or SIGTERM; resolves to the exit status. */
function hub(args) {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { url: { type: 'string' }, port: { type: 'string' } } });
  } catch (err) {
    throw new UsageError(err.message);
  }
  const { values } = parsed;
  const url = values.url ?? process.env.INTERLOCK_HUB_URL ?? '';
  if (url === '') {
    throw new UsageError("hub needs the hub's PostgreSQL URL: --url postgres://user@host/db, or INTERLOCK_HUB_URL set");
  }
  let port = 0;
  if (values.port !== undefined) {
    port = Number(values.port);
    if (!/^\d+$/.test(values.port) || port > 65535) throw new UsageError(`--port ${JSON.stringify(values.port)}: want a port number, 0 (a free one) to 65535`);
  }
  let server;
  let address;
  try {
    [server, address] = native.fleetServe(JSON.stringify({ hubUrl: url, port }));
  } catch (err) {
    const why = String(err.message).replace(/^agent-interlock hub: /, '').replace(/^webui: fleet view: /, '');
    console.error(`agent-interlock hub: --url ${JSON.stringify(redacted(url))}: ${why}`);
    return 1;
  }
  return new Promise((resolve) => {
    const alive = setInterval(() => {}, 1 << 30); // the server runs in the library: keep Node up
    const stop = () => {
      clearInterval(alive);
      native.serverClose(server);
      resolve(0);
    };
    // Before the URL is printed: the page is served by the library from then
    // on, and a SIGINT sent once it answers must find the handler in place.
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    console.log(`agent-interlock hub: the fleet view of ${redacted(url)}: open ${address}`);
  });
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
    case 'hub':
      return run('hub', hub, rest);
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
  const status = main(process.argv.slice(2));
  if (status instanceof Promise) status.then((s) => { process.exitCode = s; });
  else process.exitCode = status;
} catch (err) {
  if (err instanceof UsageError) {
    console.error(`agent-interlock: ${err.message}\n${USAGE}`);
    process.exitCode = 2;
  } else {
    console.error(`agent-interlock: ${err.message}`);
    process.exitCode = 1;
  }
}
