// Test helpers around ink-testing-library.

import { cleanup as inkCleanup, render as inkRender } from 'ink-testing-library';
import type { ReactElement } from 'react';
import { stripVTControlCharacters } from 'node:util';

/** Real key sequences as a terminal sends them. */
export const KEY = { enter: '\r', escape: '\u001B', space: ' ', down: '\u001B[B', up: '\u001B[A' } as const;

/**
 * tick lets pending work run: React's passive effects (subscriptions, input
 * listeners) and Ink's flush of a lone Esc, which waits one setImmediate to
 * tell it from the start of an escape sequence. It orders nothing by time.
 */
export async function tick(times = 4): Promise<void> {
  for (let i = 0; i < times; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * cleanup unmounts everything rendered so far. Call it in afterEach: a test
 * that fails before its unmount would otherwise keep stdin open and the
 * test process alive.
 */
export function cleanup(): void {
  inkCleanup();
}

/** render mounts tree, waits for its effects, and adds frame(): the last frame without ANSI codes. */
export async function render(tree: ReactElement) {
  const result = inkRender(tree);
  await tick();
  return {
    ...result,
    frame: () => stripVTControlCharacters(result.lastFrame() ?? ''),
    /**
     * press writes key sequences one by one (each its own read, like typing)
     * and waits for them, and for answers held for holdMs={0} to act.
     */
    press: async (...keys: string[]) => {
      for (const key of keys) {
        result.stdin.write(key);
        await tick();
        await new Promise((resolve) => setTimeout(resolve, 2));
        await tick();
      }
    },
  };
}

/** A clock tests move by hand (for the settle guard). */
export function manualClock(start = 1_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}
