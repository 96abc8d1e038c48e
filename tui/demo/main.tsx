/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
// Interlock demo: a scripted agent in a real engine.
//
//   node --import tsx tui/demo/main.tsx --sessions three agents at once, the sessions view and the web UI (make demo)
//   node --import tsx tui/demo/main.tsx            chat: stream, confirm (Y/N), page pause (Enter), stop (Esc)
//   node --import tsx tui/demo/main.tsx --tasks    task loop; add --pause to start in pause mode
//   --script confirm|continue|long                 chat: one short script (see SHORT_SCRIPTS)
//   --quick-tasks N                                task loop: N quick tasks instead of the demo's four
//   --host js-tool|loop                            chat: a tool written in JS that asks (js-tool), or the
//                                                  demo's own agent loop through session.begin() (loop);
//                                                  with --sessions, loop adds a fourth, host-driven session
//
// Options: --settle-ms N (quiet period: a key answers only after N ms without keys; default 250).
// --keep keeps the sessions in $XDG_STATE_HOME/interlock/demo.db (~/.local/state/interlock/demo.db;
// make demo passes it): kill the demo while an agent works and start it again to see them come
// back "Interrupted by server restart". --store PATH keeps them in another file. A store another
// demo has open is left to it (this one then keeps nothing and says so).
// A real model instead of the script (an OpenAI-compatible server):
//   --provider openai --base-url http://127.0.0.1:11434/v1 --model qwen2.5 [--api-key-env OPENAI_API_KEY]
// (make demo PROVIDER=openai BASE_URL=... MODEL=... [API_KEY_ENV=...]).
// q (on an empty prompt) or Ctrl+C quits: session, engine and page server are
// closed and the temporary directory removed.

import { render } from 'ink';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Engine } from '../../node/index.js';
import { ChatApp } from './ChatApp.js';
import { chatScript, demoTasks, quickTasks, sessionsScripts, SHORT_SCRIPTS } from './scripts.js';
import { SessionsApp } from './SessionsApp.js';
import { DEPLOY_SCRIPT, HOST_MODES, hostLoop, registerDeployTool, type HostMode } from './host.js';
import { startPageServer } from './server.js';
import { TasksApp } from './TasksApp.js';

