import type { PauseDecision, SessionLike } from './types.js';

/**
 * answerPause sends a pause decision to the session, naming the pause so a
 * late key can never answer a later one: resume and approve/deny answer
 * pauseId, cancel interrupts the run (reason user_stop). It throws what the
 * session throws (e.g. ERR_NOT_PAUSED when the pause was already answered).
 */
export function answerPause(session: SessionLike, decision: PauseDecision, pauseId: string): void {
  switch (decision) {
    case 'resume':
      return session.resume(pauseId);
    case 'approve':
      return session.confirm(true, undefined, pauseId);
    case 'deny':
      return session.confirm(false, undefined, pauseId);
    case 'cancel':
      return session.interrupt('user_stop');
  }
}
