// The quiet-period rule: a key answers a prompt only if the person meant it
// for that prompt. Timing after the prompt appeared is not enough (a key
// flood simply answers a little later); what shows intent is a key pressed
// after the input went quiet.

import { isBurst, type Key } from './keys.js';

/** The default settle time, ms: input must be quiet this long before a key can answer. */
export const DEFAULT_SETTLE_MS = 250;

/**
 * The default hold, ms: an admitted key acts only if no more input follows
 * this soon. It is longer than the interval of a held key's repeats (30-40
 * ms by default on Linux and Windows, 90 ms or more on a slow macOS
 * setting), so a key held since the last prompt answers nothing.
 */
export const DEFAULT_HOLD_MS = 150;

/** monotonicNow is a monotonic clock, ms: a wall-clock step (NTP, a suspended laptop) moves neither way. */
export const monotonicNow = (): number => performance.now();

/** One terminal read: its keys, in order, and when it arrived (monotonic ms). */
export interface KeyRead {
  keys: readonly Key[];
  at: number;
}

/**
 * QuietGate judges the reads that arrive while one prompt (a pause, the
 * prompt line after a run stopped) is shown. A read may answer only when
 * both the prompt and the input before it have been quiet for settleMs:
 * every read restarts the quiet period, whether it answers or not. A read
 * carrying several printable keys or a paste never answers (pasted text, or
 * a flood that piled up while the process was busy).
 */
export class QuietGate {
  private lastAt: number;

  /** shownAt is when the prompt appeared, on the clock reads are stamped with. */
  constructor(
    private readonly settleMs: number,
    shownAt: number,
  ) {
    this.lastAt = shownAt;
  }

  /** admit reports whether read may answer the prompt, and restarts the quiet period. */
  admit(read: KeyRead): boolean {
    const quiet = read.at - this.lastAt >= this.settleMs;
    this.lastAt = Math.max(this.lastAt, read.at);
    return quiet && read.keys.length > 0 && !isBurst(read.keys);
  }
}
