/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
import { Box, Text } from 'ink';
import { useEffect, useRef, useState } from 'react';
import { useKeys } from '../hooks/useKeys.js';
import { useQuietGate } from '../hooks/useQuietGate.js';
import { DEFAULT_SETTLE_MS, type KeyRead } from '../input/quiet.js';
import { useTheme } from '../theme.js';

export interface TextInputProps {
  placeholder?: string;
  /** Called with the trimmed text on Enter (never with an empty text); the input then clears. */
  onSubmit?: (text: string) => void;
  /** Called when "q" is typed into the empty input (an app's quit key). Without it, "q" is just text. */
  onQuit?: () => void;
  /** Whether this input owns keyboard input. Default true. */
  isActive?: boolean;
  /**
   * Set (to a new value each time) when the prompt comes back after a run:
   * its first key then counts only once the input has been quiet for
   * settleMs (every key before restarts the wait), so keys typed into the
   * run never type or submit a new prompt. From that key on the prompt is
   * typed as usual, however fast. Null: the prompt takes keys at once.
   */
  guardKey?: string | null;
  /** Quiet period of guardKey, ms. Default 250. */
  settleMs?: number;
  /** Clock of the quiet period (tests inject one). */
  now?: () => number;
  /** Blink period of the placeholder's cursor, ms; 0 keeps it still. Default 530. */
  blinkMs?: number;
}

/** The line the prompt shows while it ignores keys typed into the run before it. */
export const PROMPT_IGNORED_HINT = 'Keys ignored while you were typing — type again';

// Control characters never become text (a paste keeps its printable part).
const CONTROL = /[\u0000-\u001f\u007f]/g;

/**
 * TextInput is a one-line prompt: "> " then the text and a block cursor, or
 * a dim placeholder behind a blinking cursor.
 */
export function TextInput({
  placeholder = '',
  onSubmit,
  onQuit,
  isActive = true,
  guardKey = null,
  settleMs = DEFAULT_SETTLE_MS,
  now,
  blinkMs = 530,
}: TextInputProps) {
  const theme = useTheme();
  const [value, setValue] = useState('');
  // Several keys can arrive before a re-render: edit the latest text, not the rendered one.
  const latest = useRef('');
  const gate = useQuietGate(guardKey, { settleMs, now });
  const armed = useRef<string | null>(null);
  const update = (text: string) => {
    latest.current = text;
    setValue(text);
  };
  const submit = () => {
    const text = latest.current.trim();
    if (!text) return;
    update('');
    onSubmit?.(text);
  };

  /** type edits the text with read's keys; Enter submits unless submits is false. */
  const type = (read: KeyRead, submits = true) => {
      // A lone "q" keypress (not a paste starting with q) on the empty input quits.
      if (onQuit && latest.current === '' && read.keys.length === 1 && read.keys[0]!.name === 'char' && read.keys[0]!.text === 'q') {
        return onQuit();
      }
      let text = latest.current;
      for (const key of read.keys) {
        switch (key.name) {
          case 'return':
            if (!submits) break;
            update(text);
            submit();
            text = latest.current;
            break;
          case 'backspace':
          case 'delete':
            text = text.slice(0, -1);
            break;
          case 'char':
          case 'space':
            text += key.text;
            break;
          case 'paste': // a pasted line break never submits
            text += key.text.replace(/\r\n|\r|\n/g, ' ').replace(CONTROL, '');
            break;
        }
      }
      if (text !== latest.current) update(text);
  };

  useKeys(
    (read: KeyRead) => {
      if (guardKey === null || armed.current === guardKey) return type(read);
      // The first key after a run counts only after a quiet period; then the prompt is typed as usual.
      if (!gate.admit(read)) return;
      armed.current = guardKey;
      // An Enter in that first read ("y\r": a paste, or the tail of keys typed into the run) does not submit.
      type(read, false);
    },
    { isActive, now },
  );

  const cursorOn = useBlink(blinkMs, isActive && value === '');
  const hint = gate.ignored && armed.current !== guardKey ? <Text color={theme.paused}>{PROMPT_IGNORED_HINT}</Text> : null;
  const line = (
    <Text>
      <Text color={theme.active}>{'> '}</Text>
      {value ? (
        <>
          {value}
          <Text inverse> </Text>
        </>
      ) : (
        <>
          <Text inverse={cursorOn} color={cursorOn ? undefined : theme.muted}>
            {placeholder.slice(0, 1) || ' '}
          </Text>
          <Text color={theme.muted}>{placeholder.slice(1)}</Text>
        </>
      )}
    </Text>
  );
  return hint ? (
    <Box flexDirection="column">
      {hint}
      {line}
    </Box>
  ) : (
    line
  );
}

/** useBlink toggles every periodMs while on (true when still); its timer runs only then. */
function useBlink(periodMs: number, on: boolean): boolean {
  const [visible, setVisible] = useState(true);
  useEffect(() => {
    setVisible(true);
    if (!on || periodMs <= 0) return;
    const timer = setInterval(() => setVisible((v) => !v), periodMs);
    return () => clearInterval(timer);
  }, [on, periodMs]);
  return visible;
}
