/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
import { Box, Text, useInput } from 'ink';
import { useCallback } from 'react';
import { answerPause } from '../answer.js';
import { useSessionState } from '../hooks/useSessionState.js';
import { DEFAULT_SETTLE_MS } from '../hooks/useSettleGuard.js';
import { theme } from '../theme.js';
import type { PauseDecision, SessionLike } from '../types.js';
import { PauseIndicator } from './PauseIndicator.js';
import { TextInput } from './TextInput.js';
import { ThinkingIndicator } from './ThinkingIndicator.js';

export interface InputTransitionProps {
  session: SessionLike;
  /** A prompt typed while idle or interrupted. */
  onSubmit?: (text: string) => void;
  /** Default "Type a prompt and press Enter". */
  placeholder?: string;
  /** "q" typed into the empty prompt (the app's quit key). */
  onQuit?: () => void;
  /** A session call failed (e.g. the pause was already answered elsewhere). */
  onError?: (error: unknown) => void;
  /** False when something else owns keyboard input. Default true. */
  isActive?: boolean;
  /** Settle time of pause answers, ms. Default 250. */
  settleMs?: number;
  /** Clock for the settle guard (tests inject one). */
  now?: () => number;
}

/**
 * InputTransition is the line under the conversation. It follows the
 * session's status and owns the keys of seed 000's table:
 *
 *   running      ⠋ Thinking... (Esc to stop)         Esc interrupt
 *   paused       the PauseIndicator                  Enter / Y / N / Esc, answered by pause id
 *   stopping     Stopping…
 *   interrupted  the reason ("Stopped by you") and the prompt
 *   idle         the prompt, with its placeholder
 *
 * Exactly one of its parts listens to keys at a time.
 */
export function InputTransition({
  session,
  onSubmit,
  placeholder = 'Type a prompt and press Enter',
  onQuit,
  onError,
  isActive = true,
  settleMs = DEFAULT_SETTLE_MS,
  now,
}: InputTransitionProps) {
  const state = useSessionState(session);

  const call = useCallback(
    (act: () => void) => {
      try {
        act();
      } catch (error) {
        onError?.(error);
      }
    },
    [onError],
  );

  const onDecision = useCallback(
    (decision: PauseDecision, pauseId: string) =>
      call(() => answerPause(session, decision, pauseId)),
    [call, session],
  );

  useInput(
    (_input, key) => {
      if (key.escape) call(() => session.interrupt('user_stop'));
    },
    // Paused without a pause to show (none readable yet): Esc still stops.
    { isActive: isActive && (state.status === 'running' || (state.isPaused && !state.pauseInfo)) },
  );

  switch (state.status) {
    case 'running':
      return <ThinkingIndicator />;
    case 'paused':
      return state.pauseInfo ? (
        <PauseIndicator
          pause={state.pauseInfo}
          onDecision={onDecision}
          isActive={isActive}
          settleMs={settleMs}
          now={now}
        />
      ) : (
        <Text color={theme.paused}>⏸ Paused (Esc to stop)</Text>
      );
    case 'stopping':
      return <Text color={theme.interrupted}>Stopping…</Text>;
    case 'closed':
      return <Text color={theme.muted}>Session closed</Text>;
    case 'interrupted':
    case 'idle': {
      const input = <TextInput placeholder={placeholder} onSubmit={onSubmit} onQuit={onQuit} isActive={isActive} />;
      if (state.status === 'idle') return input;
      return (
        <Box flexDirection="column">
          <Text color={theme.interrupted}>{state.interruption?.label ?? 'Interrupted'}</Text>
          {input}
        </Box>
      );
    }
  }
}
