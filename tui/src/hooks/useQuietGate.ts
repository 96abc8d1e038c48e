import { useCallback, useMemo, useState } from 'react';
import { DEFAULT_SETTLE_MS, monotonicNow, QuietGate, type KeyRead } from '../input/quiet.js';

export interface QuietGateState {
  /** admit reports whether read may answer the prompt (see QuietGate); every read restarts the quiet period. */
  admit: (read: KeyRead) => boolean;
  /** True once a read was not admitted at this prompt: the prompt says the keys were ignored. */
  ignored: boolean;
}

/**
 * useQuietGate guards the prompt named promptKey (a pause id, ...) with the
 * quiet-period rule: a key answers only when the prompt has been shown and
 * the input quiet for settleMs. A new promptKey starts a new gate, from the
 * time it is first rendered; null means no prompt (nothing is admitted).
 */
export function useQuietGate(
  promptKey: string | null,
  settleMs: number = DEFAULT_SETTLE_MS,
  now: () => number = monotonicNow,
): QuietGateState {
  // Read the clock when a new prompt renders (only then: not on every render).
  const gate = useMemo(() => (promptKey === null ? null : new QuietGate(settleMs, now())), [promptKey, settleMs]);
  const [ignoredAt, setIgnoredAt] = useState<string | null>(null);
  const admit = useCallback(
    (read: KeyRead) => {
      if (gate === null) return false;
      const ok = gate.admit(read);
      if (!ok && promptKey !== null) setIgnoredAt(promptKey);
      return ok;
    },
    [gate, promptKey],
  );
  return { admit, ignored: promptKey !== null && ignoredAt === promptKey };
}
