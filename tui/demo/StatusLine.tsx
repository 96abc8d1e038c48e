/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
import { Text } from 'ink';
import { theme, type SessionState } from '../src/index.js';

const STATUS_COLOR: Record<string, string> = {
  running: theme.active,
  paused: theme.paused,
  stopping: theme.interrupted,
  interrupted: theme.interrupted,
  closed: theme.muted,
  idle: theme.success,
};

/** StatusLine: "session s1 · scripted · tokens 12 in / 34 out · running". */
export function StatusLine({ state, id }: { state: SessionState; id: string }) {
  return (
    <Text color={theme.muted}>
      session {id} · {state.model ? `${state.model} · ` : ''}tokens {state.tokens.input} in / {state.tokens.output} out ·{' '}
      <Text color={STATUS_COLOR[state.status]}>{state.status}</Text>
    </Text>
  );
}
