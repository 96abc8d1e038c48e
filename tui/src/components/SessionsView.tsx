/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
import { Box, Text, useStdout } from 'ink';
import { useEffect, useReducer, useState } from 'react';
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
  /** R, then Y in the confirmation that lists what it resumes: ids are the sessions it listed (pass them to engine.resumeAll(ids)). */
  onResumeAll?: (ids: string[]) => void;
  /** G: the remembered approvals (GrantsView). The key and its hint are there only with this prop. */
  onGrants?: () => void;
  /** q: the app's quit key. */
  onQuit?: () => void;
  /** Whether the view owns keyboard input. Default true. */
  isActive?: boolean;
  /** The quiet period of the Resume all confirmation (see useQuietGate). */
  quiet?: QuietGateOptions;
  /**
   * Terminal rows the app shows around the view (its own lines above and
   * below). The list is cut to the rest of the terminal's height around the
   * cursor, saying how many more are above and below. Default 0.
   */
  reserveRows?: number;
}

// Lines of the view besides the list: the controls, the gap, the hint
// (and Ink's last newline); the Resume all confirmation's box.
const VIEW_ROWS = 4;
const CONFIRM_ROWS = 5;

/**
 * useTerminalRows is the terminal's height, again at every resize;
 * undefined when the output is no terminal.
 */
function useTerminalRows(): number | undefined {
  const { stdout } = useStdout();
  const [, resized] = useReducer((n: number) => n + 1, 0);
  useEffect(() => {
    stdout.on('resize', resized);
    return () => void stdout.off('resize', resized);
  }, [stdout]);
  return stdout.rows || undefined;
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
export function SessionsView({ sessions, counts, onOpen, onEmergencyStop, onResumeAll, onGrants, onQuit, isActive = true, quiet, reserveRows = 0 }: SessionsViewProps) {
  const theme = useTheme();
  const rows = useTerminalRows();
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

  // A list taller than the terminal would scroll the controls and the
  // cursor's row out of sight (and Ink redraws the whole screen at every
  // change): it is cut around the cursor. Each row is one line.
  const fit = rows === undefined ? Infinity : rows - reserveRows - VIEW_ROWS - (confirming ? CONFIRM_ROWS : 0);
  let first = 0;
  let shown = sessions.length;
  if (sessions.length > fit) {
    shown = Math.max(fit - 2, 1); // a line each for how many more above and below
    first = Math.min(Math.max(at - Math.floor(shown / 2), 0), sessions.length - shown);
  }
  const windowed = shown < sessions.length;
  const more = (n: number, arrow: string) => <Text color={theme.muted}>{n > 0 ? `  ${arrow} ${n} more` : ' '}</Text>;

  // Ids and what a session waits for are the host's and the tools' words: text only.
  const width = Math.max(8, ...sessions.slice(first, first + shown).map((s) => printable(s.id).length)) + 2;
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
            if (resume) onResumeAll?.(eligible);
          }}
        />
      ) : null}
      <Box flexDirection="column" marginTop={1}>
        {sessions.length === 0 ? <Text color={theme.muted}>No sessions</Text> : null}
        {windowed ? more(first, '↑') : null}
        {sessions.slice(first, first + shown).map((s, j) => {
          const i = first + j;
          return (
            <Text key={s.id} wrap={windowed ? 'truncate-end' : 'wrap'}>
              <Text bold={i === at}>{i === at ? '› ' : '  '}{printable(s.id).padEnd(width)}</Text>
              <Text color={badgeColor(s.runState, theme)}>{RUN_STATE_BADGES[s.runState] ?? s.runState}</Text>
              {s.reasonLabel ? <Text> · {s.reasonLabel}</Text> : null}
              {s.waitingFor ? <Text color={theme.paused}> · waiting for: {printable(s.waitingFor)}</Text> : null}
            </Text>
          );
        })}
        {windowed ? more(sessions.length - first - shown, '↓') : null}
      </Box>
      <Text color={theme.muted}>{confirming ? 'Y resume  N or Esc cancel' : onGrants ? SESSIONS_HINT.replace('  q quit', '  G approvals  q quit') : SESSIONS_HINT}</Text>
    </Box>
  );
}
