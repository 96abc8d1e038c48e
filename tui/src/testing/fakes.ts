// In-memory fakes of the addon's Session and TaskLoop (node/index.d.ts) for
// unit tests: they record every call, and tests drive them to emit events
// and bump the version like the engine does.

import type {
  Answer,
  ControlSignal,
  Eligibility,
  EngineEvent,
  EventType,
  HistoryMessage,
  HostRun,
  PauseInfo,
  Reason,
  RememberScope,
  RunResult,
  RunState,
  Session,
  SessionEventMap,
  SessionSnapshot,
  Status,
  TaskEventType,
  TaskLoop,
  TaskLoopEvent,
  TaskLoopEventMap,
  Decision,
  TaskLoopState,
} from '../../../node/index.js';
import { REASON_LABELS } from '../../../node/reasons.js';

export type Call = [method: string, ...args: unknown[]];

const LABEL: Readonly<Record<Reason, string>> = REASON_LABELS;

function codedError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** Event listeners by type, 'event' getting everything. */
class Listeners<T extends { type: string }> {
  private byType = new Map<string, Set<(ev: T) => void>>();
  add(type: string, fn: (ev: T) => void) {
    if (!this.byType.has(type)) this.byType.set(type, new Set());
    this.byType.get(type)!.add(fn);
  }
  remove(type: string, fn: (ev: T) => void) {
    this.byType.get(type)?.delete(fn);
  }
  count(type = 'event'): number {
    return this.byType.get(type)?.size ?? 0;
  }
  emit(ev: T) {
    for (const fn of [...(this.byType.get(ev.type) ?? [])]) fn(ev);
    for (const fn of [...(this.byType.get('event') ?? [])]) fn(ev);
  }
}

/** FakeSession is a Session whose state tests set; answers are checked by pause id like the engine does. */
export class FakeSession implements Session {
  readonly id: string;
  readonly calls: Call[] = [];
  /** How many times snapshot() was read. */
  snapshotReads = 0;
  /** Set false to make on() throw, as if events were unavailable. */
  eventsAvailable = true;
  /** Set true to queue events until flushEvents(), as if delivery lagged the engine. */
  holdEvents = false;
  private held: EngineEvent[] = [];
  readonly listeners = new Listeners<EngineEvent>();
  private snap: SessionSnapshot;
  private isClosed = false;
  private resolveClosed: () => void = () => {};
  readonly closed: Promise<void> = new Promise((resolve) => { this.resolveClosed = resolve; });

  constructor(id = 'fake-1') {
    this.id = id;
    this.snap = {
      id, status: 'idle', version: 1, pause: null, pauses: [], interruption: null,
      step: 0, tokens: { input: 0, output: 0 }, model: 'scripted', pauseRequested: false, runState: 'idle', eligibility: { eligible: false, reason: 'Nothing to continue' },
    };
  }

  get status(): Status { return this.snap.status; }
  get runState(): RunState {
    return this.isClosed ? 'terminal' : this.snap.runState;
  }
  get eligibility(): Eligibility {
    return this.snap.eligibility;
  }
  get version(): number {
    if (this.isClosed) throw codedError('ERR_UNKNOWN_SESSION', `unknown session ${this.id}`);
    return this.snap.version;
  }
  get pauseState(): PauseInfo | null { return this.snap.pause; }

