/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
import { Box, useApp } from 'ink';
import { useCallback, useEffect, useRef } from 'react';
import type { TaskLoop } from '../../node/index.js';
import {
  answerPause,
  PauseIndicator,
  TaskProgress,
  useSessionState,
  type PauseDecision,
  type RememberChoice,
} from '../src/index.js';
import { StatusLine } from './StatusLine.js';
import { Transcript } from './Transcript.js';
import { useTranscript } from './useTranscript.js';

export interface TasksAppProps {
  loop: TaskLoop;
  intro: string;
  settleMs?: number;
}

/**
 * TasksApp: runs a task loop (seed 001) once mounted. TaskProgress owns the keys, except while
 * a tool asks the user something: then its PauseIndicator does. The pause
 * between tasks is the loop's, answered through TaskProgress.
 */
export function TasksApp({ loop, intro, settleMs }: TasksAppProps) {
  const { exit } = useApp();
  const session = loop.session;
  const { entries, add } = useTranscript(session, intro);
  const state = useSessionState(session);
  const toolPause = state.pauseInfo && state.pauseInfo.source !== 'task' ? state.pauseInfo : null;

  const onError = useCallback(
    (error: unknown) => add({ kind: 'error', text: String((error as Error).message ?? error), done: true }),
    [add],
  );

  const started = useRef(false);
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    loop.run().catch(onError);
  }, [loop, onError]);

  const onDecision = useCallback(
    (decision: PauseDecision, pauseId: string, remember?: RememberChoice) => {
      try {
        answerPause(session, decision, pauseId, remember);
      } catch (error) {
        onError(error);
      }
    },
    [session, onError],
  );

  return (
    <Box flexDirection="column">
      <Transcript entries={entries} />
      <Box marginTop={1} flexDirection="column">
        {toolPause ? <PauseIndicator pause={toolPause} onDecision={onDecision} settleMs={settleMs} /> : null}
        <StatusLine state={state} id={session.id} />
        <TaskProgress loop={loop} onQuit={exit} onError={onError} isActive={!toolPause} settleMs={settleMs} />
      </Box>
    </Box>
  );
}
