// Engine-supplied strings (commands, messages, tool names, grant keys,
// session ids) come from a model or a tool's output. Written to a terminal
// as they are, their control characters act instead of showing: a carriage
// return or backspaces write over the command a confirm shows, an ESC
// sequence conceals it or talks to the terminal (OSC 52 writes the
// clipboard), a right-to-left override reorders it.

// C0 controls but tab and newline, DEL, C1 controls, and the bidirectional marks, overrides and isolates.
const ACTED_ON = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * printable returns text as a terminal should show it: every character a
 * terminal would act on is replaced by a visible sign (a carriage return
 * by ␍, ESC by ␛, the other C0 controls by their Control Pictures, DEL by
 * ␡, the rest as <U+XXXX>); newlines and tabs stay.
 */
export function printable(text: string): string {
  return text.replace(ACTED_ON, (c) => {
    const code = c.charCodeAt(0);
    if (code < 0x20) return String.fromCharCode(0x2400 + code);
    if (code === 0x7f) return '\u2421';
    return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
  });
}
