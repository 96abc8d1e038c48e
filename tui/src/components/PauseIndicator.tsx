/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
import { Box, Text } from 'ink';
import { useRef } from 'react';
import { useKeys } from '../hooks/useKeys.js';
import { useQuietGate } from '../hooks/useQuietGate.js';
import type { Key } from '../input/keys.js';
import { DEFAULT_SETTLE_MS, type KeyRead } from '../input/quiet.js';
import { printable } from '../printable.js';
import { useTheme } from '../theme.js';
import type { PauseDecision, PauseShown, RememberChoice } from '../types.js';

export interface PauseIndicatorProps {
  /**
   * The pause shown: the engine's pause as it comes (a `paused` event's
   * `pause`, a snapshot's `pause`, `useSessionState(s).pauseInfo`). Its id
   * is unique within its session only: an app that shows another session's
   * pause in the same place gives the indicator a React key per session, so
   * it starts a quiet period of its own.
   */
  pause: PauseShown;
  /**
   * Called once per pause with the user's decision and the id of the pause
   * it answers; an approval with [S] or [P] also names the scope to remember
   * it with.
   */
  onDecision?: (decision: PauseDecision, pauseId: string, remember?: RememberChoice) => void;
  /** Whether this indicator owns keyboard input. Default: true when onDecision is given. */
  isActive?: boolean;
  /**
   * Quiet period of answer keys, ms. Default 250. An answer key counts only
   * when the pause has been shown and the input quiet this long; every key
   * restarts it. Esc always works.
   */
  settleMs?: number;
  /** Clock of the quiet period, ms (tests inject one). Default: a monotonic clock. */
  now?: () => number;
  /** An answer waits this long for the input to stay quiet before it acts, ms. Default 150 (see useQuietGate). */
  holdMs?: number;
}

/** The line a pause shows while it ignores keys typed into it. */
export const IGNORED_HINT = {
  continue: 'Keys ignored while you were typing — press Enter again',
  confirm: 'Keys ignored while you were typing — press Y or N again',
} as const;

/**
 * PauseIndicator shows a pause and reports what the user decided. It is a
 * dumb dialog: it never calls the engine.
 *
 *   continue: ⏸ WebSearch paused: Page loaded: https://...
 *             (Press Enter to continue, Esc to stop)            Enter resume, Esc cancel
 *   confirm:  ⚠️ Bash: Potentially dangerous command
 *             rm -rf /important/*
 *             [Y] Approve  [N] Deny  [Esc] Cancel                Y approve, N deny, Esc cancel
 *
 * A confirm whose approval can be remembered (pause.rememberScopes) also
 * offers [S] Approve for this session and [P] Approve for this project,
 * and says what such an approval approves again (pause.rememberKey).
 *
 * Keys answer only after a quiet period (see settleMs): a person typing
 * through the moment the pause appears answers nothing; a remembered
 * approval, the answer that lasts longest, passes the same gate. A read
 * holding an Esc anywhere cancels, and nothing else in that read counts.
 * An approving key (Enter at a continue pause, Y, S or P at a confirm)
 * approves only alone in its read: "y\r" in one read is pasted text, not a
 * person's Y (N with more keys still denies: that fails safe). While it
 * owns input the terminal's bracketed paste is on, so a paste of any
 * length arrives marked and answers nothing.
 */
export function PauseIndicator({
  pause,
  onDecision,
  isActive = onDecision !== undefined,
  settleMs = DEFAULT_SETTLE_MS,
  now,
  holdMs,
}: PauseIndicatorProps) {
  const theme = useTheme();
  const gate = useQuietGate(pause.id, { settleMs, holdMs, now });
  const answered = useRef<string | null>(null);

  const decide = ({ decision, remember }: Choice) => {
    if (answered.current === pause.id) return; // one answer per pause
    answered.current = pause.id;
    if (remember) onDecision?.(decision, pause.id, remember);
    else onDecision?.(decision, pause.id);
  };

  useKeys(
    (read: KeyRead) => {
      // Stopping is always safe: no quiet period, and it works even after an answer.
      if (read.keys.some((key) => key.name === 'escape')) return onDecision?.('cancel', pause.id);
      const choice = choiceFor(pause, read.keys[0]);
      gate.offer(read, choice ? () => decide(choice) : undefined, { alone: choice?.decision !== 'deny' });
    },
    { isActive, now, onArrive: gate.arrived },
  );

  const ignored = gate.ignored ? <Text color={theme.paused}>{IGNORED_HINT[pause.kind]}</Text> : null;
  // The tool's words, as text: no control character of theirs reaches the terminal.
  const tool = printable(pause.tool || (pause.source === 'task' ? 'Task' : 'Agent'));
  const message = printable(pause.message);
  if (pause.kind === 'continue') {
    return (
      <Box flexDirection="column">
        <Text color={theme.paused}>
          ⏸ {tool} paused: {message}
        </Text>
        <Text color={theme.muted}>(Press Enter to continue, Esc to stop)</Text>
        {ignored}
      </Box>
    );
  }
  return (
    <Box flexDirection="column">
      <Text color={theme.danger} bold>
        ⚠️ {tool}: {message}
      </Text>
      {pause.details ? <Text>{printable(pause.details)}</Text> : null}
      {/* Why it asks: the gate's reasons, a policy rule's tier, name and reason. */}
      {(pause.reasons ?? []).map((r, i) => (
        <Text key={i} color={theme.paused}>
          · {printable(r)}
        </Text>
      ))}
      {pause.rememberScopes?.length && pause.rememberKey ? (
        <Text color={theme.muted}>{rememberLine(pause.rememberKey)}</Text>
      ) : null}
      <Text color={theme.muted}>{confirmHint(pause)}</Text>
      {ignored}
    </Box>
  );
}

/** The key that approves and remembers with each scope, and its label. */
const REMEMBER_KEYS: Record<RememberChoice, { key: string; label: string }> = {
  session: { key: 's', label: '[S] Approve for this session' },
  project: { key: 'p', label: '[P] Approve for this project' },
};

/** The line that says what [S] and [P] approve again without asking. */
export function rememberLine(key: string): string {
  return `Remembering approves again without asking: ${printable(key)}`;
}

/** The key-hint line of a confirm pause: the scope keys only when the pause offers them. */
function confirmHint(pause: PauseShown): string {
  const remember = (['session', 'project'] as const).filter((s) => pause.rememberScopes?.includes(s)).map((s) => REMEMBER_KEYS[s].label);
  return ['[Y] Approve', ...remember, '[N] Deny', '[Esc] Cancel'].join('  ');
}

interface Choice {
  decision: PauseDecision;
  remember?: RememberChoice;
}

/**
 * choiceFor is what key answers at pause, if anything: Enter at a continue
 * pause; Y or N at a confirm pause, and S or P where it offers that scope.
 */
function choiceFor(pause: PauseShown, key: Key | undefined): Choice | null {
  if (!key) return null;
  if (pause.kind === 'continue') return key.name === 'return' ? { decision: 'resume' } : null;
  if (key.name !== 'char') return null;
  const k = key.text.toLowerCase();
  if (k === 'y') return { decision: 'approve' };
  if (k === 'n') return { decision: 'deny' };
  for (const scope of pause.rememberScopes ?? []) {
    if (k === REMEMBER_KEYS[scope].key) return { decision: 'approve', remember: scope };
  }
  return null;
}
