// Terminal input as keys. A terminal read can carry several keys ("n\r",
// a flood of "yY \r", a paste) and Ink hands such a read over as one string;
// Ink also reads ESC followed by a key in the same read as Alt+key. Answer
// handling needs single keys and must never lose an Esc, so input is split
// here first.

/** What a key is. `char` is one printable character; `paste` is bracketed-paste text. */
export type KeyName =
  | 'escape'
  | 'return'
  | 'space'
  | 'tab'
  | 'backspace'
  | 'delete'
  | 'up'
  | 'down'
  | 'left'
  | 'right'
  | 'home'
  | 'end'
  | 'pageup'
  | 'pagedown'
  | 'insert'
  | 'backtab'
  | 'function'
  | 'ctrl'
  | 'char'
  | 'paste';

/** One key of terminal input. */
export interface Key {
  name: KeyName;
  /** The character of a `char` or `space` key, the letter of a `ctrl` key ("c" for Ctrl+C), the text of a `paste`; else "". */
  text: string;
  /** The bytes the terminal sent for it. */
  sequence: string;
}

const ESC = '\u001B';
const PASTE_START = `${ESC}[200~`;
const PASTE_END = `${ESC}[201~`;

// CSI final bytes of cursor keys (with or without modifiers: ESC[1;5A).
const CSI_LETTER: Record<string, KeyName> = {
  A: 'up',
  B: 'down',
  C: 'right',
  D: 'left',
  H: 'home',
  F: 'end',
  Z: 'backtab',
};
// CSI n ~ keys (xterm, rxvt, linux console).
const CSI_TILDE: Record<string, KeyName> = {
  '1': 'home',
  '2': 'insert',
  '3': 'delete',
  '4': 'end',
  '5': 'pageup',
  '6': 'pagedown',
  '7': 'home',
  '8': 'end',
};
// SS3 keys: application cursor mode and F1-F4.
const SS3: Record<string, KeyName> = {
  A: 'up',
  B: 'down',
  C: 'right',
  D: 'left',
  H: 'home',
  F: 'end',
  P: 'function',
  Q: 'function',
  R: 'function',
  S: 'function',
};

/**
 * knownSequence returns the key of the complete escape sequence at input[i]
 * (which is ESC) and its length, or null when the input there is not a
 * complete key sequence this reader knows. Unknown means Esc: an Esc must
 * never be swallowed into something else.
 */
function knownSequence(input: string, i: number): { key: Key; length: number } | null {
  const kind = input[i + 1];
  if (kind === '[') {
    let j = i + 2;
    // Parameter bytes 0-9 ; : < = > ?
    while (j < input.length && input.charCodeAt(j) >= 0x30 && input.charCodeAt(j) <= 0x3f) j++;
    const final = input[j];
    if (final === undefined) return null;
    const params = input.slice(i + 2, j);
    const sequence = input.slice(i, j + 1);
    let name: KeyName | undefined;
    if (final === '~') {
      const first = params.split(';')[0] ?? '';
      const number = Number(first);
      name = CSI_TILDE[first] ?? (number >= 11 && number <= 34 ? 'function' : undefined);
      if (sequence === PASTE_START) return { key: { name: 'paste', text: '', sequence }, length: sequence.length };
    } else if (/^(1(;\d+)?)?$/.test(params)) {
      name = CSI_LETTER[final];
    }
    return name ? { key: { name, text: '', sequence }, length: sequence.length } : null;
  }
  if (kind === 'O') {
    const final = input[i + 2];
    const name = final === undefined ? undefined : SS3[final];
    return name ? { key: { name, text: '', sequence: input.slice(i, i + 3) }, length: 3 } : null;
  }
  return null;
}

function controlKey(ch: string): Key {
  switch (ch) {
    case '\r':
    case '\n':
      return { name: 'return', text: '', sequence: ch };
    case '\t':
      return { name: 'tab', text: '', sequence: ch };
    case '\u007F':
    case '\b':
      return { name: 'backspace', text: '', sequence: ch };
    default:
      // Ctrl+A..Ctrl+Z and the rest of C0: name the letter (Ctrl+C -> "c").
      return { name: 'ctrl', text: String.fromCharCode(ch.charCodeAt(0) + 0x60), sequence: ch };
  }
}

/**
 * KeyReader splits terminal input into keys. It keeps state between reads
 * only for a bracketed paste (ESC[200~ ... ESC[201~), which may span reads;
 * everything else is judged within the read it came in: an ESC that does not
 * start a complete known sequence is an Esc key, and what follows it is read
 * as keys of its own ("\x1by" is Esc, then y).
 */
export class KeyReader {
  private paste: string | null = null;

  /** read returns the keys of one piece of input, in order. */
  read(chunk: string): Key[] {
    // A paste still open goes on with this chunk (its end may have been split).
    const input = this.paste === null ? chunk : PASTE_START + this.paste + chunk;
    this.paste = null;
    const keys: Key[] = [];
    let i = 0;
    while (i < input.length) {
      const ch = String.fromCodePoint(input.codePointAt(i)!);
      if (ch === ESC) {
        const known = knownSequence(input, i);
        if (!known) {
          keys.push({ name: 'escape', text: '', sequence: ESC });
          i += 1;
          continue;
        }
        if (known.key.name !== 'paste') {
          keys.push(known.key);
          i += known.length;
          continue;
        }
        const start = i + known.length;
        const end = input.indexOf(PASTE_END, start);
        if (end === -1) {
          const text = input.slice(start);
          // An ESC that ends a read while a paste is open is the Esc key: a
          // paste whose end never came (a terminal or link that lost it)
          // must not swallow the stop key, whether the Esc comes in a read
          // of its own or at the end of the paste's last one. A paste's own
          // ESC ends a read only if the read was cut right after it (then
          // it stops: the safe way to be wrong).
          if (text.endsWith(ESC)) {
            keys.push({ name: 'paste', text: text.slice(0, -1), sequence: input.slice(i, -1) });
            keys.push({ name: 'escape', text: '', sequence: ESC });
          } else {
            this.paste = text;
          }
          break;
        }
        const text = input.slice(start, end);
        keys.push({ name: 'paste', text, sequence: input.slice(i, end + PASTE_END.length) });
        i = end + PASTE_END.length;
        continue;
      }
      if (ch === ' ') keys.push({ name: 'space', text: ' ', sequence: ch });
      else if (ch < ' ' || ch === '\u007F') keys.push(controlKey(ch));
      else keys.push({ name: 'char', text: ch, sequence: ch });
      i += ch.length;
    }
    return keys;
  }

  /** pasting reports whether a bracketed paste has started and not ended. */
  get pasting(): boolean {
    return this.paste !== null;
  }
}

/** readKeys splits one piece of input into keys (a paste must be complete in it). */
export function readKeys(input: string): Key[] {
  return new KeyReader().read(input);
}

/**
 * isBurst reports whether one read carried more than a person types between
 * two reads: a paste, two or more printable characters, or more than two
 * keys. Such a read is pasted text or a flood that piled up while the
 * process was busy, never an answer. A key with Enter ("n\r") is not one.
 */
export function isBurst(keys: readonly Key[]): boolean {
  if (keys.length > 2) return true;
  let printable = 0;
  for (const key of keys) {
    if (key.name === 'paste') return true;
    if (key.name === 'char' || key.name === 'space') printable++;
  }
  return printable >= 2;
}
