/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
import { Box, Text } from 'ink';
import { useRef } from 'react';
import { useKeys } from '../hooks/useKeys.js';
import { useTheme } from '../theme.js';

export interface ResumeAllConfirmProps {
  /** Ids of the sessions Resume all will continue. */
  sessions: readonly string[];
  /** Called once: true to resume, false to cancel. */
  onDecision: (resume: boolean) => void;
  /** Whether it owns keyboard input. Default true. */
  isActive?: boolean;
}

/**
 * ResumeAllConfirm asks once before Resume all, saying what it will resume:
 *
 *   Resume all will continue 2 sessions: build, tests
 *   [Y] Resume  [N] Cancel
 *
 * Y or Enter resumes; N or Esc cancels. A read holding an Esc cancels.
 */
export function ResumeAllConfirm({ sessions, onDecision, isActive = true }: ResumeAllConfirmProps) {
  const theme = useTheme();
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
      if (key?.name === 'return' || key?.text === 'y' || key?.text === 'Y') decide(true);
      else if (key?.text === 'n' || key?.text === 'N') decide(false);
    },
    { isActive },
  );
  const n = sessions.length;
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={theme.interrupted} paddingX={1}>
      <Text>
        Resume all will continue {n} session{n === 1 ? '' : 's'}: {sessions.join(', ')}
      </Text>
      <Text bold>[Y] Resume  [N] Cancel</Text>
    </Box>
  );
}
