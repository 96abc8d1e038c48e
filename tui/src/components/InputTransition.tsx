/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
import { Box, Text } from 'ink';
import { useCallback, useRef } from 'react';
import { answerPause } from '../answer.js';
import { useKeys } from '../hooks/useKeys.js';
import { useSessionState } from '../hooks/useSessionState.js';
import { DEFAULT_SETTLE_MS, type KeyRead } from '../input/quiet.js';
import { useTheme } from '../theme.js';
import type { PauseDecision, RememberChoice, SessionLike, SessionState } from '../types.js';
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
  /**
   * Quiet period, ms. Default 250. A key answers a pause, or starts typing
   * into the prompt that comes back after a run, only once the input has
   * been quiet this long; every key restarts it. Esc never waits.
   */
  settleMs?: number;
  /** Clock of the quiet period (tests inject one). */
  now?: () => number;
  /** An answer to a pause waits this long for the input to stay quiet before it acts, ms. Default 150 (see useQuietGate). */
  holdMs?: number;
}

/** stoppingText is the line shown while a stop unwinds: who stopped it and what happens next. */
export function stoppingText(state: Pick<SessionState, 'stopping'>): string {
  const who = state.stopping ? `${lowerFirst(state.stopping.label)} — ` : '';
  return `Stopping… (${who}waiting for the command to exit)`;
}

const lowerFirst = (text: string) => text.slice(0, 1).toLowerCase() + text.slice(1);

const PROMPT_STATUSES: ReadonlySet<string> = new Set(['idle', 'interrupted']);

/**
 * InputTransition is the line under the conversation. It follows the
 * session's status and owns the keys of seed 000's table:
 *
 *   running      ⠋ Thinking... (Esc to stop)         Esc interrupt
 *   paused       the PauseIndicator                  Enter / Y / N / Esc, answered by pause id
 *   stopping     Stopping… (stopped by you — waiting for the command to exit)
 *   interrupted  the reason ("Stopped by you") and the prompt
 *   idle         the prompt, with its placeholder
 *
 * Exactly one of its parts listens to keys at a time. Any read holding an
 * Esc stops a running session, whatever else came with it.
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
  holdMs,
}: InputTransitionProps) {
  const theme = useTheme();
  const state = useSessionState(session);
  const guardKey = usePromptGuard(state);

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
    (decision: PauseDecision, pauseId: string, remember?: RememberChoice) => call(() => answerPause(session, decision, pauseId, remember)),
    [call, session],
  );

  useKeys(
    (read: KeyRead) => {
      if (read.keys.some((key) => key.name === 'escape')) call(() => session.interrupt('user_stop'));
    },
    // Paused without a pause to show (none readable yet): Esc still stops.
    { isActive: isActive && (state.status === 'running' || (state.isPaused && !state.pauseInfo)), now },
  );

  switch (state.status) {
    case 'running':
      return <ThinkingIndicator />;
    case 'paused':
      return state.pauseInfo ? (
        // Keyed by session: pause ids count per session, and another session's "p1" shown here gets its own quiet period.
        <PauseIndicator
          key={session.id}
          pause={state.pauseInfo}
          onDecision={onDecision}
          isActive={isActive}
          settleMs={settleMs}
          now={now}
          holdMs={holdMs}
        />
      ) : (
        <Text color={theme.paused}>⏸ Paused (Esc to stop)</Text>
      );
    case 'stopping':
      return <Text color={theme.interrupted}>{stoppingText(state)}</Text>;
    case 'closed':
      return <Text color={theme.muted}>Session closed</Text>;
    case 'interrupted':
    case 'idle': {
      const input = (
        // Keyed by session: what was typed for one session is never sent to another shown here.
        <TextInput
          key={session.id}
          placeholder={placeholder}
          onSubmit={onSubmit}
          onQuit={onQuit}
          isActive={isActive}
          guardKey={guardKey}
          settleMs={settleMs}
          now={now}
        />
      );
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

/**
 * usePromptGuard returns a new key each time the prompt comes back after a
 * run (the status turns idle or interrupted from another one), null while
 * the prompt has been there from the start.
 */
function usePromptGuard(state: SessionState): string | null {
  const previous = useRef<{ status: string; key: string | null }>({ status: state.status, key: null });
  const atPrompt = PROMPT_STATUSES.has(state.status);
  if (previous.current.status !== state.status) {
    const wasAtPrompt = PROMPT_STATUSES.has(previous.current.status);
    const key = atPrompt ? (wasAtPrompt ? previous.current.key : `prompt@${state.version}`) : null;
    previous.current = { status: state.status, key };
  }
  return atPrompt ? previous.current.key : null;
}
