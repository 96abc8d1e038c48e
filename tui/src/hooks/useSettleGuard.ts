import { useCallback, useMemo } from 'react';

/** The default settle time, ms: long enough to stop a key typed for something else. */
export const DEFAULT_SETTLE_MS = 250;

// A monotonic clock: a wall-clock step (NTP, a suspended laptop) must neither
// end the settle time early nor block answers for as long as the step.
const monotonicNow = () => performance.now();

/**
 * useSettleGuard guards answers to a prompt that just appeared. It returns
 * isSettled(), false until settleMs have passed since promptKey (e.g. a pause
 * id) was first rendered, so a key the user was already typing when the
 * prompt showed up can't answer it. A null promptKey means no prompt.
 */
export function useSettleGuard(
  promptKey: string | null,
  settleMs: number = DEFAULT_SETTLE_MS,
  now: () => number = monotonicNow,
): () => boolean {
  // Read the clock when a new prompt renders (only then: not on every
  // render, and not when its keys arrive).
  const shownAt = useMemo(() => now(), [promptKey]);
  return useCallback(() => promptKey !== null && now() - shownAt >= settleMs, [promptKey, shownAt, settleMs, now]);
}
