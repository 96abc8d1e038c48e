/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
import { Box, Text } from 'ink';
import { useEffect, useRef, useState } from 'react';
import type { TaskInfo, TaskLoopState } from '../../../node/index.js';
import { useKeys } from '../hooks/useKeys.js';
import { useQuietGate } from '../hooks/useQuietGate.js';
import { useSessionState } from '../hooks/useSessionState.js';
import { useTaskLoopState } from '../hooks/useTaskLoopState.js';
import { DEFAULT_SETTLE_MS, type KeyRead } from '../input/quiet.js';
import { printable } from '../printable.js';
import { useTheme, type Theme } from '../theme.js';
import type { SessionState, TaskLoopLike } from '../types.js';
import { stoppingText } from './InputTransition.js';
import { ThinkingIndicator } from './ThinkingIndicator.js';

export interface TaskProgressProps {
  loop: TaskLoopLike;
  /** "q" pressed. */
  onQuit?: () => void;
  /** A loop call failed. */
  onError?: (error: unknown) => void;
  /** False when something else owns keyboard input (e.g. a tool's pause). Default true. */
  isActive?: boolean;
  /** Task rows shown at once; j/k scroll the rest. Default 10. */
  height?: number;
  /**
   * Quiet period of the keys that move a paused loop on, ms. Default 250:
   * they count only once the pause has been shown and the input quiet this
   * long; every key restarts it.
   */
  settleMs?: number;
  /** Clock of the quiet period (tests inject one). */
  now?: () => number;
  /** An answer waits this long for the input to stay quiet before it acts, ms. Default 150 (see useQuietGate). */
  holdMs?: number;
}

/** The line a paused loop shows while it ignores keys typed into it. */
export const LOOP_IGNORED_HINT = 'Keys ignored while you were typing — press Enter again';

const GLYPH: Record<TaskInfo['status'], { glyph: string; color: keyof Theme }> = {
  pending: { glyph: '○', color: 'muted' },
  running: { glyph: '▶', color: 'active' },
  completed: { glyph: '✓', color: 'success' },
  failed: { glyph: '✗', color: 'danger' },
  interrupted: { glyph: '◌', color: 'interrupted' },
};

/** Errors can span lines ("checking\n[exit code 3]"); a row shows one. */
/** A task's error on one line, as text (a tool's words: no control character reaches the terminal). */
const oneLine = (text: string) => printable(text.replace(/\s*\n\s*/g, ' ').trim());

/** What the loop is doing, as the footer and the keys see it ('resumable': interrupted, Enter resumes it). */
type Phase = 'running' | 'paused' | 'stopping' | 'stopped' | 'resumable' | 'completed';

function phaseOf(loop: TaskLoopState, session: SessionState): Phase {
  if (session.status === 'stopping') return 'stopping';
  if (loop.done) return session.status === 'interrupted' ? 'stopped' : 'completed';
  if (loop.interrupted) return 'resumable';
  if (loop.paused) return 'paused';
  return 'running';
}

/** The keys that do something in each phase (seed 001's help line, trimmed to what works). */
function keyHelp(phase: Phase, pauseMode: boolean): string {
  switch (phase) {
    case 'paused':
      return 'p: continuous mode | Enter: continue | Esc: stop | j/k: scroll | q: quit';
    case 'running':
      return `${pauseMode ? 'p: continuous mode' : 'p: pause mode'} | Esc: stop | j/k: scroll | q: quit`;
    case 'resumable':
      return 'Enter: continue | j/k: scroll | q: quit';
    default:
      return 'j/k: scroll | q: quit';
  }
}

/**
 * TaskProgress shows a task loop (seed 001): the tasks with their status and
 * a footer with the mode, what the loop is doing and the keys that work now.
 * In pause mode it has a yellow border and [PAUSE MODE].
 *
 * Keys: Esc stops the loop (the running task is interrupted); p toggles
 * pause mode (while paused: continuous, and go on); Enter or space continue;
 * n runs the next task and pauses again; c continues all; j/k scroll; q quits.
 * A stopped loop that can be resumed says so, and Enter or space resume it
 * (the cut task goes on, then the rest). Keys that move a paused or stopped
 * loop on obey the quiet period (see settleMs).
 */
