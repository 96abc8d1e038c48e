import type { PauseDecision, RememberChoice, SessionLike } from './types.js';

/**
 * answerPause sends a pause decision to the session, naming the pause so a
 * late key can never answer a later one: resume and approve/deny answer
 * pauseId (an approval remembered with the scope given, if any), cancel
 * interrupts the run (reason user_stop). It throws what the session throws
 * (e.g. ERR_NOT_PAUSED when the pause was already answered).
 */
export function answerPause(session: SessionLike, decision: PauseDecision, pauseId: string, remember?: RememberChoice): void {
  switch (decision) {
    case 'resume':
      return session.resume(pauseId);
    case 'approve':
      return session.confirm(true, remember ? { pauseId, remember } : { pauseId });
    case 'deny':
      return session.confirm(false, { pauseId });
    case 'cancel':
      return session.interrupt('user_stop');
  }
}
