/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
import { Box, Text } from 'ink';
import { useState } from 'react';
import { useKeys } from '../hooks/useKeys.js';
import { RUN_STATE_BADGES } from '../labels.js';
import { printable } from '../printable.js';
import { useTheme, type Theme } from '../theme.js';
import type { CountsView, RunState, SessionRow } from '../types.js';
import { GlobalControls } from './GlobalControls.js';
import type { QuietGateOptions } from '../hooks/useQuietGate.js';
import { ResumeAllConfirm } from './ResumeAllConfirm.js';

export interface SessionsViewProps {
  sessions: readonly SessionRow[];
  counts: CountsView;
  /** Enter on a session. */
  onOpen?: (id: string) => void;
  /** E: at once, no confirmation (it only stops). */
  onEmergencyStop?: () => void;
  /** R, then Y in the confirmation that lists what it resumes. */
  onResumeAll?: () => void;
  /** G: the remembered approvals (GrantsView). The key and its hint are there only with this prop. */
  onGrants?: () => void;
  /** q: the app's quit key. */
  onQuit?: () => void;
  /** Whether the view owns keyboard input. Default true. */
  isActive?: boolean;
  /** The quiet period of the Resume all confirmation (see useQuietGate). */
  quiet?: QuietGateOptions;
}

/** The key-hint line of the sessions view. */
export const SESSIONS_HINT = '↑/↓ move  Enter open  E emergency stop  R resume all  q quit';

function badgeColor(state: RunState, theme: Theme) {
  switch (state) {
    case 'proceeding':
      return theme.active;
    case 'interrupted':
      return theme.interrupted;
    case 'blocked':
      return theme.paused;
    default:
      return theme.muted;
  }
}

/**
 * SessionsView lists every session, one line each, under the global
 * controls. It renders what it is given and reports keys; it never calls
 * the engine.
 *
 *   [E] Emergency stop (1 proceeding)   [R] Resume all (1 eligible)   1 needs input
 *   › build    Proceeding
 *     tests    Interrupted · Stopped by emergency stop
 *     deploy   Needs input · waiting for: Potentially dangerous command
 *     notes    Idle
 *   ↑/↓ move  Enter open  E emergency stop  R resume all  q quit
 */
export function SessionsView({ sessions, counts, onOpen, onEmergencyStop, onResumeAll, onGrants, onQuit, isActive = true, quiet }: SessionsViewProps) {
  const theme = useTheme();
  const [cursor, setCursor] = useState(0);
  const [confirming, setConfirming] = useState(false);
  const at = Math.min(cursor, Math.max(sessions.length - 1, 0));
  const eligible = sessions.filter((s) => s.eligible).map((s) => s.id);

  useKeys(
    (read) => {
      // Several keys can arrive in one read (a fast typist, a script): move step by step.
      let pos = at;
      const done = () => setCursor(pos);
      for (const key of read.keys) {
        if (key.name === 'up' || key.text === 'k') pos = Math.max(pos - 1, 0);
        else if (key.name === 'down' || key.text === 'j') pos = Math.min(pos + 1, sessions.length - 1);
        else if (key.name === 'return' && sessions[pos]) return done(), onOpen?.(sessions[pos].id);
        else if (key.text === 'e' || key.text === 'E') return done(), onEmergencyStop?.();
        else if ((key.text === 'r' || key.text === 'R') && eligible.length > 0) return done(), setConfirming(true);
        else if ((key.text === 'g' || key.text === 'G') && onGrants) return done(), onGrants();
        else if (key.text === 'q') return done(), onQuit?.();
      }
      done();
    },
    { isActive: isActive && !confirming },
  );

  // Ids and what a session waits for are the host's and the tools' words: text only.
  const width = Math.max(8, ...sessions.map((s) => printable(s.id).length)) + 2;
  return (
    <Box flexDirection="column">
      <GlobalControls counts={counts} />
      {confirming ? (
        <ResumeAllConfirm
          sessions={eligible}
          isActive={isActive}
          quiet={quiet}
          onDecision={(resume) => {
            setConfirming(false);
            if (resume) onResumeAll?.();
          }}
        />
      ) : null}
      <Box flexDirection="column" marginTop={1}>
        {sessions.length === 0 ? <Text color={theme.muted}>No sessions</Text> : null}
        {sessions.map((s, i) => (
          <Text key={s.id}>
            <Text bold={i === at}>{i === at ? '› ' : '  '}{printable(s.id).padEnd(width)}</Text>
            <Text color={badgeColor(s.runState, theme)}>{RUN_STATE_BADGES[s.runState] ?? s.runState}</Text>
            {s.reasonLabel ? <Text> · {s.reasonLabel}</Text> : null}
            {s.waitingFor ? <Text color={theme.paused}> · waiting for: {printable(s.waitingFor)}</Text> : null}
          </Text>
        ))}
      </Box>
      <Text color={theme.muted}>{confirming ? 'Y resume  N or Esc cancel' : onGrants ? SESSIONS_HINT.replace('  q quit', '  G approvals  q quit') : SESSIONS_HINT}</Text>
    </Box>
  );
}
