import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isBurst, KeyReader, readKeys, type KeyName } from './keys.js';
import { QuietGate } from './quiet.js';

const ESC = '\u001B';
const names = (input: string) => readKeys(input).map((k) => (k.name === 'char' || k.name === 'paste' ? `${k.name}:${k.text}` : k.name));

describe('readKeys', () => {
  for (const [input, want] of [
    ['n\r', ['char:n', 'return']],
    ['yY \r', ['char:y', 'char:Y', 'space', 'return']],
    [ESC, ['escape']],
    [`${ESC}y`, ['escape', 'char:y']],
    [`${ESC}\r`, ['escape', 'return']],
    [`y${ESC}`, ['char:y', 'escape']],
    [`${ESC}${ESC}`, ['escape', 'escape']],
    [`${ESC}${ESC}[A`, ['escape', 'up']],
    [`${ESC}[A${ESC}[B${ESC}[C${ESC}[D`, ['up', 'down', 'right', 'left']],
    [`${ESC}[1;5C`, ['right']],
    [`${ESC}OA`, ['up']],
    [`${ESC}[3~${ESC}[5~${ESC}[6~`, ['delete', 'pageup', 'pagedown']],
    [`${ESC}[Z`, ['backtab']],
    [`${ESC}[`, ['escape', 'char:[']], // incomplete: an Esc, then text
    [`${ESC}[I`, ['escape', 'char:[', 'char:I']], // complete but unknown (focus in): an Esc
    [`${ESC}[9q`, ['escape', 'char:[', 'char:9', 'char:q']],
    [`${ESC}Oz`, ['escape', 'char:O', 'char:z']],
    ['\u0003\u007F\t', ['ctrl', 'backspace', 'tab']],
    ['é😀', ['char:é', 'char:😀']],
    [`${ESC}[200~y\r${ESC}[201~n`, ['paste:y\r', 'char:n']],
  ] as const) {
    it(`${JSON.stringify(input)} -> ${want.join(' ')}`, () => {
      assert.deepEqual(names(input), want);
    });
  }

  it('Ctrl+C names its letter', () => {
    assert.deepEqual(readKeys('\u0003'), [{ name: 'ctrl', text: 'c', sequence: '\u0003' }]);
  });

  it('a bracketed paste may span reads, and nothing in it is a key', () => {
    const reader = new KeyReader();
    assert.deepEqual(reader.read(`${ESC}[200~y`), []);
    assert.ok(reader.pasting);
    assert.deepEqual(reader.read(`\r${ESC}[20`), []);
    const keys = reader.read(`1~n`);
    assert.deepEqual(keys.map((k) => [k.name as KeyName, k.text]), [['paste', 'y\r'], ['char', 'n']]);
    assert.ok(!reader.pasting);
  });

  it('the Esc key alone ends a paste whose end never came: the stop key is never swallowed', () => {
    const reader = new KeyReader();
    assert.deepEqual(reader.read(`${ESC}[200~rm -rf`), []);
    assert.deepEqual(reader.read('y'), []);
    const keys = reader.read(ESC);
    assert.deepEqual(keys.map((k) => [k.name as KeyName, k.text]), [['paste', 'rm -rfy'], ['escape', '']]);
    assert.ok(!reader.pasting);
    assert.deepEqual(reader.read('n').map((k) => k.name), ['char'], 'what follows is read as keys again');
  });

  it('an Esc at the end of the read that carries a paste whose end never came is the Esc key too', () => {
    const reader = new KeyReader();
    const keys = reader.read(`${ESC}[200~rm\r${ESC}`);
    assert.deepEqual(keys.map((k) => [k.name as KeyName, k.text]), [['paste', 'rm\r'], ['escape', '']]);
    assert.ok(!reader.pasting);
    const spanning = new KeyReader();
    assert.deepEqual(spanning.read(`${ESC}[200~rm`), []);
    assert.deepEqual(spanning.read(`y${ESC}`).map((k) => [k.name as KeyName, k.text]), [['paste', 'rmy'], ['escape', '']], 'also when the paste began in an earlier read');
  });
});

describe('isBurst', () => {
  for (const [input, burst] of [
    ['y', false],
    ['n\r', false],
    ['\r', false],
    ['yy', true],
    ['y ', true],
    ['\r\r\r', true],
    [`${ESC}[200~y${ESC}[201~`, true],
  ] as const) {
    it(`${JSON.stringify(input)}: ${burst ? 'a burst' : 'a key'}`, () => {
      assert.equal(isBurst(readKeys(input)), burst);
    });
  }
});

describe('QuietGate', () => {
  const key = readKeys('y');
  for (const [name, reads, want] of [
    ['a key right after the prompt appeared', [[100, key]], [false]],
    ['a key after the settle time', [[250, key]], [true]],
    ['a key during the window restarts it', [[200, key], [400, key], [649, key], [899, key]], [false, false, false, true]],
    ['a burst after a quiet period', [[1_000, readKeys('yes')]], [false]],
    ['a paste after a quiet period', [[1_000, readKeys(`${ESC}[200~y${ESC}[201~`)]], [false]],
    ['a key with Enter after a quiet period', [[1_000, readKeys('n\r')]], [true]],
    ['an empty read', [[1_000, []]], [false]],
  ] as const) {
    it(name, () => {
      const gate = new QuietGate(250, 0);
      assert.deepEqual(reads.map(([at, keys]) => gate.admit({ at, keys })), want);
    });
  }
});
