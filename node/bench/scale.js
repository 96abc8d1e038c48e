#!/usr/bin/env node
// Many parked runs from JS (`make bench`), each figure next to a plain-JS
// baseline doing the same work in the same process: a promise gate per run
// and an EventEmitter per session. Writes scale-node<major>.json.
//
//   js_parked_session_rss_bytes  10,000 sessions parked at a confirm pause:
//                                RSS growth / 10,000, after GC
//   js_park_all_10k_ms           create 10,000 sessions, start them, every
//                                'paused' listener has run
//   js_approve_all_10k_ms        confirm(true) on all -> all 10,000 prompt()
//                                promises settled
//   js_sessions_list_10k_ms      engine.sessions() with 10,000 parked (median
//                                of 5): one call, every snapshot
//   js_pause_notify_*_us         the tool raises the pause in Go (the paused
//                                event's mono_ns) -> the JS 'paused' listener
//                                runs (process.hrtime.bigint(), same clock)
//   js_approve_continue_*_us     confirm(true) in JS -> the tool has
//                                continued in Go (mono_ns of its
//                                tool_finished event: an upper bound)
//   js_*_cpu_ms                  CPU time of the whole process (every
//                                thread: JS, Go, libuv) for the same step:
//                                steadier than wall time on a shared machine
//   js_*_node_thread_cpu_ms      the part of it on Node's main thread (the
//                                JS, the addon and the Go code its calls run
//                                there): the serial share (Linux only)
//   js_parked_*_per_session      where the RSS of a parked session goes
//                                (after GC on both sides): the Go heap
//                                (objects, garbage included, and live at
//                                the last Go GC), goroutine stacks,
//                                goroutines, the JS heap
//   plain_*                      the same, plain JS
//   *_vs_plain_ratio             Interlock / plain JS
//
// Run with --expose-gc (the Makefile does). --quick: 1,000 sessions.

import { EventEmitter } from 'node:events';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setImmediate as turn } from 'node:timers/promises';

import { Engine } from '../index.js';
import { packageRoot } from '../load.js';
import { tempDir } from '../test/helpers.js';

if (typeof global.gc !== 'function') throw new Error('run with node --expose-gc');
const quick = process.argv.includes('--quick');
const N = quick ? 1_000 : 10_000;
const PAUSES = quick ? 200 : 2_000;
const results = {};
const put = (name, value, unit) => (results[name] = { value: Number(value.toPrecision(4)), unit });
const fmt = (x) => x.toFixed(x < 10 ? 2 : 1);
const now = () => process.hrtime.bigint();
const micros = (ns) => Number(ns) / 1000;
const cpuMs = (u) => (u.user + u.system) / 1000;
/** CPU ms of the calling (main) thread so far, from /proc; NaN where there is none. */
function threadCpuMs() {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return NaN;
  }
}

function summary(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { p50: q(0.5), p99: q(0.99), n: s.length };
}

async function settledRss() {
  for (let i = 0; i < 3; i++) {
    global.gc();
    await turn();
  }
  return process.memoryUsage.rss();
}

// ---- plain JS: a promise gate per run, an EventEmitter per session ---------

class PlainSession extends EventEmitter {
  static #seq = 0;
  id = `p${++PlainSession.#seq}`;
  version = 0;
  #gate = null;

  #emit(type, extra) {
    const ev = { session: this.id, version: ++this.version, type, status: 'running', step: 1, monoNs: now(), ...extra };
    this.emit(type, ev);
    this.emit('event', ev);
  }

  async prompt() {
    this.#emit('run_started');
    this.#emit('tool_started', { tool: 'ask' });
    const answer = await new Promise((resolve) => {
      this.#gate = resolve;
      this.#emit('paused', { status: 'paused', pause: { id: 'p1', kind: 'confirm', message: 'ok?' } });
    });
    this.#gate = null;
    this.#emit('pause_answered', { answer: answer ? 'approved' : 'denied' });
    this.#emit('tool_finished', { tool: 'ask' });
    this.#emit('text', { text: 'done' });
    this.#emit('run_finished', { status: 'idle' });
    return { status: 'idle' };
  }

  confirm(yes) {
    this.#gate?.(yes);
  }

  close() {
    this.removeAllListeners();
  }
}

// ---- the shared workload -----------------------------------------------------

/** Median ms of 5 calls of fn. */
function medianMs(fn) {
  const ms = [];
  for (let i = 0; i < 5; i++) {
    const t = now();
    fn();
    ms.push(Number(now() - t) / 1e6);
  }
  return summary(ms).p50;
}

