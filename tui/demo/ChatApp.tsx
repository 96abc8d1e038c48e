/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
import { Box, useApp } from 'ink';
import type { RunResult, Session } from '../../node/index.js';
import { InputTransition, useSessionState } from '../src/index.js';
import { StatusLine } from './StatusLine.js';
import { Transcript } from './Transcript.js';
import { useTranscript } from './useTranscript.js';

export interface ChatAppProps {
  session: Session;
  intro: string;
  /** Called before each prompt (e.g. to recreate the scratch directory). */
  beforePrompt?: () => void;
  settleMs?: number;
  /** Runs a prompt: session.prompt by default; the demo's own loop with --host loop. */
  run?: (text: string, say: (text: string) => void) => Promise<RunResult>;
}

/** ChatApp: the conversation, a status line and the InputTransition. */
export function ChatApp({ session, intro, beforePrompt, settleMs, run }: ChatAppProps) {
  const { exit } = useApp();
  const { entries, add } = useTranscript(session, intro);
  const state = useSessionState(session);

  const submit = (text: string) => {
    beforePrompt?.();
    add({ kind: 'user', text, done: true });
    const say = (note: string) => add({ kind: 'note', text: note, done: true });
    (run ? run(text, say) : session.prompt(text)).then(
      (result) => {
        if (result.outcome === 'failed') add({ kind: 'error', text: `Run failed: ${result.error?.message}`, done: true });
      },
      (error: Error) => add({ kind: 'error', text: `Could not start: ${error.message}`, done: true }),
    );
  };

  return (
    <Box flexDirection="column">
      <Transcript entries={entries} />
      <Box marginTop={1} flexDirection="column">
        <StatusLine state={state} id={session.id} />
        <InputTransition
          session={session}
          onSubmit={submit}
          onQuit={exit}
          settleMs={settleMs}
          placeholder="Type a prompt and press Enter to run the script (q quits)"
          onError={(error) => add({ kind: 'error', text: String((error as Error).message ?? error), done: true })}
        />
      </Box>
    </Box>
  );
}
