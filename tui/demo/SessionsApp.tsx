/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
import { Box, Text, useApp, useInput } from 'ink';
import { useEffect, useMemo, useState } from 'react';
import type { Engine, Grant, RunResult, Session } from '../../node/index.js';
import {
  ContinueBar,
  GlobalControls,
  GrantsView,
  InputTransition,
  printable,
  SessionsView,
  useEngineState,
  useSessionState,
  useTheme,
} from '../src/index.js';
import { StatusLine } from './StatusLine.js';
import { Transcript } from './Transcript.js';
import { useTranscript } from './useTranscript.js';

export interface SessionsAppProps {
  engine: Engine;
  /** The first lines: what the demo is, where the web UI is. */
  intro: string[];
  settleMs?: number;
}

/**
 * SessionsApp: every session of the engine in a list (Enter opens one, Tab
 * goes back), with Emergency stop and Resume all in the header, and G for
 * the approvals remembered with [S] or [P] (X takes one back). The same
 * engine serves the web UI: both show the same state.
 */
export function SessionsApp({ engine, intro, settleMs }: SessionsAppProps) {
  const { exit } = useApp();
  const theme = useTheme();
  const state = useEngineState(engine);
  const [open, setOpen] = useState<string | null>(null);
  const [grantsOpen, setGrantsOpen] = useState(false);
  const [notice, setNotice] = useState('');

  const act = (what: string, fn: () => string) => {
    try {
      setNotice(`${what}: ${fn()}`);
    } catch (err) {
      setNotice(`${what} failed: ${(err as Error).message}`);
    }
  };
  const list = (ids: string[], none: string) => (ids.length ? ids.join(', ') : none);

  return (
    <Box flexDirection="column">
      {intro.map((line) => (
        <Text key={line} color={theme.muted}>
          {line}
        </Text>
      ))}
      {grantsOpen ? (
        <GrantsScreen
          engine={engine}
          settleMs={settleMs}
          onNotice={setNotice}
          onBack={() => {
            setNotice('');
            setGrantsOpen(false);
          }}
        />
      ) : open === null ? (
        <SessionsView
          sessions={state.sessions}
          counts={state.counts}
          onOpen={(id) => {
            setNotice('');
            setOpen(id);
          }}
          onEmergencyStop={() => act('Emergency stop', () => `stopped ${list(engine.emergencyStop().stopped, 'nothing (none was proceeding)')}`)}
          onResumeAll={(ids) =>
            act('Resume all', () => {
              const { resumed, skipped } = engine.resumeAll(ids);
              const left = Object.entries(skipped).map(([id, why]) => `${id} (${why})`);
              return `resumed ${list(resumed, 'nothing')}${left.length ? `; left ${left.join(', ')}` : ''}`;
            })
          }
          onGrants={() => {
            setNotice('');
            setGrantsOpen(true);
          }}
          onQuit={exit}
          reserveRows={intro.length + 1}
        />
      ) : (
        <SessionScreen
          key={open}
          session={engine.session(open)}
          row={state.sessions.find((s) => s.id === open)}
          counts={state.counts}
          settleMs={settleMs}
          onBack={() => setOpen(null)}
          onQuit={exit}
        />
      )}
      {notice ? <Text color={theme.muted}>{printable(notice)}</Text> : null}
    </Box>
  );
}

interface GrantsScreenProps {
  engine: Engine;
  settleMs?: number;
  onNotice: (text: string) => void;
  onBack: () => void;
}

/**
 * GrantsScreen: what engine.grants() lists, each revoked with X through
 * engine.revokeGrant(). The list is read again at every grants_changed
 * event, whoever changed them (X here, the web UI, code, a session's close).
 */
function GrantsScreen({ engine, settleMs, onNotice, onBack }: GrantsScreenProps) {
  const theme = useTheme();
  const [changes, setChanges] = useState(0);
  useEffect(() => {
    const changed = () => setChanges((n) => n + 1);
    engine.on('grants_changed', changed);
    return () => void engine.off('grants_changed', changed);
  }, [engine]);
  const listed = useMemo((): { grants: Grant[]; error?: string } => {
    try {
      return { grants: engine.grants() };
    } catch (err) {
      return { grants: [], error: `Could not list the remembered approvals: ${(err as Error).message}` };
    }
  }, [engine, changes]);
  const revoke = (g: Grant) => {
    try {
      engine.revokeGrant(g);
      onNotice(`Revoked ${g.tool}: ${g.key} — the next such confirm asks again`);
    } catch (err) {
      onNotice(`Revoke failed: ${(err as Error).message}`);
    }
  };
  return (
    <Box flexDirection="column" marginTop={1}>
      {listed.error ? <Text color={theme.danger}>{listed.error}</Text> : null}
      <GrantsView grants={listed.grants} onRevoke={revoke} onClose={onBack} quiet={settleMs === undefined ? undefined : { settleMs }} />
    </Box>
  );
}

interface SessionScreenProps {
  session: Session;
  row: ReturnType<typeof useEngineState>['sessions'][number] | undefined;
  counts: ReturnType<typeof useEngineState>['counts'];
  settleMs?: number;
  onBack: () => void;
  onQuit: () => void;
}

function SessionScreen({ session, row, counts, settleMs, onBack, onQuit }: SessionScreenProps) {
  const theme = useTheme();
  const { entries, add } = useTranscript(session, `Session ${session.id}: Tab goes back to the list.`);
  const state = useSessionState(session);
  const offersContinue = row?.eligible === true;
  // Tab is the only key this screen reads; the input line or the Continue bar owns the rest.
  useInput((_input, key) => {
    if (key.tab) onBack();
  });

  const run = (start: () => Promise<RunResult>) =>
    start().then(
      (result) => {
        if (result.outcome === 'failed') add({ kind: 'error', text: `Run failed: ${result.error?.message}`, done: true });
      },
      (error: Error) => add({ kind: 'error', text: `Could not start: ${error.message}`, done: true }),
    );

  return (
    <Box flexDirection="column">
      <GlobalControls counts={counts} />
      <Transcript entries={entries} />
      <Box marginTop={1} flexDirection="column">
        <StatusLine state={state} id={session.id} />
        {row ? <ContinueBar session={row} onContinue={() => run(() => session.continue())} /> : null}
        <InputTransition
          session={session}
          isActive={!offersContinue}
          onSubmit={(text) => {
            add({ kind: 'user', text, done: true });
            run(() => session.prompt(text));
          }}
          onQuit={onQuit}
          settleMs={settleMs}
          placeholder="Type a prompt and press Enter (Tab: sessions, q quits)"
          onError={(error) => add({ kind: 'error', text: String((error as Error).message ?? error), done: true })}
        />
        <Text color={theme.muted}>Tab sessions{offersContinue ? '  C continue' : ''}</Text>
      </Box>
    </Box>
  );
}
