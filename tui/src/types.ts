// View types of the TUI: what the components render, derived from the
// engine's snapshots (node/index.d.ts). The TUI never decides state.

import type { Engine, PauseInfo, Reason, RunState, Session, Status, TaskLoop, Tokens } from '../../node/index.js';

export type { RunState };

/**
 * What PauseIndicator reads of a pause: the engine's PauseInfo as it comes
 * in events and snapshots fits it as it is.
 */
export type PauseShown = Pick<PauseInfo, 'id' | 'kind' | 'source' | 'tool' | 'message' | 'details' | 'reasons' | 'rememberScopes' | 'rememberKey'>;

/** How long an approval is remembered, when the user chose to: this session, or this project. */
export type RememberChoice = 'session' | 'project';

/** Why the last run stopped, as shown to the user. */
export interface InterruptionView {
  reason: Reason;
  /** "Stopped by you", "Stopped by emergency stop"... */
  label: string;
  resumable: boolean;
}

/** A stop still unwinding (status 'stopping'): who asked for it. */
export interface StoppingView {
  reason: Reason;
  /** "Stopped by you", "Stopped by emergency stop"... */
  label: string;
}

/** One immutable snapshot of a session (seed 000's RustSessionSnapshot). */
export interface SessionState {
  status: Status;
  /** status === 'running': show "Thinking...". */
  isLoading: boolean;
  /** status === 'paused': show the pause. */
  isPaused: boolean;
  /** The oldest pending pause while paused (the engine's, as in its snapshot), else null. */
  pauseInfo: PauseInfo | null;
  model: string | null;
  tokens: Tokens;
  /** The engine's monotonic version this snapshot was read at. */
  version: number;
  /** The last interruption, kept while status is 'interrupted'; else null. */
  interruption: InterruptionView | null;
  /** While status is 'stopping': the stop's reason and label; else null. */
  stopping: StoppingView | null;
}

/** The part of Session the TUI uses: a real Session, or a test fake. */
export type SessionLike = Pick<
  Session,
  'id' | 'status' | 'version' | 'pauseState' | 'snapshot' | 'resume' | 'confirm' | 'interrupt' | 'on' | 'off'
>;

/** The part of TaskLoop the TUI uses. */
export type TaskLoopLike = Pick<
  TaskLoop,
  'id' | 'session' | 'state' | 'setPauseMode' | 'isPauseMode' | 'continue' | 'continueAll' | 'on' | 'off'
>;

/** What the user decided at a pause (dialogs report it; their owner acts on it). An approval may come with a RememberChoice. */
export type PauseDecision = 'resume' | 'approve' | 'deny' | 'cancel';

/** One line of the sessions view, from the engine's snapshot. */
export interface SessionRow {
  id: string;
  runState: RunState;
  /** While interrupted: "Stopped by you", "Stopped by emergency stop"... */
  reasonLabel?: string;
  /** While a pause is pending (blocked, or beside a call still running): what it asks ("Potentially dangerous command"), or, blocked by a restart, asks again. */
  waitingFor?: string;
  /** Continue may be offered. */
  eligible: boolean;
  /** Blocked on a question a restart cut: Continue is offered and asks it again (waitingFor). */
  asksAgain?: boolean;
  /** Continuing asks first: a tool with side effects was cut off. */
  repeatsSideEffect?: boolean;
}

/** What the global controls affect. */
export interface CountsView {
  proceeding: number;
  eligible: number;
  needsInput: number;
}

/** The engine as the sessions view shows it. */
export interface EngineState {
  /** Bumped at every change the store saw. */
  version: number;
  counts: CountsView;
  sessions: readonly SessionRow[];
}

/** The part of Engine the TUI uses. */
export type EngineLike = Pick<Engine, 'sessions' | 'counts' | 'on' | 'off'>;