export function TaskProgress({
  loop,
  onQuit,
  onError,
  isActive = true,
  height = 10,
  settleMs = DEFAULT_SETTLE_MS,
  now,
  holdMs,
}: TaskProgressProps) {
  const theme = useTheme();
  const state = useTaskLoopState(loop);
  const session = useSessionState(loop.session);
  const phase = phaseOf(state, session);
  const [offset, setOffset] = useState(0);
  const maxOffset = Math.max(0, state.tasks.length - height);
  const pauseKey =
    phase === 'paused' ? `${state.id}:${state.current}` : phase === 'resumable' ? `${state.id}:cut:${session.interruption?.reason}:${state.version}` : null;
  const gate = useQuietGate(pauseKey, { settleMs, holdMs, now });
  // The pause this view already moved on from. loop.continue() names no
  // pause: a second Enter read before the view caught up would release the
  // next pause, one the user never saw, if the next task were quick.
  const answered = useRef<string | null>(null);

  // Follow the running task unless it is already in view.
  useEffect(() => {
    setOffset((o) => {
      const cur = state.current;
      if (cur < 0 || (cur >= o && cur < o + height)) return o;
      return Math.min(Math.max(0, cur - height + 1), maxOffset);
    });
  }, [state.current, height, maxOffset]);

  /** call runs a loop call; it reports a failure to onError and returns whether it worked. */
  const call = (act: () => void): boolean => {
    try {
      act();
      return true;
    } catch (error) {
      onError?.(error);
      return false;
    }
  };

  useKeys(
    (read: KeyRead) => {
      const stoppable = phase === 'running' || phase === 'paused';
      if (stoppable && read.keys.some((key) => key.name === 'escape')) {
        return void call(() => loop.session.interrupt('user_stop'));
      }
      const paused = pauseKey !== null && answered.current !== pauseKey;
      for (const key of read.keys) {
        const input = key.name === 'char' ? key.text : '';
        if (input === 'q') return onQuit?.();
        if (input === 'j' || key.name === 'down') setOffset((o) => Math.min(o + 1, maxOffset));
        else if (input === 'k' || key.name === 'up') setOffset((o) => Math.max(o - 1, 0));
      }
      if (phase !== 'running' && phase !== 'paused' && phase !== 'resumable') return;
      const [key] = read.keys;
      const input = key?.name === 'char' ? key.text : '';
      if (phase === 'resumable') {
        // Enter resumes the stopped loop (its session's continue); an error
        // the engine gives later (the resumed run failing) arrives as events.
        const resume = () => loop.continue()?.catch((error: unknown) => onError?.(error));
        const answering = pauseKey;
        const act = paused && (key?.name === 'return' || key?.name === 'space') ? resume : undefined;
        gate.offer(
          read,
          act &&
            (() => {
              if (answered.current !== answering && call(act)) answered.current = answering;
            }),
          { alone: true },
        );
        return;
      }
      if (!paused) {
        // Running: p toggles the engine's mode, not the rendered one ("p p"
        // typed faster than a render must end where it started); c goes continuous.
        for (const k of read.keys) {
          if (k.name !== 'char') continue;
          if (k.text === 'p') call(() => loop.setPauseMode(!loop.isPauseMode()));
          else if (k.text === 'c') call(() => loop.continueAll());
        }
        return;
      }
      // Keys that move a paused loop on must come after a quiet period (every read restarts it).
      let act: (() => void) | undefined;
      // While paused, leaving pause mode also goes on (seed 001's hotkey flow).
      if (input === 'p' || input === 'c') act = () => loop.continueAll();
      else if (key?.name === 'return' || key?.name === 'space') act = () => loop.continue();
      else if (input === 'n') act = () => loop.continue(); // next task: the same as continue
      const answering = pauseKey;
      gate.offer(
        read,
        act &&
          (() => {
            // One answer per pause (a failed one may be retried).
            if (answered.current !== answering && call(act)) answered.current = answering;
          }),
        // Every key here moves the loop on: each must come alone in its read (never a paste's first key).
        { alone: true },
      );
    },
    { isActive, now, onArrive: gate.arrived },
  );

  const visible = state.tasks.slice(offset, offset + height);
  const pausedTask = phase === 'paused' ? state.tasks[state.current] : undefined;
  const pauseMode = state.pauseMode && (phase === 'running' || phase === 'paused');
  return (
    <Box flexDirection="column" {...(pauseMode ? { borderStyle: 'round', borderColor: theme.paused } : {})}>
      <Text bold>
        Tasks <Text color={theme.muted}>
          {state.completed} completed, {state.failed} failed, {state.tasks.length} total
        </Text>
      </Text>
      {offset > 0 ? <Text color={theme.muted}>  ↑ {offset} more</Text> : null}
      {visible.map((task) => (
        <TaskRow key={task.index} task={task} theme={theme} />
      ))}
      {offset + height < state.tasks.length ? (
        <Text color={theme.muted}>  ↓ {state.tasks.length - offset - height} more</Text>
      ) : null}
      <Box marginTop={1} flexWrap="wrap" justifyContent="space-between">
        <Box flexDirection="column">
          <Text>
            {pauseMode ? (
              <Text color={theme.paused} bold>
                [PAUSE MODE]{' '}
              </Text>
            ) : null}
            <StatusLine state={state} session={session} phase={phase} theme={theme} />
          </Text>
          {pausedTask?.status === 'failed' ? (
            <Text color={theme.danger}>
              Task {state.current + 1} failed: {oneLine(pausedTask.error ?? 'unknown error')}
            </Text>
          ) : null}
          {gate.ignored && phase === 'paused' ? <Text color={theme.paused}>{LOOP_IGNORED_HINT}</Text> : null}
        </Box>
        <Text color={theme.muted}>{keyHelp(phase, state.pauseMode)}</Text>
      </Box>
    </Box>
  );
}

