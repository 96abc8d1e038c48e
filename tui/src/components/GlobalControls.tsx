/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
import { Box, Text } from 'ink';
import { useTheme } from '../theme.js';
import type { CountsView } from '../types.js';

export interface GlobalControlsProps {
  counts: CountsView;
  /** Key hints shown with each control. Default E and R. */
  keys?: { emergencyStop: string; resumeAll: string };
}

/**
 * GlobalControls is the header of the sessions view: what Emergency stop and
 * Resume all would affect, before anyone presses them. It is dumb: its
 * owner handles the keys.
 *
 *   [E] Emergency stop (3 proceeding)   [R] Resume all (2 eligible)   1 needs input
 */
export function GlobalControls({ counts, keys = { emergencyStop: 'E', resumeAll: 'R' } }: GlobalControlsProps) {
  const theme = useTheme();
  return (
    <Box gap={3}>
      <Text color={theme.danger} bold inverse={counts.proceeding > 0}>
        [{keys.emergencyStop}] Emergency stop ({counts.proceeding} proceeding)
      </Text>
      <Text color={counts.eligible > 0 ? theme.interrupted : theme.muted}>
        [{keys.resumeAll}] Resume all ({counts.eligible} eligible)
      </Text>
      {counts.needsInput > 0 ? <Text color={theme.paused}>{counts.needsInput} needs input</Text> : null}
    </Box>
  );
}
