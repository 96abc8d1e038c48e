// The text shown for each interruption reason: the engine's ReasonLabel
// table (engine/status.go), for JS and the TUI. Plain data: importing it
// does not load the addon.

/** The label of each interruption reason. */
export const REASON_LABELS = Object.freeze({
  user_stop: 'Stopped by you',
  emergency_stop: 'Stopped by emergency stop',
  server_restart: 'Interrupted by server restart',
  system_stop: 'Stopped by the system',
  timeout: 'Stopped: timed out',
});

/** The label of an interruption reason ("Interrupted" for an unknown one). */
export function reasonLabel(reason) {
  return Object.hasOwn(REASON_LABELS, reason) ? REASON_LABELS[reason] : 'Interrupted';
}