/** StatusLine is the footer's left part: what the loop is doing, and why it stopped. */
function StatusLine({ state, session, phase, theme }: { state: TaskLoopState; session: SessionState; phase: Phase; theme: Theme }) {
  switch (phase) {
    case 'completed':
      return <Text>Completed!</Text>;
    case 'stopped':
      return <Text color={theme.interrupted}>{session.interruption?.label ?? 'Stopped'} — the loop has ended</Text>;
    case 'resumable':
      return (
        <Text color={theme.interrupted}>
          {session.interruption?.label ?? 'Stopped'} at task {state.current + 1} — press Enter to continue the loop
        </Text>
      );
    case 'stopping':
      return <Text color={theme.interrupted}>{stoppingText(session)}</Text>;
    case 'paused':
      return <Text>Task {state.current + 1} complete. Press Enter to continue or 'p' to switch to continuous mode</Text>;
    case 'running': {
      const task = state.tasks[state.current];
      if (!task || task.status !== 'running') return <Text>Starting…</Text>;
      return <ThinkingIndicator label={`Task ${state.current + 1}/${state.tasks.length}: ${printable(task.title)}`} />;
    }
  }
}

function TaskRow({ task, theme }: { task: TaskInfo; theme: Theme }) {
  const { glyph, color } = GLYPH[task.status];
  return (
    <Text>
      {'  '}
      <Text color={theme[color]}>{glyph}</Text> {task.index + 1}. {printable(task.title)}
      {task.status === 'failed' && task.error ? <Text color={theme.danger}> — {oneLine(task.error)}</Text> : null}
    </Text>
  );
}