  snapshot(): SessionSnapshot {
    if (this.isClosed) throw codedError('ERR_UNKNOWN_SESSION', `unknown session ${this.id}`);
    this.snapshotReads++;
    return structuredClone(this.snap);
  }
  history(): HistoryMessage[] { return []; }
  prompt(text: string): Promise<RunResult> {
    this.calls.push(['prompt', text]);
    this.set({ status: 'running', interruption: null }, 'run_started');
    return Promise.resolve({ outcome: 'finished', status: 'idle', text: '', usage: { input: 0, output: 0 }, run: 1 });
  }
  continue(): Promise<RunResult> {
    this.calls.push(['continue']);
    return Promise.resolve({ outcome: 'finished', status: this.snap.status, text: '', usage: { input: 0, output: 0 }, run: 1 });
  }
  begin(): HostRun {
    throw new Error('FakeSession.begin(): host-driven runs need a real engine (see HostWork.test.tsx)');
  }
  resume(pauseId?: string): void {
    this.calls.push(['resume', pauseId]);
    this.answer(pauseId, 'continue', 'resumed');
  }
  confirm(approved: boolean, options: { pauseId?: string; remember?: RememberScope; reason?: string } = {}): void {
    const { reason, pauseId } = options;
    this.calls.push(['confirm', approved, reason, pauseId]);
    this.answer(pauseId, 'confirm', approved ? 'approved' : 'denied');
  }
  interrupt(reason: Reason = 'user_stop'): void {
    this.calls.push(['interrupt', reason]);
    this.set({
      status: 'interrupted', pause: null, pauses: [],
      interruption: { reason, label: LABEL[reason], at: new Date(0).toISOString(), resumable: true },
    }, 'interrupted', { reason });
  }
  signal(sig: ControlSignal): void { this.calls.push(['signal', sig]); }
  on<K extends keyof SessionEventMap>(type: K, fn: (ev: SessionEventMap[K]) => void): this {
    if (!this.eventsAvailable) throw codedError('ERR_UNSUPPORTED', 'events unavailable');
    this.listeners.add(type, fn as (ev: EngineEvent) => void);
    return this;
  }
  off<K extends keyof SessionEventMap>(type: K, fn: (ev: SessionEventMap[K]) => void): this {
    this.listeners.remove(type, fn as (ev: EngineEvent) => void);
    return this;
  }
  once<K extends keyof SessionEventMap>(type: K, fn: (ev: SessionEventMap[K]) => void): this {
    const once = (ev: SessionEventMap[K]) => {
      this.off(type, once);
      fn(ev);
    };
    return this.on(type, once);
  }
  removeListener<K extends keyof SessionEventMap>(type: K, fn: (ev: SessionEventMap[K]) => void): this {
    return this.off(type, fn);
  }
  /** The event stream is not faked: the TUI reads events with on(). */
  events(): AsyncIterableIterator<EngineEvent> {
    throw new Error('FakeSession.events(): async iteration needs a real engine');
  }
  check(): Decision {
    throw new Error('FakeSession.check(): the bash gate needs a real engine');
  }
  close(): Promise<void> {
    if (!this.isClosed) {
      this.calls.push(['close']);
      this.set({ status: 'closed' }, 'closed');
      this.isClosed = true;
      this.resolveClosed();
    }
    return this.closed;
  }

  // ---- test drivers ----

  /** set changes the state, bumps the version and emits one event (with events off, it only bumps). */
  set(patch: Partial<SessionSnapshot>, type: EventType = 'run_started', extra: Record<string, unknown> = {}): void {
    this.snap = { ...this.snap, ...patch, version: this.snap.version + 1 };
    const ev = {
      session: this.id, version: this.snap.version, type, status: this.snap.status,
      pause: this.snap.pause ?? undefined, step: this.snap.step, at: new Date(0).toISOString(), ...extra,
    } as EngineEvent;
    if (this.holdEvents) this.held.push(ev);
    else this.listeners.emit(ev);
  }

  /** flushEvents delivers the events queued while holdEvents was set. */
  flushEvents(): void {
    const held = this.held;
    this.held = [];
    for (const ev of held) this.listeners.emit(ev);
  }

  /** pauseWith adds a pending pause (the oldest stays the current one) and emits 'paused'. */
  pauseWith(pause: Partial<PauseInfo> & Pick<PauseInfo, 'id' | 'kind'>): PauseInfo {
    const full: PauseInfo = { source: 'tool', message: '', step: this.snap.step, at: new Date(0).toISOString(), version: this.snap.version + 1, ...pause };
    const pauses = [...this.snap.pauses, full];
    this.set({ status: 'paused', pauses, pause: pauses[0] }, 'paused');
    return full;
  }

  /** reemit emits an event at the current version: a duplicate that must change nothing. */
  reemit(type: EventType = 'text'): void {
    this.listeners.emit({
      session: this.id, version: this.snap.version, type, status: this.snap.status,
      step: this.snap.step, at: new Date(0).toISOString(),
    } as EngineEvent);
  }

  private answer(pauseId: string | undefined, kind: PauseInfo['kind'], answer: Answer) {
    const pause = this.snap.pauses.find((p) => p.id === (pauseId ?? this.snap.pause?.id));
    if (!pause) throw codedError('ERR_NOT_PAUSED', `no pending pause ${pauseId ?? ''}`);
    if (pause.kind !== kind) throw codedError('ERR_INVALID_ARGUMENT', `pause ${pause.id} is a ${pause.kind} pause`);
    const pauses = this.snap.pauses.filter((p) => p !== pause);
    this.set({ pauses, pause: pauses[0] ?? null, status: pauses.length ? 'paused' : 'running' }, 'pause_answered', { answer });
  }
}