const { values: opts } = parseArgs({
  options: {
    tasks: { type: 'boolean', default: false },
    sessions: { type: 'boolean', default: false },
    pause: { type: 'boolean', default: false },
    'settle-ms': { type: 'string' },
    provider: { type: 'string' },
    'base-url': { type: 'string' },
    model: { type: 'string' },
    'api-key-env': { type: 'string' },
    script: { type: 'string' },
    'quick-tasks': { type: 'string' },
    host: { type: 'string' },
    store: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});
const host = opts.host as HostMode | undefined;
if (host !== undefined && !HOST_MODES.includes(host)) throw new Error(`unknown --host ${host}: use one of ${HOST_MODES.join(', ')}`);
const settleMs = opts['settle-ms'] === undefined ? undefined : Number(opts['settle-ms']);

function shortScript(name: string) {
  const script = SHORT_SCRIPTS[name];
  if (!script) throw new Error(`unknown --script ${name}: use one of ${Object.keys(SHORT_SCRIPTS).join(', ')}`);
  return script;
}

const workDir = mkdtempSync(join(tmpdir(), 'interlock-demo-'));
const makeScratch = () => {
  mkdirSync(join(workDir, 'demo-scratch'), { recursive: true });
  writeFileSync(join(workDir, 'demo-scratch', 'note.txt'), 'scratch file of the Interlock demo\n');
};
makeScratch();

const server = await startPageServer();
/** The demo's store: --store PATH, or with --keep the file under the XDG state directory. */
function storePath(): string | undefined {
  if (opts.store) return opts.store;
  if (!opts.keep) return undefined;
  const state = process.env.XDG_STATE_HOME || join(homedir(), '.local', 'state');
  mkdirSync(join(state, 'interlock'), { recursive: true });
  return join(state, 'interlock', 'demo.db');
}

function openEngine(): { engine: Engine; storeNote: string } {
  const store = storePath();
  const config = { workDir, defaultPauseMode: opts.pause };
  if (!store) return { engine: new Engine(config), storeNote: '' };
  try {
    return { engine: new Engine({ ...config, store }), storeNote: ` Sessions kept in ${store}.` };
  } catch (err) {
    if ((err as { code?: string }).code !== 'ERR_STORE') throw err;
    return { engine: new Engine(config), storeNote: ` Sessions not kept: ${(err as Error).message}` };
  }
}
const { engine, storeNote } = openEngine();
const closers: (() => void)[] = [];

// Ink batches renders to maxFps (default 30): at 60 the stopped screen can
// show up to 17 ms after the engine stopped, not 33 (see tui/README.md).
const inkOptions = { maxFps: 60 };

let app;
if (opts.sessions) {
  const web = engine.serve();
  closers.push(() => web.close());
  const kept = new Set(engine.sessions().map((s) => s.id));
  for (const { id, prompt, script } of sessionsScripts()) {
    if (kept.has(id)) continue; // brought back by the store: shown as it was left
    const session = engine.createSession({ id, workDir, script });
    closers.push(() => session.close());
    session.prompt(prompt).catch(() => {}); // the views show how it goes
  }
  if (host === 'loop' && !kept.has('host')) {
    const session = engine.createSession({ id: 'host', workDir });
    closers.push(() => session.close());
    hostLoop(session, () => {}).catch(() => {});
  }
  const intro = [`Interlock sessions demo in ${workDir}: three agents at once.${storeNote}`, `Web UI: ${web.url}`];
  app = render(<SessionsApp engine={engine} intro={intro} settleMs={settleMs} />);
} else if (opts.tasks) {
  const loop = engine.createTaskLoop({ tasks: opts['quick-tasks'] ? quickTasks(Number(opts['quick-tasks'])) : demoTasks(), pauseMode: opts.pause });
  closers.push(() => loop.close(), () => loop.session.close());
  const intro = `Interlock task demo in ${workDir}. ${opts.pause ? 'Pause mode is on.' : 'Press p for pause mode.'}${storeNote}`;
  app = render(<TasksApp loop={loop} intro={intro} settleMs={settleMs} />, inkOptions);
} else {
  if (host === 'js-tool') registerDeployTool(engine);
  const model = opts.provider
    ? { provider: { type: opts.provider as 'openai', baseUrl: opts['base-url'] || undefined, model: opts.model ?? '', apiKeyEnv: opts['api-key-env'] || undefined } }
    : { script: host === 'js-tool' ? DEPLOY_SCRIPT : opts.script ? shortScript(opts.script) : chatScript(server.url) };
  const session = engine.createSession({ workDir, ...model });
  closers.push(() => session.close());
  const who = host === 'loop' ? "the demo's own agent loop" : opts.provider ? `model ${opts.model} at ${opts['base-url'] || 'api.openai.com'}` : 'a scripted agent';
  const intro = `Interlock demo: ${who} working in ${workDir}.${storeNote}`;
  const run = host === 'loop' ? (_text: string, say: (text: string) => void) => hostLoop(session, say) : undefined;
  app = render(<ChatApp session={session} intro={intro} beforePrompt={makeScratch} settleMs={settleMs} run={run} />, inkOptions);
}

// A closed terminal or a kill still cleans up (through the finally below).
// After a hangup the terminal is gone: writes to it fail (EIO), ignore them.
for (const signal of ['SIGHUP', 'SIGTERM'] as const) process.on(signal, () => app.unmount());
process.stdout.on('error', () => {});

try {
  await app.waitUntilExit();
} finally {
  for (const close of closers) {
    try {
      close();
    } catch {
      // already closed
    }
  }
  engine.close(); // interrupts runs, kills tools, closes browsers; returns at once
  await engine.closed; // everything has unwound
  await server.close();
  rmSync(workDir, { recursive: true, force: true });
}
