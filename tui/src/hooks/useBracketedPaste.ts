import { useStdout } from 'ink';
import { useEffect } from 'react';

const ENABLE = '\u001B[?2004h';
const DISABLE = '\u001B[?2004l';

/**
 * useBracketedPaste asks the terminal to mark pasted text (ESC[200~ ...
 * ESC[201~) while the component is mounted, so a paste is known for what it
 * is and never answers a pause, even a one-letter paste. An app calls it
 * once, at its root; it turns the mode off again on unmount.
 */
export function useBracketedPaste(enabled = true): void {
  const { stdout } = useStdout();
  useEffect(() => {
    if (!enabled || !stdout.isTTY) return;
    stdout.write(ENABLE);
    return () => {
      stdout.write(DISABLE);
    };
  }, [enabled, stdout]);
}
