// The words the TUI shows for engine states. Interruption labels are the
// engine's: snapshots and events carry them, and REASON_LABELS and
// reasonLabel are the JS wrapper's (read from the engine), re-exported.

import type { RunState } from './types.js';

export { REASON_LABELS, reasonLabel } from '../../node/index.js';

/** The badge of each run state in a session list. */
export const RUN_STATE_BADGES: Readonly<Record<RunState, string>> = Object.freeze({
  proceeding: 'Proceeding',
  interrupted: 'Interrupted',
  blocked: 'Needs input',
  idle: 'Idle',
  terminal: 'Done',
});
