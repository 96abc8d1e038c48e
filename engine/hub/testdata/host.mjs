// A fleet host for the hub's tests: a Node process running the engine
// through the addon, joined to the hub. Usage:
//   node host.mjs <hub url> <host name> <store file> <sessions> [serve]
// It creates <sessions> sessions (unless its store brought some back), each
// asking to confirm "deploy <host> <session>", prints one JSON line per run
// end, and closes its engine when stdin ends. Each line on stdin is a
// command, answered by a line:
//   {"answer": "s0"}              answer s0's pause here, as its user would -> {"answered": "s0"}
//   {"ask": "id"}                 a new session asking to confirm -> {"asking": "id"} once paused
//   {"bash": n, "marker": "m"}    n sessions b0..b<n-1> running `sleep m` -> {"bash": n}
// With "serve" it serves the fleet view of its hub (engine.serve({fleet:
// true})) and prints its URL: {"fleet": url}.
import { createInterface } from 'node:readline';

import { Engine } from '../../../node/index.js';

const [url, host, store, count, serve] = process.argv.slice(2);
const engine = new Engine({ store, hub: { url, host, heartbeatMs: 300 } });
const say = (o) => process.stdout.write(JSON.stringify(o) + '\n');

const asking = (id) => {
  const s = engine.createSession({
    id,
    script: [
      { toolCalls: [{ name: 'ask', args: { kind: 'confirm', message: 'Deploy?', details: `deploy ${host} ${id}` } }] },
      { text: 'Done.' },
    ],
  });
  s.prompt('deploy').then((r) => {
    if (r.outcome !== 'finished') return; // cut by the engine's close
    say({ done: id, outcome: r.outcome, tool: s.history().find((m) => m.role === 'tool')?.text });
  });
  return s;
};

if (engine.sessions().length === 0) {
  for (let i = 0; i < Number(count); i++) asking(`s${i}`);
}
say({ ready: host, sessions: engine.sessions().map((s) => `${s.id}:${s.status}`) });
if (serve === 'serve') say({ fleet: engine.serve({ fleet: true }).url });

const commands = {
  answer({ answer: id }) {
    const s = engine.session(id);
    s.confirm(true, { pauseId: s.snapshot().pause.id });
    say({ answered: id });
  },
  ask({ ask: id }) {
    const s = asking(id);
    s.once('paused', () => say({ asking: id }));
  },
  bash({ bash: n, marker }) {
    for (let i = 0; i < n; i++) {
      const s = engine.createSession({ id: `b${i}`, script: [{ toolCalls: [{ name: 'bash', args: { command: `sleep ${marker}` } }] }, { text: 'Done.' }] });
      s.prompt('sleep').catch(() => {});
    }
    say({ bash: n });
  },
};
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const cmd = JSON.parse(line);
  commands[Object.keys(cmd)[0]](cmd);
});
lines.on('close', async () => {
  await engine.close();
  process.exit(0);
});
