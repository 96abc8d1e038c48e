/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
import { Box, Text } from 'ink';
import { useRef } from 'react';
import type { ProjectPolicyReview } from '../../../node/index.js';
import { useKeys } from '../hooks/useKeys.js';
import { useQuietGate, type QuietGateOptions } from '../hooks/useQuietGate.js';
import { printable } from '../printable.js';
import { useTheme } from '../theme.js';

export interface PolicyTrustProps {
  /** The project's policy file, as engine.reviewProjectPolicy(dir) gives it. */
  review: ProjectPolicyReview;
  /**
   * Called once per content (sha256): true to trust it (call
   * engine.trustProjectPolicy(dir, {sha256: review.sha256})), false for not now.
   */
  onDecision: (trust: boolean) => void;
  /** Whether it owns keyboard input. Default true. */
  isActive?: boolean;
  /** The quiet period of its answer keys (see useQuietGate): settleMs 250, holdMs 150 by default. */
  quiet?: QuietGateOptions;
}

/**
 * PolicyTrust asks whether to trust a project's policy file, showing what
 * trust binds to: its path, its SHA-256 and its rules.
 *
 *   Project policy not trusted: /src/app/.interlock/policy.toml
 *   sha256 3f2a9c…
 *   · deny  no-deploy: program make, subcommand deploy — deploys go through CI
 *   Its rules are used only once you trust it, as it is now: a change asks again.
 *   [Y] Trust  [N] Not now
 *
 * Y trusts only after the input has been quiet and alone in its read (the
 * quiet-period rule of pauses: a Y typed on, or pasted "y\r", trusts
 * nothing); N or Esc is not now. A new content (another sha256) is a new
 * question: the quiet period starts again and it may be answered again. A
 * file that does not load shows why and offers only Not now. It renders
 * what it is given and reports keys; it never calls the engine.
 */
export function PolicyTrust({ review, onDecision, isActive = true, quiet }: PolicyTrustProps) {
  const theme = useTheme();
  const question = `${review.path}\n${review.sha256}\n${review.error ?? ''}`;
  const gate = useQuietGate(question, quiet);
  const decided = useRef('');
  const decide = (trust: boolean) => {
    if (decided.current === question) return;
    decided.current = question;
    onDecision(trust);
  };
  const trustable = !review.error;
  useKeys(
    (read) => {
      if (read.keys.some((k) => k.name === 'escape')) return decide(false);
      const [key] = read.keys;
      const text = key?.name === 'char' ? key.text : '';
      const trust = trustable && (text === 'y' || text === 'Y') ? true : text === 'n' || text === 'N' ? false : null;
      gate.offer(read, trust === null ? undefined : () => decide(trust), { alone: trust === true });
    },
    { isActive, now: quiet?.now, onArrive: gate.arrived },
  );
  // The project's words, as text: no control character of theirs reaches the terminal.
  const width = Math.max(0, ...review.rules.map((r) => r.decision.length));
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={theme.paused} paddingX={1}>
      <Text>Project policy not trusted: {printable(review.path)}</Text>
      {trustable ? <Text>sha256 {review.sha256}</Text> : <Text color={theme.interrupted}>It does not load, so it cannot be trusted: {printable(review.error ?? '')}</Text>}
      {review.rules.map((r) => (
        <Text key={r.name}>
          · <Text bold>{r.decision.padEnd(width)}</Text> {printable(r.name)}: {printable(r.matches)} — {printable(r.reason)}
          {r.shadow ? ' (shadow: not enforced)' : ''}
        </Text>
      ))}
      <Text color={theme.muted}>Its rules are used only once you trust it, as it is now: a change asks again.</Text>
      <Text bold>{trustable ? '[Y] Trust  [N] Not now' : '[N] Not now'}</Text>
      {gate.ignored ? <Text color={theme.paused}>Keys ignored while you were typing — press Y or N again</Text> : null}
    </Box>
  );
}
