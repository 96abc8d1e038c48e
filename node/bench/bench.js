#!/usr/bin/env node
// JS-side benchmarks of the addon (`make bench`). Writes js-node<major>.json as
// {"<metric>": {"value": N, "unit": "..."}} and prints medians and p99s.
//
//   js_status_get_ns         one session.status read (addon -> Go -> cached name)
//   js_plain_getter_ns       a plain JS class getter, same run, for scale
//   js_status_vs_plain_ratio the two above
//   js_event_*_us            Go-side change -> JS listener: signal('pause') /
//                            signal('resume') on an idle session, from the call
//                            to the listener
//   js_pause_roundtrip_*_us  ask tool raises a confirm pause -> JS 'paused'
//                            listener -> confirm(true) -> the tool has returned
//                            (Go timestamps: pause.at -> tool_finished.at)
//   js_pause_roundtrip_store_*_us  the same with the engine's file store on
//                            (every pause and answer written before it is reported)
//   js_tool_call_overhead_*_us  a tool written in JS that returns at once:
//                            Go hands the call to JS and gets the result back
//                            (Go timestamps: tool_started -> tool_finished)
//   js_interrupt_*_ms        interrupt() while bash runs
//                            `sh -c 'sleep 30 & sleep 30 & echo ...; wait'`
//                            -> the 'interrupted' event in JS; the tool's
//                            process group must be gone by then
//   js_close_blocking_*_ms   how long session.close() holds the JS thread while
//                            bash runs a command that ignores SIGTERM (the kill
//                            needs the grace; close() must not wait for it)
//
// Results go to $INTERLOCK_METRICS_DIR/js-node<major>.json (default bench/out):
// `make bench` runs it on each Node version users run.

import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

import { Engine } from '../index.js';
import { packageRoot } from '../load.js';
import { tempDir } from '../test/helpers.js';

const quick = process.argv.includes('--quick');
const results = {};
const put = (name, value, unit) => (results[name] = { value: Number(value.toPrecision(4)), unit });

function quantile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}
function summary(samples) {
  const s = [...samples].sort((a, b) => a - b);
  return { p50: quantile(s, 0.5), p99: quantile(s, 0.99), n: s.length };
}
const fmt = (x) => x.toFixed(x < 10 ? 2 : 1);

const engine = new Engine({ workDir: tempDir('interlock-bench-'), bash: { policy: { rule: [{ name: 'sh', decision: 'allow', reason: 'the bench runs shell snippets', program: 'sh' }] } } });
engine.ref(); // events of idle sessions are awaited below

// ---- status getter vs a plain getter ----------------------------------------

class Plain {
  #status = 'idle';
  get status() {
    return this.#status;
  }
}

function perRead(obj, reads) {
  let idle = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < reads; i++) if (obj.status === 'idle') idle++;
  const ns = Number(process.hrtime.bigint() - t0) / reads;
  if (idle !== reads) throw new Error('status changed during the benchmark');
  return ns;
}

{
  const s = engine.createSession();
  const plain = new Plain();
  const reads = quick ? 200_000 : 2_000_000;
  perRead(s, reads / 10); // warm up (JIT)
  perRead(plain, reads);
  const statusRuns = [];
  const plainRuns = [];
  for (let i = 0; i < 7; i++) {
    statusRuns.push(perRead(s, reads));
    plainRuns.push(perRead(plain, reads * 10));
  }
  const st = summary(statusRuns);
  const pl = summary(plainRuns);
  put('js_status_get_ns', st.p50, 'ns');
  put('js_plain_getter_ns', pl.p50, 'ns');
  put('js_status_vs_plain_ratio', st.p50 / pl.p50, 'x');
  console.log(`session.status   median ${fmt(st.p50)} ns/read (7 runs x ${reads}; worst run ${fmt(Math.max(...statusRuns))} ns)`);
  console.log(`plain JS getter  median ${fmt(pl.p50)} ns/read  -> ratio ${fmt(st.p50 / pl.p50)}x`);
  s.close();
}

// ---- Go change -> JS listener -------------------------------------------------

{
  const s = engine.createSession();
  const samples = [];
  const rounds = quick ? 300 : 3000;
  for (let i = 0; i < rounds; i++) {
    for (const [sig, type] of [['pause', 'pause_requested'], ['resume', 'pause_answered']]) {
      const got = new Promise((resolve) => {
        const on = () => {
          resolve(performance.now());
          s.off(type, on);
        };
        s.on(type, on);
      });
      const t0 = performance.now();
      s.signal(sig);
      samples.push(((await got) - t0) * 1000);
    }
  }
  const r = summary(samples.slice(100));
  put('js_event_p50_us', r.p50, 'us');
  put('js_event_p99_us', r.p99, 'us');
  console.log(`event Go->JS     p50 ${fmt(r.p50)} us  p99 ${fmt(r.p99)} us  (${r.n} events)`);
  s.close();
}

