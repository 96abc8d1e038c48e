// The control-signal events of a session (signal('pause' | 'resume' |
// 'cancel')): onPause / onResume / onCancel / onError, derived from the
// session's events (the same mapping as the engine's signalOf). Each
// carries `step`: the 0-based index of the step about to run (the engine
// counts steps done, from 1, which is the same number).

/** The signal event names a session's on() accepts. */
export const SIGNAL_EVENTS = ['onPause', 'onResume', 'onCancel', 'onError'];

/** The signal event an engine event is, or undefined. */
export function signalEventOf(ev) {
  switch (ev.type) {
    case 'paused':
      return ev.pause?.source === 'signal' ? { type: 'onPause', pause: ev.pause } : undefined;
    case 'pause_answered':
      return ev.answer === 'resumed' && (ev.answered === undefined || ev.answered.source === 'signal') ? { type: 'onResume' } : undefined;
    case 'stopping':
      return { type: 'onCancel', reason: ev.reason };
    case 'run_failed':
      return { type: 'onError', error: new Error(ev.text) };
    default:
      return undefined;
  }
}
