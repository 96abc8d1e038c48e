import { useStdin, useStdout } from 'ink';
import { useEffect, useRef } from 'react';
import { KeyReader } from '../input/keys.js';
import { monotonicNow, type KeyRead } from '../input/quiet.js';

export interface UseKeysOptions {
  /** False stops listening (another part owns input). Default true. */
  isActive?: boolean;
  /** Clock the reads are stamped with, ms. Default: a monotonic clock. */
  now?: () => number;
  /** Called at once for every read, before it is handed over (see useQuietGate's arrived). */
  onArrive?: () => void;
}

const BRACKETED_PASTE_ON = '\u001B[?2004h';
const BRACKETED_PASTE_OFF = '\u001B[?2004l';

// How many parts own input on each terminal: bracketed paste stays on until the last lets go.
const pasteOwners = new WeakMap<NodeJS.WriteStream, number>();

function holdBracketedPaste(stdout: NodeJS.WriteStream): () => void {
  if (!stdout.isTTY) return () => {};
  const owners = pasteOwners.get(stdout) ?? 0;
  pasteOwners.set(stdout, owners + 1);
  if (owners === 0) stdout.write(BRACKETED_PASTE_ON);
  return () => {
    const left = (pasteOwners.get(stdout) ?? 1) - 1;
    pasteOwners.set(stdout, left);
    if (left === 0) stdout.write(BRACKETED_PASTE_OFF);
  };
}

/**
 * useKeys calls onRead with the keys of each terminal read, split into
 * single keys (see KeyReader) and stamped with their arrival time. Unlike
 * Ink's useInput it never merges or splits a read: "n\r" is one read of N
 * then Enter, "y\x1b" one read holding an Esc, and "\x1by" (what Ink and
 * tmux make of Esc followed quickly by y) is Esc then y.
 *
 * While active it puts stdin in raw mode through Ink and turns the
 * terminal's bracketed paste on (ESC[?2004h; off again when the last part
 * that owns input lets go), so pasted text arrives marked as a paste and
 * never answers anything, even a one-letter paste. It reads the stdin Ink
 * was given through its 'data' events, which Node emits for every chunk
 * Ink reads: only Ink's public useStdin and useStdout are used.
 */
export function useKeys(onRead: (read: KeyRead) => void, { isActive = true, now = monotonicNow, onArrive }: UseKeysOptions = {}): void {
  const { stdin, setRawMode } = useStdin();
  const { stdout } = useStdout();
  const handler = useRef(onRead);
  handler.current = onRead;
  const clock = useRef(now);
  clock.current = now;
  const arrive = useRef(onArrive);
  arrive.current = onArrive;

  useEffect(() => {
    if (!isActive) return;
    // Raw mode first: Ink then reads stdin (in paused mode), so listening for 'data' does not make it flow.
    setRawMode(true);
    const releasePaste = holdBracketedPaste(stdout);
    const reader = new KeyReader();
    const onData = (data: string | Buffer) => {
      const at = clock.current();
      arrive.current?.();
      const keys = reader.read(typeof data === 'string' ? data : data.toString('utf8'));
      if (keys.length > 0) handler.current({ keys, at });
    };
    stdin.on('data', onData);
    return () => {
      stdin.removeListener('data', onData);
      releasePaste();
      setRawMode(false);
    };
  }, [isActive, setRawMode, stdin, stdout]);
}
