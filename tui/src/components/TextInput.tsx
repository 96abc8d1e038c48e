/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
import { Text, useInput } from 'ink';
import { useRef, useState } from 'react';
import { theme } from '../theme.js';

export interface TextInputProps {
  placeholder?: string;
  /** Called with the trimmed text on Enter (never with an empty text); the input then clears. */
  onSubmit?: (text: string) => void;
  /** Called when "q" is typed into the empty input (an app's quit key). Without it, "q" is just text. */
  onQuit?: () => void;
  /** Whether this input owns keyboard input. Default true. */
  isActive?: boolean;
}

// Control characters never become text (a paste keeps its printable part).
const CONTROL = /[\u0000-\u001f\u007f]/;

/** TextInput is a one-line prompt: "> " then the text and a block cursor, or a dim placeholder. */
export function TextInput({ placeholder = '', onSubmit, onQuit, isActive = true }: TextInputProps) {
  const [value, setValue] = useState('');
  // Several keys can arrive before a re-render: edit the latest text, not the rendered one.
  const latest = useRef('');
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
  useInput(
    (input, key) => {
      if (key.return) return submit();
      if (key.backspace || key.delete) return update(latest.current.slice(0, -1));
      if (key.ctrl || key.meta || key.escape || key.tab || key.upArrow || key.downArrow) return;
      // A lone "q" keypress (not a paste starting with q) on the empty input quits.
      if (input === 'q' && latest.current === '' && onQuit) return onQuit();
      // One chunk can hold several keys (fast typing, tmux send-keys, a paste):
      // a line break inside it submits what came before.
      let text = latest.current;
      for (const ch of input) {
        if (ch === '\r' || ch === '\n') {
          update(text);
          submit();
          text = latest.current;
        } else if (ch === '\u007f' || ch === '\b') {
          text = text.slice(0, -1);
        } else if (!CONTROL.test(ch)) {
          text += ch;
        }
      }
      if (text !== latest.current) update(text);
    },
    { isActive },
  );
  return (
    <Text>
      <Text color={theme.active}>{'> '}</Text>
      {value ? (
        <>
          {value}
          <Text inverse> </Text>
        </>
      ) : (
        <>
          <Text inverse>{placeholder.slice(0, 1) || ' '}</Text>
          <Text color={theme.muted}>{placeholder.slice(1)}</Text>
        </>
      )}
    </Text>
  );
}