// ---- confirm pause round trip -----------------------------------------------

/** Nanoseconds since the epoch from an RFC 3339 time with a fraction. */
function epochNs(rfc3339) {
  const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/.exec(rfc3339);
  const frac = (m[2] ?? '').padEnd(9, '0').slice(0, 9);
  return BigInt(Date.parse(m[1] + m[3])) * 1_000_000n + BigInt(frac);
}

for (const store of [undefined, path.join(tempDir('interlock-bench-store-'), 'bench.db')]) {
  const eng = store ? new Engine({ store }) : engine;
  const suffix = store ? '_store' : '';
  const pauses = quick ? 100 : 1000;
  const ask = { toolCalls: [{ name: 'ask', args: { kind: 'confirm', message: 'ok?' } }] };
  const s = eng.createSession({ script: [...Array.from({ length: pauses }, () => ask), { text: 'done' }] });
  const raisedAt = new Map(); // call id -> pause.at
  const samples = [];
  s.on('paused', (ev) => {
    raisedAt.set(ev.pause.step, epochNs(ev.pause.at));
    s.confirm(true);
  });
  s.on('tool_finished', (ev) => {
    const t0 = raisedAt.get(ev.step);
    if (t0 !== undefined) samples.push(Number(epochNs(ev.at) - t0) / 1000);
  });
  const res = await s.prompt('ask me');
  if (res.status !== 'idle') throw new Error(`pause loop ended ${JSON.stringify(res)}`);
  const r = summary(samples.slice(10));
  put(`js_pause_roundtrip${suffix}_p50_us`, r.p50, 'us');
  put(`js_pause_roundtrip${suffix}_p99_us`, r.p99, 'us');
  console.log(`pause roundtrip${store ? ' (store)' : ''}  p50 ${fmt(r.p50)} us  p99 ${fmt(r.p99)} us  (${r.n} pauses)`);
  s.close();
  if (store) {
    eng.close();
    await eng.closed;
  }
}

// ---- a JS tool that returns at once: Go -> JS -> Go --------------------------

{
  const calls = quick ? 200 : 2000;
  engine.registerTool('js_noop', { run: () => 'ok' });
  const call = { toolCalls: [{ name: 'js_noop', args: {} }] };
  const s = engine.createSession({ script: [...Array.from({ length: calls }, () => call), { text: 'done' }] });
  const startedAt = new Map(); // step -> monoNs
  const samples = [];
  s.on('tool_started', (ev) => startedAt.set(ev.step, ev.monoNs));
  s.on('tool_finished', (ev) => {
    const t0 = startedAt.get(ev.step);
    if (t0 !== undefined) samples.push(Number(ev.monoNs - t0) / 1000);
    if (ev.text === 'error') throw new Error(`js_noop failed at step ${ev.step}`);
  });
  const res = await s.prompt('call the JS tool');
  if (res.status !== 'idle') throw new Error(`JS tool loop ended ${JSON.stringify(res)}`);
  const r = summary(samples.slice(20));
  put('js_tool_call_overhead_p50_us', r.p50, 'us');
  put('js_tool_call_overhead_p99_us', r.p99, 'us');
  console.log(`JS tool call     p50 ${fmt(r.p50)} us  p99 ${fmt(r.p99)} us  (${r.n} calls, Go -> JS -> Go)`);
  s.close();
}

// ---- interrupt while bash runs ----------------------------------------------

/** The process group of pid, from /proc/<pid>/stat (field 5). */
function processGroup(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
}

/**
 * The live (not zombie) members of process group pgid. A killed orphan may
 * stay a zombie for ever where PID 1 does not reap (as in some containers):
 * it is dead, so it does not count — the bash tool judges the same way.
 */
function liveGroupMembers(pgid) {
  const live = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // The supervisor (interlock-run) leads the group and exits right after
    // it reported the command's tree gone: it is not part of the command.
    const supervisor = stat.includes('(interlock-run)');
    if (Number(group) === pgid && state !== 'Z' && state !== 'X' && !supervisor) live.push(Number(name));
  }
  return live;
}

