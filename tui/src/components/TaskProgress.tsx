/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
import { Box, Text, useInput } from 'ink';
import { useEffect, useRef, useState } from 'react';
import type { TaskInfo, TaskLoopState } from '../../../node/index.js';
import { useSettleGuard, DEFAULT_SETTLE_MS } from '../hooks/useSettleGuard.js';
import { useTaskLoopState } from '../hooks/useTaskLoopState.js';
import { theme } from '../theme.js';
import type { TaskLoopLike } from '../types.js';

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
  /** Keys that move the loop on are ignored this long after it pauses, ms. Default 250. */
  settleMs?: number;
  /** Clock for the settle guard (tests inject one). */
  now?: () => number;
}

const GLYPH: Record<TaskInfo['status'], { glyph: string; color?: string }> = {
  pending: { glyph: '○', color: theme.muted },
  running: { glyph: '▶', color: theme.active },
  completed: { glyph: '✓', color: theme.success },
  failed: { glyph: '✗', color: theme.danger },
};

/** Errors can span lines ("checking\n[exit code 3]"); a row shows one. */
const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' ').trim();

/** The footer's left part (seed 001). */
function statusLine(state: TaskLoopState): string {
  if (state.done) return 'Completed!';
  if (state.paused) {
    return `Task ${state.current + 1} complete. Press Enter to continue or 'p' to switch to continuous mode`;
  }
  const task = state.tasks[state.current];
  if (!task) return 'Starting…';
  return `Task ${state.current + 1}/${state.tasks.length}: ${task.title}`;
}

/**
 * TaskProgress shows a task loop (seed 001): the tasks with their status and
 * a footer with the mode, the prompt between tasks and the key help.
 *
 * Keys: p toggles pause mode (while paused: continuous, and go on), Enter or
 * space continue, n runs the next task and pauses again, c continues all,
 * j/k scroll, q quits.
 */
export function TaskProgress({
  loop,
  onQuit,
  onError,
  isActive = true,
  height = 10,
  settleMs = DEFAULT_SETTLE_MS,
  now,
}: TaskProgressProps) {
  const state = useTaskLoopState(loop);
  const [offset, setOffset] = useState(0);
  const maxOffset = Math.max(0, state.tasks.length - height);
  const pauseKey = state.paused ? `${state.id}:${state.current}` : null;
  const isSettled = useSettleGuard(pauseKey, settleMs, now);
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

  useInput(
    (input, key) => {
      if (input === 'q') return onQuit?.();
      if (input === 'j' || key.downArrow) return setOffset((o) => Math.min(o + 1, maxOffset));
      if (input === 'k' || key.upArrow) return setOffset((o) => Math.max(o - 1, 0));
      if (state.done) return;
      const paused = pauseKey !== null && answered.current !== pauseKey;
      // Keys that move the loop on wait for the settle time after a pause.
      if (paused && !isSettled()) return;
      const moveOn = (act: () => void) => {
        // One answer per pause (a failed one may be retried).
        if (call(act) && paused) answered.current = pauseKey;
      };
      if (input === 'p') {
        // While paused, leaving pause mode also goes on (seed 001's hotkey flow).
        // Otherwise toggle the engine's mode, not the rendered one: "p p" typed
        // faster than a render must end where it started.
        if (paused) return moveOn(() => loop.continueAll());
        return void call(() => loop.setPauseMode(!loop.isPauseMode()));
      }
      if (input === 'c') return moveOn(() => loop.continueAll());
      if (!paused) return;
      if (key.return || input === ' ') return moveOn(() => loop.continue());
      if (input === 'n') return moveOn(() => loop.next());
    },
    { isActive },
  );

  const visible = state.tasks.slice(offset, offset + height);
  const pausedTask = state.paused ? state.tasks[state.current] : undefined;
  return (
    <Box flexDirection="column">
      <Text bold>
        Tasks <Text color={theme.muted}>
          {state.completed} completed, {state.failed} failed, {state.tasks.length} total
        </Text>
      </Text>
      {offset > 0 ? <Text color={theme.muted}>  ↑ {offset} more</Text> : null}
      {visible.map((task) => (
        <TaskRow key={task.index} task={task} />
      ))}
      {offset + height < state.tasks.length ? (
        <Text color={theme.muted}>  ↓ {state.tasks.length - offset - height} more</Text>
      ) : null}
      <Box marginTop={1} flexWrap="wrap" justifyContent="space-between">
        <Box flexDirection="column">
          <Text>
            {state.pauseMode && !state.done ? (
              <Text color={theme.paused} bold>
                [PAUSE MODE]{' '}
              </Text>
            ) : null}
            {statusLine(state)}
          </Text>
          {pausedTask?.status === 'failed' ? (
            <Text color={theme.danger}>
              Task {state.current + 1} failed: {oneLine(pausedTask.error ?? 'unknown error')}
            </Text>
          ) : null}
        </Box>
        <Text color={theme.muted}>
          {state.pauseMode ? 'p: continuous mode | Enter: continue | q: quit' : 'p: pause mode | j/k: scroll | q: quit'}
        </Text>
      </Box>
    </Box>
  );
}

function TaskRow({ task }: { task: TaskInfo }) {
  const { glyph, color } = GLYPH[task.status];
  return (
    <Text>
      {'  '}
      <Text color={color}>{glyph}</Text> {task.index + 1}. {task.title}
      {task.status === 'failed' && task.error ? <Text color={theme.danger}> — {oneLine(task.error)}</Text> : null}
    </Text>
  );
}
