/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
import { Box, Text } from 'ink';
import { useId, useRef } from 'react';
import { useKeys } from '../hooks/useKeys.js';
import { useQuietGate, type QuietGateOptions } from '../hooks/useQuietGate.js';
import { printable } from '../printable.js';
import { useTheme } from '../theme.js';

export interface ResumeAllConfirmProps {
  /** Ids of the sessions Resume all will continue. */
  sessions: readonly string[];
  /** Called once: true to resume, false to cancel. */
  onDecision: (resume: boolean) => void;
  /** Whether it owns keyboard input. Default true. */
  isActive?: boolean;
  /** The quiet period of its answer keys (see useQuietGate): settleMs 250, holdMs 150 by default. */
  quiet?: QuietGateOptions;
}

/**
 * ResumeAllConfirm asks once before Resume all, saying what it will resume:
 *
 *   Resume all will continue 2 sessions: build, tests
 *   [Y] Resume  [N] Cancel
 *
 * Y or Enter resumes; N or Esc cancels. A read holding an Esc cancels at
 * once; Y, Enter and N count only after the input has been quiet (the
 * quiet-period rule of pauses), so "r" then "y" typed into the wrong window
 * resumes nothing; Y and Enter resume only alone in their read (pasted
 * "y\r" resumes nothing). When the list changes (a session became eligible or
 * stopped being so), the quiet period starts again.
 */
export function ResumeAllConfirm({ sessions, onDecision, isActive = true, quiet }: ResumeAllConfirmProps) {
  const theme = useTheme();
  // A new list is a new question: a session that became eligible while it
  // asks starts the quiet period again (and drops a Y held for the old list).
  const gate = useQuietGate(`${useId()} ${sessions.join('\n')}`, quiet);
  const decided = useRef(false);
  const decide = (resume: boolean) => {
    if (decided.current) return;
    decided.current = true;
    onDecision(resume);
  };
  useKeys(
    (read) => {
      if (read.keys.some((k) => k.name === 'escape')) return decide(false);
      const [key] = read.keys;
      const text = key?.name === 'char' ? key.text : '';
      const resume = key?.name === 'return' || text === 'y' || text === 'Y' ? true : text === 'n' || text === 'N' ? false : null;
      gate.offer(read, resume === null ? undefined : () => decide(resume), { alone: resume === true });
    },
    { isActive, now: quiet?.now, onArrive: gate.arrived },
  );
  const n = sessions.length;
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={theme.interrupted} paddingX={1}>
      {/* One line however many: the count says it all, the ids as many as fit. */}
      <Text wrap="truncate-end">
        Resume all will continue {n} session{n === 1 ? '' : 's'}: {sessions.map(printable).join(', ')}
      </Text>
      <Text bold>[Y] Resume  [N] Cancel</Text>
      {gate.ignored ? <Text color={theme.paused}>Keys ignored while you were typing — press Y or N again</Text> : null}
    </Box>
  );
}
