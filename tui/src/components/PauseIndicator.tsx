/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
import { Box, Text, useInput } from 'ink';
import { useRef } from 'react';
import { DEFAULT_SETTLE_MS, useSettleGuard } from '../hooks/useSettleGuard.js';
import { theme } from '../theme.js';
import type { PauseDecision, PauseView } from '../types.js';

export interface PauseIndicatorProps {
  pause: PauseView;
  /** Called once per pause with the user's decision and the id of the pause it answers. */
  onDecision?: (decision: PauseDecision, pauseId: string) => void;
  /** Whether this indicator owns keyboard input. Default: true when onDecision is given. */
  isActive?: boolean;
  /** Answer keys are ignored this long after a pause appears, ms. Default 250. Esc always works. */
  settleMs?: number;
  /** Clock for the settle guard, ms (tests inject one). Default: a monotonic clock. */
  now?: () => number;
}

/**
 * PauseIndicator shows a pause and reports what the user decided. It is a
 * dumb dialog: it never calls the engine.
 *
 *   continue: ⏸ WebSearch paused: Page loaded: https://...
 *             (Press Enter to continue, Esc to stop)            Enter resume, Esc cancel
 *   confirm:  ⚠️ Bash: Potentially dangerous command
 *             rm -rf /important/*
 *             [Y] Approve  [N] Deny  [Esc] Cancel                Y approve, N deny, Esc cancel
 */
export function PauseIndicator({
  pause,
  onDecision,
  isActive = onDecision !== undefined,
  settleMs = DEFAULT_SETTLE_MS,
  now,
}: PauseIndicatorProps) {
  const isSettled = useSettleGuard(pause.id, settleMs, now);
  const answered = useRef<string | null>(null);

  const decide = (decision: PauseDecision) => {
    if (answered.current === pause.id) return; // one answer per pause
    answered.current = pause.id;
    onDecision?.(decision, pause.id);
  };

  useInput(
    (input, key) => {
      // Stopping is always safe: no settle time, and it works even after an answer.
      if (key.escape) return onDecision?.('cancel', pause.id);
      if (!isSettled() || key.ctrl || key.meta) return;
      if (pause.kind === 'continue') {
        if (key.return) decide('resume');
      } else if (input === 'y' || input === 'Y') {
        decide('approve');
      } else if (input === 'n' || input === 'N') {
        decide('deny');
      }
    },
    { isActive },
  );

  if (pause.kind === 'continue') {
    return (
      <Box flexDirection="column">
        <Text color={theme.paused}>
          ⏸ {pause.toolName} paused: {pause.message}
        </Text>
        <Text color={theme.muted}>(Press Enter to continue, Esc to stop)</Text>
      </Box>
    );
  }
  return (
    <Box flexDirection="column">
      <Text color={theme.danger} bold>
        ⚠️ {pause.toolName}: {pause.message}
      </Text>
      {pause.details ? <Text>{pause.details}</Text> : null}
      <Text color={theme.muted}>[Y] Approve  [N] Deny  [Esc] Cancel</Text>
    </Box>
  );
}
