// A fleet host for the hub's tests: a Node process running the engine
// through the addon, joined to the hub. Usage:
//   node host.mjs <hub url> <host name> <store file> <sessions>
// It creates <sessions> sessions (unless its store brought some back), each
// asking to confirm "deploy <host> <session>", prints one JSON line per run
// end, and closes its engine when stdin ends.
import { Engine } from '../../../node/index.js';

const [url, host, store, count] = process.argv.slice(2);
const engine = new Engine({ store, hub: { url, host, heartbeatMs: 300 } });
const say = (o) => process.stdout.write(JSON.stringify(o) + '\n');

if (engine.sessions().length === 0) {
  for (let i = 0; i < Number(count); i++) {
    const id = `s${i}`;
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
  }
}
say({ ready: host, sessions: engine.sessions().map((s) => `${s.id}:${s.status}`) });

process.stdin.resume();
process.stdin.on('end', async () => {
  await engine.close();
  process.exit(0);
});
