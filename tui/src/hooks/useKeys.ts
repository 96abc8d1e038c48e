import { useStdin } from 'ink';
import { useEffect, useRef } from 'react';
import { KeyReader, type Key } from '../input/keys.js';
import { monotonicNow, type KeyRead } from '../input/quiet.js';

export interface UseKeysOptions {
  /** False stops listening (another part owns input). Default true. */
  isActive?: boolean;
  /** Clock the reads are stamped with, ms. Default: a monotonic clock. */
  now?: () => number;
  /** Called at once for every piece of input, before the read is handed over (see useQuietGate's arrived). */
  onArrive?: () => void;
}

/**
 * useKeys calls onRead with the keys of each terminal read, split into
 * single keys (see KeyReader) and stamped with their arrival time. Unlike
 * Ink's useInput it never merges keys: "n\r" is N then Enter, and "\x1by"
 * (what Ink and tmux make of Esc followed quickly by y) is Esc then y.
 *
 * What arrives within one turn of the event loop is one read: Ink emits
 * the pieces of a terminal read synchronously, except an Esc at the end of
 * it, which it holds for one turn (to tell it from the start of a longer
 * sequence). Pieces are gathered until the turn after that, so "y" + Esc in
 * one terminal read is one read holding an Esc, never a y first.
 */
export function useKeys(onRead: (read: KeyRead) => void, { isActive = true, now = monotonicNow, onArrive }: UseKeysOptions = {}): void {
  const { setRawMode, internal_eventEmitter: events } = useStdin();
  const handler = useRef(onRead);
  handler.current = onRead;
  const clock = useRef(now);
  clock.current = now;
  const arrive = useRef(onArrive);
  arrive.current = onArrive;

  useEffect(() => {
    if (!isActive) return;
    setRawMode(true);
    return () => setRawMode(false);
  }, [isActive, setRawMode]);

  useEffect(() => {
    if (!isActive || !events) return;
    const reader = new KeyReader();
    let pending: { keys: Key[]; at: number } | null = null;
    let live = true;
    let timer: NodeJS.Immediate | null = null;
    const onInput = (data: string) => {
      arrive.current?.();
      if (!pending) {
        const read: { keys: Key[]; at: number } = { keys: [], at: clock.current() };
        pending = read;
        // Two turns: Ink's flush of a held Esc is scheduled after this one.
        timer = setImmediate(() => {
          timer = setImmediate(() => {
            timer = null;
            pending = null;
            if (live && read.keys.length > 0) handler.current(read);
          });
        });
      }
      pending.keys.push(...reader.read(data));
    };
    events.on('input', onInput);
    return () => {
      live = false;
      if (timer) clearImmediate(timer);
      events.removeListener('input', onInput);
    };
  }, [isActive, events]);
}
