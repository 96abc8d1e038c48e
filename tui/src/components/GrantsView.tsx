/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
import { Box, Text } from 'ink';
import { useRef, useState } from 'react';
import type { Grant } from '../../../node/index.js';
import { useKeys } from '../hooks/useKeys.js';
import { useQuietGate, type QuietGateOptions } from '../hooks/useQuietGate.js';
import { printable } from '../printable.js';
import { useTheme } from '../theme.js';

export interface GrantsViewProps {
  /** What is approved without asking, as engine.grants() lists it. */
  grants: readonly Grant[];
  /** X on a grant, after the quiet period: take it back (engine.revokeGrant(grant)). Called once per grant. */
  onRevoke: (grant: Grant) => void;
  /** Esc: leave the list. */
  onClose?: () => void;
  /** Whether the view owns keyboard input. Default true. */
  isActive?: boolean;
  /** The quiet period of X (see useQuietGate): settleMs 250, holdMs 150 by default. */
  quiet?: QuietGateOptions;
}

/** The key-hint line of the grants view. */
export const GRANTS_HINT = '↑/↓ move  X revoke  Esc back';

/** The line the view shows while it ignores keys typed into it. */
export const GRANTS_IGNORED_HINT = 'Keys ignored while you were typing — press X again';

/** grantId names one grant: a new selection starts a new quiet period. */
const grantId = (g: Grant) => JSON.stringify([g.scope, g.tool, g.session ?? '', g.root ?? '', g.key]);

/** "2026-11-26T13:45:02.123+01:00" -> "2026-11-26 13:45:02": when, as the engine wrote it. */
const since = (at: string) => at.slice(0, 19).replace('T', ' ');

/**
 * GrantsView lists the approvals remembered without asking again (the
 * confirms' [S] and [P], the bash tool's too) and takes back the selected
 * one. It renders what it is given and reports keys; it never calls the
 * engine.
 *
 *   Remembered approvals: approved again without asking
 *   › deploy  deploy build 42 to staging  · this session (chat) · since 2026-11-26 13:45:02
 *     bash    rm -rf ./demo-scratch       · this project (/tmp/demo) · since 2026-11-26 13:46:10
 *   ↑/↓ move  X revoke  Esc back
 *
 * X revokes only after the input has been quiet (the quiet-period rule of
 * pauses; moving the selection restarts it), so keys typed on, a flood or
 * a paste take nothing back. Esc always leaves.
 */
export function GrantsView({ grants, onRevoke, onClose, isActive = true, quiet }: GrantsViewProps) {
  const theme = useTheme();
  const [cursor, setCursor] = useState(0);
  const at = Math.min(cursor, Math.max(grants.length - 1, 0));
  const selected = grants[at];
  const gate = useQuietGate(selected ? grantId(selected) : null, quiet);
  const revoked = useRef(new Set<string>()); // asked for, until the list no longer has them
  const listed = new Set(grants.map(grantId));
  for (const id of revoked.current) if (!listed.has(id)) revoked.current.delete(id);

  useKeys(
    (read) => {
      if (read.keys.some((k) => k.name === 'escape')) return onClose?.();
      let pos = at;
      for (const key of read.keys) {
        if (key.name === 'up' || key.text === 'k') pos = Math.max(pos - 1, 0);
        else if (key.name === 'down' || key.text === 'j') pos = Math.min(pos + 1, grants.length - 1);
      }
      if (pos !== at) setCursor(pos);
      // X alone in its read: "x\r" is typed on, not a press meant for this list.
      const [key] = read.keys;
      const revoke = pos === at && selected && read.keys.length === 1 && key?.name === 'char' && (key.text === 'x' || key.text === 'X');
      gate.offer(
        read,
        revoke
          ? () => {
              const id = grantId(selected);
              if (revoked.current.has(id)) return;
              revoked.current.add(id);
              onRevoke(selected);
            }
          : undefined,
      );
    },
    { isActive, now: quiet?.now, onArrive: gate.arrived },
  );

  // The tools' words, as text: no control character of theirs reaches the terminal.
  const shown = grants.map((g) => ({ tool: printable(g.tool), key: printable(g.key), where: printable((g.scope === 'session' ? g.session : g.root) ?? '') }));
  const width = Math.max(4, ...shown.map((g) => g.tool.length)) + 2;
  const keyWidth = Math.min(40, Math.max(8, ...shown.map((g) => g.key.length))) + 2;
  return (
    <Box flexDirection="column">
      <Text bold>Remembered approvals: approved again without asking</Text>
      {grants.length === 0 ? <Text color={theme.muted}>Nothing is remembered: every confirm asks.</Text> : null}
      {grants.map((g, i) => (
        <Text key={grantId(g)}>
          <Text bold={i === at}>
            {i === at ? '› ' : '  '}
            {shown[i]!.tool.padEnd(width)}
          </Text>
          <Text>{shown[i]!.key.padEnd(keyWidth)}</Text>
          <Text color={theme.muted}>
            · this {g.scope} ({shown[i]!.where}) · since {since(g.at)}
          </Text>
        </Text>
      ))}
      {gate.ignored ? <Text color={theme.paused}>{GRANTS_IGNORED_HINT}</Text> : null}
      <Text color={theme.muted}>{grants.length > 0 ? GRANTS_HINT : 'Esc back'}</Text>
    </Box>
  );
}
