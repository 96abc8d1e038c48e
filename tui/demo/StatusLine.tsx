/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
import { Text } from 'ink';
import { printable, useTheme, type SessionState, type Theme } from '../src/index.js';

const STATUS_COLOR: Record<string, keyof Theme> = {
  running: 'active',
  paused: 'paused',
  stopping: 'interrupted',
  interrupted: 'interrupted',
  closed: 'muted',
  idle: 'success',
};

/** StatusLine: "session s1 · scripted · tokens 12 in / 34 out · running". */
export function StatusLine({ state, id }: { state: SessionState; id: string }) {
  const theme = useTheme();
  return (
    <Text color={theme.muted}>
      session {printable(id)} · {state.model ? `${printable(state.model)} · ` : ''}tokens {state.tokens.input} in / {state.tokens.output} out ·{' '}
      <Text color={theme[STATUS_COLOR[state.status]!]}>{state.status}</Text>
    </Text>
  );
}
