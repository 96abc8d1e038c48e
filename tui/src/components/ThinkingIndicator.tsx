/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
import { Text } from 'ink';
import { useEffect, useState } from 'react';
import { useTheme } from '../theme.js';

/** Braille spinner frames. */
export const SPINNER_FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'] as const;

export interface ThinkingIndicatorProps {
  /** Default "Thinking...". */
  label?: string;
  /** Default "(Esc to stop)". */
  hint?: string;
  /** Frame time, ms. Default 80. */
  intervalMs?: number;
  /** False freezes the glyph and stops the timer (e.g. while hidden). Default true. */
  animate?: boolean;
}

/**
 * ThinkingIndicator renders "⠋ Thinking... (Esc to stop)". Only the glyph
 * changes between frames, and its timer runs only while it is mounted and
 * animating, so an app that is not running costs nothing.
 */
export function ThinkingIndicator({
  label = 'Thinking...',
  hint = '(Esc to stop)',
  intervalMs = 80,
  animate = true,
}: ThinkingIndicatorProps) {
  const theme = useTheme();
  const [frame, setFrame] = useState(0);
  useEffect(() => {
    if (!animate) return;
    const timer = setInterval(() => setFrame((f) => (f + 1) % SPINNER_FRAMES.length), intervalMs);
    return () => clearInterval(timer);
  }, [animate, intervalMs]);
  return (
    <Text>
      <Text color={theme.active}>{SPINNER_FRAMES[frame]}</Text> {label}
      {hint ? <Text color={theme.muted}> {hint}</Text> : null}
    </Text>
  );
}
