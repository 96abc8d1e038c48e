// Semantic colours of the Interlock TUI. Components name what a colour means
// (paused, danger), never a literal colour, so a palette change is one edit.

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