/** What the process holds: RSS, the JS heap and, with an engine, the Go side. */
function memory(engine) {
  const m = process.memoryUsage();
  const st = engine?.stats();
  return { rss: m.rss, jsHeap: m.heapUsed, external: m.external, goHeap: st?.heapBytes, goLive: st?.liveHeapBytes, goStacks: st?.stackBytes, goroutines: st?.goroutines };
}

/** Parks n sessions made by create(); measures time and RSS; lists them (list); approves all. */
async function parkAndApprove(create, list, engine) {
  const rss0 = await settledRss();
  const mem0 = memory(engine);
  const c0 = process.cpuUsage();
  const th0 = threadCpuMs();
  const t0 = now();
  const sessions = new Array(N);
  const runs = new Array(N);
  let parked = 0;
  let allParked;
  const parkedAll = new Promise((resolve) => (allParked = resolve));
  const onPaused = () => {
    if (++parked === N) allParked();
  };
  for (let i = 0; i < N; i++) {
    const s = create();
    s.on('paused', onPaused);
    sessions[i] = s;
    runs[i] = s.prompt('go');
  }
  await parkedAll;
  const parkMs = Number(now() - t0) / 1e6;
  const parkCpu = cpuMs(process.cpuUsage(c0));
  const parkThread = threadCpuMs() - th0;
  const rss = await settledRss();
  const mem1 = memory(engine);
  const breakdown = Object.fromEntries(Object.keys(mem0).map((k) => [k, (mem1[k] - mem0[k]) / N]));
  const listMs = medianMs(() => {
    if (list(sessions).length !== N) throw new Error('the list lacks sessions');
  });
  const c1 = process.cpuUsage();
  const th1 = threadCpuMs();
  const t1 = now();
  for (const s of sessions) s.confirm(true);
  const res = await Promise.all(runs);
  const approveMs = Number(now() - t1) / 1e6;
  const approveCpu = cpuMs(process.cpuUsage(c1));
  const approveThread = threadCpuMs() - th1;
  if (!res.every((r) => r.status === 'idle')) throw new Error(`a run did not finish: ${JSON.stringify(res.find((r) => r.status !== 'idle'))}`);
  for (const s of sessions) s.close();
  return { parkMs, approveMs, parkCpu, approveCpu, parkThread, approveThread, listMs, bytes: (rss - rss0) / N, breakdown };
}

/** One session answers `pauses` confirm pauses in a row from its listener. */
async function latencies(session, pauses) {
  const notify = [];
  const cont = [];
  let confirmedAt = 0n;
  session.on('paused', (ev) => {
    const t = now();
    notify.push(micros(t - ev.monoNs));
    confirmedAt = now();
    session.confirm(true);
  });
  session.on('tool_finished', (ev) => {
    if (confirmedAt) cont.push(micros(ev.monoNs - confirmedAt));
    confirmedAt = 0n;
  });
  const res = await session.prompt('go');
  if (res.status !== 'idle') throw new Error(`pause loop ended ${JSON.stringify(res)}`);
  session.close();
  const warm = Math.min(50, pauses / 10);
  return { notify: summary(notify.slice(warm)), cont: summary(cont.slice(warm)) };
}

/** A plain session that raises `pauses` confirm pauses in a row. */
class PlainAsker extends EventEmitter {
  version = 0;
  #gate = null;
  constructor(pauses) {
    super();
    this.pauses = pauses;
  }
  #emit(type, extra) {
    const ev = { session: 'plain', version: ++this.version, type, monoNs: now(), ...extra };
    this.emit(type, ev);
  }
  async prompt() {
    for (let i = 0; i < this.pauses; i++) {
      this.#emit('tool_started');
      await new Promise((resolve) => {
        this.#gate = resolve;
        this.#emit('paused', { pause: { id: `p${i}`, kind: 'confirm' } });
      });
      this.#emit('tool_finished'); // the tool continues: the first thing it does
    }
    return { status: 'idle' };
  }
  confirm() {
    this.#gate?.();
  }
  close() {
    this.removeAllListeners();
  }
}

// ---- run ---------------------------------------------------------------------

const askConfirm = [{ toolCalls: [{ name: 'ask', args: { kind: 'confirm', message: 'ok?' } }] }, { text: 'done' }];

// Warm-up, so that neither side pays for JIT compilation in the figures.
{
  const engine = new Engine({ workDir: tempDir('interlock-scale-') });
  const runs = [];
  for (let i = 0; i < 200; i++) {
    const s = engine.createSession({ script: askConfirm });
    s.on('paused', () => s.confirm(true));
    runs.push(s.prompt('go').then(() => s.close()));
    const p = new PlainSession();
    p.on('paused', () => p.confirm(true));
    runs.push(p.prompt().then(() => p.close()));
  }
  await Promise.all(runs);
  engine.close();
}

