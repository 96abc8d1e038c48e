// The words the TUI shows for engine states: the same table as the Go
// engine's ReasonLabel and the web page's.

import type { Reason } from '../../node/index.js';
import type { RunState } from './types.js';

/** What each interruption reason is called on screen. */
export const REASON_LABELS: Readonly<Record<Reason, string>> = Object.freeze({
  user_stop: 'Stopped by you',
  emergency_stop: 'Stopped by emergency stop',
  server_restart: 'Interrupted by server restart',
  system_stop: 'Stopped by the system (resource protection)',
  timeout: 'Stopped: timed out',
});

/** reasonLabel returns the label of an interruption reason ("Interrupted" for an unknown one). */
export function reasonLabel(reason: string): string {
  return (REASON_LABELS as Record<string, string>)[reason] ?? 'Interrupted';
}

/** The badge of each run state in a session list. */
export const RUN_STATE_BADGES: Readonly<Record<RunState, string>> = Object.freeze({
  proceeding: 'Proceeding',
  interrupted: 'Interrupted',
  blocked: 'Needs input',
  idle: 'Idle',
  terminal: 'Done',
});
