// Semantic colours of the Interlock TUI. Components name what a colour means
// (paused, danger), never a literal colour, so a palette change is one edit.
// Meaning is never carried by colour alone: every coloured state also has a
// glyph or words (⏸, ⚠️, ✓, ✗, [PAUSE MODE], "Stopped by you").

import { createContext, createElement, useContext, type ReactNode } from 'react';

/** Colours by meaning; values are Ink/chalk colour names. */
export const theme = {
  /** A continue pause and the task loop's [PAUSE MODE]: waiting, nothing wrong. */
  paused: 'yellow',
  /** A confirm pause, a failed task, a denied or failed tool. */
  danger: 'red',
  /** The agent is working: spinner, running task. */
  active: 'cyan',
  /** Finished well: completed task, approved action. */
  success: 'green',
  /** A run stopped mid-way (the interruption label). */
  interrupted: 'magenta',
  /** Secondary text: key hints, placeholders, tool output. */
  muted: 'gray',
} as const;

export type ThemeColor = (typeof theme)[keyof typeof theme];

/** Theme is the palette components draw with: a colour name per meaning, or undefined when colours are off. */
export type Theme = { readonly [K in keyof typeof theme]: ThemeColor | undefined };

/** noColorTheme has no colours: text keeps its glyphs, words, bold and inverse. */
export const noColorTheme: Theme = Object.freeze({
  paused: undefined,
  danger: undefined,
  active: undefined,
  success: undefined,
  interrupted: undefined,
  muted: undefined,
});

/**
 * colorsWanted reads the user's wish from the environment: FORCE_COLOR
 * ("0"/"false" off, anything else on) wins over NO_COLOR (any non-empty
 * value: off), as in Node itself. Whether the terminal can show colours is
 * still up to Ink (chalk) when they are wanted.
 */
export function colorsWanted(env: Record<string, string | undefined> = process.env): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force !== 'false';
  return !env.NO_COLOR;
}

/** themeFor returns the palette for env (see colorsWanted). */
export function themeFor(env: Record<string, string | undefined> = process.env): Theme {
  return colorsWanted(env) ? theme : noColorTheme;
}

const ThemeContext = createContext<Theme | null>(null);

/** ThemeProvider sets the palette of the components under it (default: themeFor(process.env)). */
export function ThemeProvider({ theme: value, children }: { theme: Theme; children?: ReactNode }) {
  return createElement(ThemeContext.Provider, { value }, children);
}

/** useTheme returns the palette in effect: a ThemeProvider's, else the environment's. */
export function useTheme(): Theme {
  return useContext(ThemeContext) ?? themeFor();
}
