// Interlock: a Go engine for long-running agent sessions, loaded as a native addon.
// This file is the typed public API of `interlock` (node/index.js).

export type Status = 'idle' | 'running' | 'interrupted' | 'paused' | 'stopping' | 'closed';
export type Reason = 'user_stop' | 'emergency_stop' | 'server_restart' | 'system_stop' | 'timeout';
export type PauseKind = 'continue' | 'confirm';
export type PauseSource = 'tool' | 'signal' | 'task';
export type Answer = 'resumed' | 'approved' | 'denied' | 'interrupted' | 'timed_out';
export type ControlSignal = 'pause' | 'resume' | 'cancel';

/** C enum values of Status (session_get_status). */
export declare const StatusCode: Readonly<Record<Status, number>>;

export interface PauseInfo {
  id: string;
  kind: PauseKind;
  source: PauseSource;
  tool?: string;        // "Bash", "WebSearch"
  message: string;      // "Potentially dangerous command"
  details?: string;     // the command
  reasons?: string[];
  step: number;
  task?: number;
  at: string;           // RFC 3339
}

export interface Interruption {
  reason: Reason;
  label: string;        // "Stopped by you"
  at: string;
  resumable: boolean;
  side_effect_cut?: boolean;
}

export type EventType =
  | 'run_started' | 'text' | 'tool_started' | 'tool_progress' | 'tool_finished'
  | 'paused' | 'pause_answered' | 'pause_requested' | 'stopping'
  | 'interrupted' | 'run_finished' | 'run_failed' | 'closed';

/** One engine event. Every change bumps `version`; all observers see the same order. */
export interface EngineEvent {
  session: string;
  version: number;
  type: EventType;
  status: Status;
  pause?: PauseInfo;     // the current (oldest pending) pause after this change
  reason?: Reason;
  step: number;
  at: string;
  tool?: string;
  call_id?: string;
  text?: string;         // text delta, progress chunk, or error message
  answer?: Answer;
}

export interface Tokens { input: number; output: number; }

export interface SessionSnapshot {
  id: string;
  status: Status;
  version: number;
  pause: PauseInfo | null;      // the current pause
  pauses: PauseInfo[];          // all pending, oldest first
  interruption: Interruption | null;
  step: number;
  tokens: Tokens;
  model: string;
  pause_requested: boolean;
}

export interface HistoryMessage {
  role: 'user' | 'assistant' | 'tool' | 'marker';
  text?: string;
  tool_calls?: { id: string; name: string; args?: unknown }[];
  tool_call_id?: string;
  is_error?: boolean;
  interrupted?: boolean;
}

export interface RunResult {
  status: Status;                  // 'idle' after a finished run, 'interrupted' after a stop
  interruption?: Interruption;
  error?: string;
}

export interface Decision {
  decision: 'allow' | 'confirm' | 'deny';
  reasons: string[];
}

export interface SessionOptions {
  id?: string;
  dir?: string;                    // working directory for tools
  env?: string[];                  // extra KEY=value for processes
  script?: ScriptTurn[] | string;  // scripted provider turns (array, or a JSON string)
}

export interface ScriptTurn {
  text?: string;
  tool_calls?: { name: string; args?: unknown }[];
  usage?: Tokens;
  chunk_delay_ms?: number;
}

export interface EngineConfig {
  work_dir?: string;
  default_pause_mode?: boolean;
  stream_idle_timeout_ms?: number;
  bash?: { timeout_ms?: number; grace_ms?: number; rules?: { prefix: string; action: 'allow' | 'confirm' | 'deny' }[] };
  web?: { search_url?: string; auto_devtools?: boolean };
}

export declare class InterlockError extends Error {
  code: string;        // 'ERR_UNKNOWN_SESSION', 'ERR_NOT_PAUSED', ...
}

export declare class Session {
  readonly id: string;
  /** Sync getters: a direct call into Go, no allocation of snapshots. */
  readonly status: Status;
  readonly statusCode: number;
  readonly version: number;
  readonly pauseState: PauseInfo | null;
  snapshot(): SessionSnapshot;
  history(): HistoryMessage[];
  prompt(text: string): Promise<RunResult>;
  /** Continue an interrupted run (resumption). */
  continue(): Promise<RunResult>;
  resume(pauseId?: string): void;
  confirm(approved: boolean, reason?: string, pauseId?: string): void;
  interrupt(reason?: Reason): void;
  signal(sig: ControlSignal): void;
  on(type: EventType | 'event', fn: (ev: EngineEvent) => void): this;
  off(type: EventType | 'event', fn: (ev: EngineEvent) => void): this;
  close(): void;
}

export type TaskStatus = 'pending' | 'running' | 'completed' | 'failed';
export interface TaskInfo { index: number; title: string; status: TaskStatus; error?: string; }
export interface TaskLoopState {
  id: string;
  tasks: TaskInfo[];
  current: number;        // index of the running or last-ended task, -1 before start
  pause_mode: boolean;
  paused: boolean;        // waiting for Continue between tasks
  completed: number;
  failed: number;
  done: boolean;
  version: number;
}
export type TaskEventType = 'started' | 'task_begin' | 'task_end' | 'failed' | 'completed' | 'paused' | 'resumed' | 'pause_mode_changed';
export interface TaskLoopEvent {
  loop: string;
  version: number;
  type: TaskEventType;
  task?: number;
  title?: string;
  message?: string;
  error?: string;
  pause_mode?: boolean;
  at: string;
}
export interface TaskSpec { title: string; prompt: string; script?: ScriptTurn[]; }

export declare class TaskLoop {
  readonly id: string;
  readonly session: Session;
  state(): TaskLoopState;
  run(): Promise<TaskLoopState>;
  setPauseMode(on: boolean): void;
  isPauseMode(): boolean;
  continue(): void;      // no-op when not paused
  next(): void;          // continue one task, stay in pause mode
  continueAll(): void;   // switch to continuous and go
  on(type: TaskEventType | 'event', fn: (ev: TaskLoopEvent) => void): this;
  off(type: TaskEventType | 'event', fn: (ev: TaskLoopEvent) => void): this;
  close(): void;
}

export declare class Engine {
  constructor(config?: EngineConfig);
  createSession(opts?: SessionOptions): Session;
  session(id: string): Session;
  sessions(): SessionSnapshot[];
  createTaskLoop(opts: { tasks: TaskSpec[]; pauseMode?: boolean }): TaskLoop;
  checkCommand(cmd: string): Decision;
  emergencyStop(): number;
  close(): void;
}

export declare function checkCommand(cmd: string): Decision;
export declare const version: string;