/** FakeTaskLoop is a TaskLoop whose state tests set. */
export class FakeTaskLoop implements TaskLoop {
  readonly id = 'loop-1';
  readonly session: Session;
  readonly calls: Call[] = [];
  readonly listeners = new Listeners<TaskLoopEvent>();
  private st: TaskLoopState;
  readonly closed: Promise<void> = Promise.resolve();

  constructor(titles: string[], opts: { pauseMode?: boolean; session?: Session } = {}) {
    this.session = opts.session ?? new FakeSession();
    this.st = {
      id: this.id, current: -1, pauseMode: opts.pauseMode ?? false, paused: false,
      completed: 0, failed: 0, done: false, interrupted: false, version: 1,
      tasks: titles.map((title, index) => ({ index, title, status: 'pending' })),
    };
  }

  state(): TaskLoopState { return structuredClone(this.st); }
  run(): Promise<TaskLoopState> { this.calls.push(['run']); return Promise.resolve(this.state()); }
  setPauseMode(on: boolean): void {
    this.calls.push(['setPauseMode', on]);
    this.set({ pauseMode: on }, 'pause_mode_changed');
  }
  isPauseMode(): boolean { return this.st.pauseMode; }
  /** Like the engine: an interrupted loop is resumed (a promise), else a no-op. */
  continue(): Promise<TaskLoopState> | undefined {
    this.calls.push(['continue']);
    if (!this.st.interrupted) return undefined;
    this.set({ interrupted: false }, 'resumed');
    return Promise.resolve(this.state());
  }
  /** Like the engine: continuous mode, and a waiting loop goes on. */
  continueAll(): void {
    this.calls.push(['continueAll']);
    if (this.st.pauseMode) this.set({ pauseMode: false, paused: false }, 'pause_mode_changed');
  }
  on<K extends keyof TaskLoopEventMap>(type: K, fn: (ev: TaskLoopEventMap[K]) => void): this {
    this.listeners.add(type, fn as (ev: TaskLoopEvent) => void);
    return this;
  }
  off<K extends keyof TaskLoopEventMap>(type: K, fn: (ev: TaskLoopEventMap[K]) => void): this {
    this.listeners.remove(type, fn as (ev: TaskLoopEvent) => void);
    return this;
  }
  once<K extends keyof TaskLoopEventMap>(type: K, fn: (ev: TaskLoopEventMap[K]) => void): this {
    const once = (ev: TaskLoopEventMap[K]) => {
      this.off(type, once);
      fn(ev);
    };
    return this.on(type, once);
  }
  removeListener<K extends keyof TaskLoopEventMap>(type: K, fn: (ev: TaskLoopEventMap[K]) => void): this {
    return this.off(type, fn);
  }
  events(): AsyncIterableIterator<TaskLoopEvent> {
    throw new Error('FakeTaskLoop.events(): async iteration needs a real engine');
  }
  close(): Promise<void> {
    this.calls.push(['close']);
    return this.closed;
  }

  // ---- test drivers ----

  /** set changes the state, bumps the version and emits one event. */
  set(patch: Partial<TaskLoopState>, type: TaskEventType): void {
    this.st = { ...this.st, ...patch, version: this.st.version + 1 };
    this.listeners.emit({ loop: this.id, version: this.st.version, type, at: new Date(0).toISOString() });
  }

  /** begin marks task i running. */
  begin(i: number): void {
    this.st.tasks = this.st.tasks.map((t) => (t.index === i ? { ...t, status: 'running' } : t));
    this.set({ current: i }, 'task_begin');
  }

  /** end finishes task i (failed when error is given) and, in pause mode, pauses unless it was the last. */
  end(i: number, error?: string): void {
    this.st.tasks = this.st.tasks.map((t) =>
      t.index === i ? { ...t, status: error ? 'failed' : 'completed', ...(error ? { error } : {}) } : t,
    );
    const last = i === this.st.tasks.length - 1;
    this.set({
      current: i,
      completed: this.st.completed + (error ? 0 : 1),
      failed: this.st.failed + (error ? 1 : 0),
      paused: this.st.pauseMode && !last,
      done: last,
    }, error ? 'failed' : 'task_end');
  }
}