{
  const rounds = quick ? 5 : 30;
  // Both sleeps are forked before the shell reports its pid: a child and
  // grandchildren of the tool's process group are running at "ready".
  // The shell is found on the host by a marker in its argv (under the
  // supervisor's PID namespace its $$ is not its host pid).
  const marker = `interlock-interrupt-bench-${process.pid}`;
  const cmd = `sh -c 'sleep 30 & sleep 30 & echo "ready $$"; wait' ${marker}`;
  const hostPidOf = (mark) => Number(readdirSync('/proc').find((n) => {
    if (!/^\d+$/.test(n)) return false;
    try {
      return readFileSync(`/proc/${n}/cmdline`, 'utf8').includes(mark);
    } catch {
      return false;
    }
  }));
  const s = engine.createSession({ script: [{ toolCalls: [{ name: 'bash', args: { command: cmd } }] }] });
  s.on('paused', () => s.confirm(true)); // in case the rules still ask
  const samples = [];
  for (let i = 0; i < rounds; i++) {
    const ready = new Promise((resolve) => s.on('tool_progress', function on(ev) {
      const m = /ready (\d+)/.exec(ev.text ?? '');
      if (!m) return;
      s.off('tool_progress', on);
      resolve(processGroup(hostPidOf(marker)));
    }));
    const run = s.prompt('sleep');
    const pgid = await ready;
    if (liveGroupMembers(pgid).length < 3) throw new Error(`process group ${pgid} lacks the shell and its two sleeps before the interrupt`);
    const interrupted = new Promise((resolve) => s.on('interrupted', function on() {
      s.off('interrupted', on);
      resolve(performance.now());
    }));
    const t0 = performance.now();
    s.interrupt();
    samples.push((await interrupted) - t0);
    const survivors = liveGroupMembers(pgid); // read after the clock stopped
    if (survivors.length) throw new Error(`process group ${pgid}: ${survivors.join(', ')} still alive at the 'interrupted' event`);
    const res = await run;
    if (res.status !== 'interrupted') throw new Error(`bash run ended ${JSON.stringify(res)}`);
  }
  const r = summary(samples);
  put('js_interrupt_p50_ms', r.p50, 'ms');
  put('js_interrupt_p99_ms', r.p99, 'ms');
  console.log(`interrupt bash   p50 ${fmt(r.p50)} ms  p99 ${fmt(r.p99)} ms  (${r.n} runs, process group gone each time)`);
  s.close();
}

// ---- close() while a command ignores SIGTERM ---------------------------------

{
  const rounds = quick ? 3 : 15;
  const closing = new Engine({ workDir: tempDir('interlock-bench-'), bash: { graceMs: 200, policy: { rule: [{ name: 'sh', decision: 'allow', reason: 'the bench runs shell snippets', program: 'sh' }] } } });
  const samples = [];
  // The shell is found by a marker in its argv: under the supervisor's PID
  // namespace its $$ is not its pid on the host.
  const liveMarked = (marker) => readdirSync('/proc').filter((n) => {
    if (!/^\d+$/.test(n)) return false;
    try {
      if (!readFileSync(`/proc/${n}/cmdline`, 'utf8').includes(marker)) return false;
      const stat = readFileSync(`/proc/${n}/stat`, 'utf8');
      return !['Z', 'X'].includes(stat.slice(stat.lastIndexOf(')') + 2)[0]);
    } catch {
      return false;
    }
  });
  for (let i = 0; i < rounds; i++) {
    const marker = `interlock-close-bench-${process.pid}-${i}`;
    const cmd = `sh -c 'trap "" TERM; echo ready; while :; do sleep 30; done' ${marker}`;
    const s = closing.createSession({ script: [{ toolCalls: [{ name: 'bash', args: { command: cmd } }] }] });
    s.on('paused', () => s.confirm(true));
    const ready = new Promise((resolve) => s.on('tool_progress', function on(ev) {
      if (!/ready/.test(ev.text ?? '')) return;
      s.off('tool_progress', on);
      resolve();
    }));
    const run = s.prompt('spin');
    await ready;
    const t0 = performance.now();
    s.close();
    samples.push(performance.now() - t0);
    if (liveMarked(marker).length === 0) throw new Error('the command died before close() returned: the measurement proves nothing');
    await s.closed;
    const survivors = liveMarked(marker);
    if (survivors.length) throw new Error(`${marker}: ${survivors.join(', ')} alive after 'closed' settled`);
    await run;
  }
  closing.close();
  await closing.closed;
  const r = summary(samples);
  put('js_close_blocking_p50_ms', r.p50, 'ms');
  put('js_close_blocking_ms', r.p99, 'ms');
  console.log(`close() blocking p50 ${fmt(r.p50)} ms  max ${fmt(r.p99)} ms  (${r.n} closes, SIGTERM ignored; the command gone at 'closed')`);
}

engine.close();

const outDir = process.env.INTERLOCK_METRICS_DIR || path.join(packageRoot, 'bench', 'out');
mkdirSync(outDir, { recursive: true });
const outFile = path.join(outDir, `js-node${process.versions.node.split('.')[0]}.json`);
writeFileSync(outFile, JSON.stringify(results, null, 2) + '\n');
console.log(`wrote ${path.relative(process.cwd(), outFile)} (Node ${process.version})`);
