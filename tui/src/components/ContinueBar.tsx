/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
import { Box, Text } from 'ink';
import { useKeys } from '../hooks/useKeys.js';
import { useQuietGate, type QuietGateOptions } from '../hooks/useQuietGate.js';
import { useTheme } from '../theme.js';
import type { SessionRow } from '../types.js';

export interface ContinueBarProps {
  /** The session's row; its id gives each session shown here its own quiet period. */
  session: Pick<SessionRow, 'runState' | 'reasonLabel' | 'waitingFor' | 'eligible' | 'asksAgain' | 'repeatsSideEffect'> & { id?: string };
  /** C: continue the interrupted run, or ask again the question a restart cut (only offered then). */
  onContinue?: () => void;
  /** Whether it owns keyboard input (only while Continue is offered). Default true. */
  isActive?: boolean;
  /** The quiet period of C (see useQuietGate): settleMs 250, holdMs 150 by default. */
  quiet?: QuietGateOptions;
}

/** What the bar says when continuing may repeat a cut-off action (the engine asks first). */
export const REPEATS_SIDE_EFFECT_HINT = 'continuing may repeat an action that was cut off: you will be asked first';

/**
 * ContinueBar sits at the end of a session's history. Only when the engine
 * says the session is eligible it offers Continue, with the reason it
 * stopped. A session blocked on a question that a restart cut (asksAgain)
 * is offered Continue too, which asks the question anew; while a question
 * is pending it says "Waiting for your input"; otherwise it shows nothing.
 *
 *   Stopped by emergency stop — [C] Continue
 *
 *   Interrupted by server restart — [C] Continue
 *   Asks again: Potentially dangerous command
 *
 * C counts only after the input has been quiet since Continue was offered
 * (the quiet-period rule of pauses): keys typed into the run before it
 * stopped never continue it, and C continues only alone in its read (a
 * paste that starts with c does not).
 */
export function ContinueBar({ session, onContinue, isActive = true, quiet }: ContinueBarProps) {
  const theme = useTheme();
  const offered = session.eligible || session.asksAgain === true;
  // Per session: another eligible session shown in its place gets its own quiet period.
  const gate = useQuietGate(offered ? `continue:${session.id ?? ''}` : null, quiet);
  useKeys(
    (read) => {
      const [key] = read.keys;
      const isC = key?.name === 'char' && (key.text === 'c' || key.text === 'C');
      gate.offer(read, isC ? () => onContinue?.() : undefined, { alone: true });
    },
    { isActive: isActive && offered, now: quiet?.now, onArrive: gate.arrived },
  );
  if (session.runState === 'blocked' && !session.asksAgain) return <Text color={theme.paused}>Waiting for your input</Text>;
  if (!offered) return null;
  return (
    <Box flexDirection="column">
      <Text>
        <Text color={theme.interrupted}>{session.reasonLabel ?? 'Interrupted'}</Text> — <Text bold>[C] Continue</Text>
      </Text>
      {session.asksAgain ? <Text color={theme.paused}>Asks again: {session.waitingFor ?? 'the question it was waiting on'}</Text> : null}
      {session.repeatsSideEffect ? <Text color={theme.paused}>⚠️ {REPEATS_SIDE_EFFECT_HINT}</Text> : null}
      {gate.ignored ? <Text color={theme.paused}>Keys ignored while you were typing — press C again</Text> : null}
    </Box>
  );
}