// Listing: Interlock's one call for every snapshot; plain JS copies the
// same facts of each session into a new object.
const plainSnapshot = (s) => ({ id: s.id, status: 'paused', version: s.version, pause: { id: 'p1', kind: 'confirm', message: 'ok?' } });
const plain = await parkAndApprove(() => new PlainSession(), (sessions) => sessions.map(plainSnapshot));
const engine = new Engine({ workDir: tempDir('interlock-scale-') });
const il = await parkAndApprove(() => engine.createSession({ script: askConfirm }), () => engine.sessions(), engine);

const askMany = [
  ...Array.from({ length: PAUSES }, () => ({ toolCalls: [{ name: 'ask', args: { kind: 'confirm', message: 'ok?' } }] })),
  { text: 'done' },
];
const noLatency = process.argv.includes('--no-latency'); // for builds without mono_ns
const plainLat = noLatency ? null : await latencies(new PlainAsker(PAUSES), PAUSES);
const ilLat = noLatency ? null : await latencies(engine.createSession({ script: askMany }), PAUSES);
engine.close();

const pair = (name, value, base, unit) => {
  put(`js_${name}`, value, unit);
  put(`plain_${name}`, base, unit);
  put(`js_${name}_vs_plain_ratio`, value / base, 'x');
  console.log(`${name.padEnd(28)} interlock ${fmt(value).padStart(8)} ${unit}   plain JS ${fmt(base).padStart(8)} ${unit}   ratio ${fmt(value / base)}x`);
};
const k = quick ? '1k' : '10k';
console.log(`${N} sessions parked at a confirm pause; ${PAUSES} pauses in a row for latencies`);
pair('parked_session_rss_bytes', il.bytes, plain.bytes, 'bytes');
pair(`park_all_${k}_ms`, il.parkMs, plain.parkMs, 'ms');
pair(`approve_all_${k}_ms`, il.approveMs, plain.approveMs, 'ms');
pair(`park_all_${k}_cpu_ms`, il.parkCpu, plain.parkCpu, 'ms');
pair(`sessions_list_${k}_ms`, il.listMs, plain.listMs, 'ms');
pair(`approve_all_${k}_cpu_ms`, il.approveCpu, plain.approveCpu, 'ms');
if (!Number.isNaN(il.parkThread)) {
  pair(`park_all_${k}_node_thread_cpu_ms`, il.parkThread, plain.parkThread, 'ms');
  pair(`approve_all_${k}_node_thread_cpu_ms`, il.approveThread, plain.approveThread, 'ms');
}
{
  const b = il.breakdown;
  put('js_parked_go_heap_bytes_per_session', b.goHeap, 'bytes');
  put('js_parked_go_live_heap_bytes_per_session', b.goLive, 'bytes');
  put('js_parked_go_stack_bytes_per_session', b.goStacks, 'bytes');
  put('js_parked_goroutines_per_session', b.goroutines, 'goroutines');
  put('js_parked_js_heap_bytes_per_session', b.jsHeap, 'bytes');
  put('plain_parked_js_heap_bytes_per_session', plain.breakdown.jsHeap, 'bytes');
  console.log(`a parked session: RSS ${fmt(il.bytes)} B = Go heap ${fmt(b.goHeap)} (live at the last Go GC ${fmt(b.goLive)}) + Go stacks ${fmt(b.goStacks)} (${fmt(b.goroutines)} goroutines) + JS heap ${fmt(b.jsHeap)} + the rest; plain JS heap ${fmt(plain.breakdown.jsHeap)} B`);
}
if (!noLatency) {
  pair('pause_notify_p50_us', ilLat.notify.p50, plainLat.notify.p50, 'us');
  pair('pause_notify_p99_us', ilLat.notify.p99, plainLat.notify.p99, 'us');
  pair('approve_continue_p50_us', ilLat.cont.p50, plainLat.cont.p50, 'us');
  pair('approve_continue_p99_us', ilLat.cont.p99, plainLat.cont.p99, 'us');
}

const outDir = process.env.INTERLOCK_METRICS_DIR || path.join(packageRoot, 'bench', 'out');
mkdirSync(outDir, { recursive: true });
const outFile = path.join(outDir, `scale-node${process.versions.node.split('.')[0]}.json`);
writeFileSync(outFile, JSON.stringify(results, null, 2) + '\n');
console.log(`wrote ${path.relative(process.cwd(), outFile)} (Node ${process.version})`);
