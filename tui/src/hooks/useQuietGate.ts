import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { DEFAULT_HOLD_MS, DEFAULT_SETTLE_MS, monotonicNow, QuietGate, type KeyRead } from '../input/quiet.js';

export interface QuietGateOptions {
  /** Quiet period, ms (see QuietGate). Default 250. */
  settleMs?: number;
  /** How long an admitted key waits for the input to stay quiet before it acts, ms. Default 150. */
  holdMs?: number;
  /** Clock of the quiet period, ms. Default: a monotonic clock. */
  now?: () => number;
}

export interface QuietGateState {
  /**
   * offer judges read (every read restarts the quiet period). When read may
   * answer, act runs once the input has stayed quiet for holdMs more; any
   * input before that (see arrived) cancels it. With alone, act is an
   * approval: a read holding any other key besides never approves (pasted
   * "y\r" is a paste, not a Y). Returns whether it was admitted.
   */
  offer: (read: KeyRead, act?: () => void, options?: { alone?: boolean }) => boolean;
  /**
   * admit judges read now, without a hold (every read restarts the quiet
   * period): whether it may start what it starts. A read refused marks the
   * prompt ignored.
   */
  admit: (read: KeyRead) => boolean;
  /** arrived tells the gate input has arrived (call it for every piece, at once): a held answer is dropped. */
  arrived: () => void;
  /** True once a read was not admitted (or a held answer dropped) at this prompt: the prompt says keys were ignored. */
  ignored: boolean;
}

/**
 * useQuietGate guards the prompt named promptKey (a pause id, ...) with the
 * quiet-period rule: a key answers only when the prompt has been shown and
 * the input quiet for settleMs, and only if no more input follows within
 * holdMs. The hold catches keys that were typed as a flood but delivered
 * after a stall (a busy machine, a slow link): they arrive in a quick run
 * after a gap that only looks like a pause. A new promptKey starts a new
 * gate, from the time it is first rendered; null means no prompt.
 */
export function useQuietGate(
  promptKey: string | null,
  { settleMs = DEFAULT_SETTLE_MS, holdMs = DEFAULT_HOLD_MS, now = monotonicNow }: QuietGateOptions = {},
): QuietGateState {
  // Read the clock when a new prompt renders (only then: not on every render).
  const gate = useMemo(() => (promptKey === null ? null : new QuietGate(settleMs, now())), [promptKey, settleMs]);
  const [ignoredAt, setIgnoredAt] = useState<string | null>(null);
  const held = useRef<{ timer: NodeJS.Timeout | null; immediate: NodeJS.Immediate | null } | null>(null);

  const drop = useCallback(() => {
    const h = held.current;
    if (!h) return false;
    if (h.timer) clearTimeout(h.timer);
    if (h.immediate) clearImmediate(h.immediate);
    held.current = null;
    return true;
  }, []);

  // A new prompt (or unmount) drops what was held for the old one.
  useEffect(() => () => void drop(), [promptKey, drop]);

  const arrived = useCallback(() => {
    if (drop() && promptKey !== null) setIgnoredAt(promptKey);
  }, [drop, promptKey]);

  const admit = useCallback(
    (read: KeyRead) => {
      if (gate === null) return false;
      const ok = gate.admit(read);
      if (!ok && promptKey !== null) setIgnoredAt(promptKey);
      return ok;
    },
    [gate, promptKey],
  );

  const offer = useCallback(
    (read: KeyRead, act?: () => void, { alone = false }: { alone?: boolean } = {}) => {
      if (!admit(read)) return false;
      if (!act) return true;
      if (alone && read.keys.length !== 1) {
        if (promptKey !== null) setIgnoredAt(promptKey);
        return false;
      }
      drop();
      const h: { timer: NodeJS.Timeout | null; immediate: NodeJS.Immediate | null } = { timer: null, immediate: null };
      held.current = h;
      h.timer = setTimeout(() => {
        h.timer = null;
        // One more turn of the event loop: input that piled up while this
        // process was busy is read (and drops the answer) before it acts.
        h.immediate = setImmediate(() => {
          if (held.current !== h) return;
          held.current = null;
          act();
        });
      }, holdMs);
      return true;
    },
    [admit, promptKey, holdMs, drop],
  );
  return { offer, admit, arrived, ignored: promptKey !== null && ignoredAt === promptKey };
}
