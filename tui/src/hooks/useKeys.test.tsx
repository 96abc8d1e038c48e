/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
// Bracketed paste without a hook: the components turn it on while they own
// input and off when the last one lets go, on a terminal (a TTY) only.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { afterEach, describe, it } from 'node:test';
import { render as inkRender, Text, type Instance } from 'ink';
import type { ReactElement } from 'react';
import { ContinueBar } from '../components/ContinueBar.js';
import { PauseIndicator } from '../components/PauseIndicator.js';
import { tick } from '../testing/ink.js';

/** A terminal's output: what was written, in order. */
class Terminal extends EventEmitter {
  isTTY: boolean;
  columns = 100;
  rows = 40;
  written = '';
  constructor(isTTY: boolean) {
    super();
    this.isTTY = isTTY;
  }
  write = (text: string) => {
    this.written += text;
    return true;
  };
  /** modes lists the bracketed-paste switches written so far. */
  modes = () => [...this.written.matchAll(/\u001B\[\?2004([hl])/g)].map((m) => (m[1] === 'h' ? 'on' : 'off'));
}

/** Keyboard input as Ink reads it (as ink-testing-library's stdin). */
class Keyboard extends EventEmitter {
  isTTY = true;
  private data: string | null = null;
  write = (data: string) => {
    this.data = data;
    this.emit('readable');
    this.emit('data', data);
  };
  read = () => {
    const { data } = this;
    this.data = null;
    return data;
  };
  setEncoding() {}
  setRawMode() {}
  resume() {}
  pause() {}
  ref() {}
  unref() {}
}

const pause = { id: 'p1', kind: 'confirm', source: 'tool', tool: 'Bash', message: 'Potentially dangerous command', step: 1, at: '' } as const;

let app: Instance | undefined;
afterEach(() => {
  app?.unmount();
  app = undefined;
});

async function mount(tree: ReactElement, isTTY = true) {
  const stdout = new Terminal(isTTY);
  const stdin = new Keyboard();
  app = inkRender(tree, { stdout: stdout as never, stdin: stdin as never, debug: true, exitOnCtrlC: false, patchConsole: false });
  await tick();
  return { stdout, stdin, app };
}

describe('bracketed paste', () => {
  it('is on while a component owns input and off once none does', async () => {
    const { stdout, app } = await mount(<PauseIndicator pause={pause} onDecision={() => {}} />);
    assert.deepEqual(stdout.modes(), ['on']);
    app.rerender(<PauseIndicator pause={pause} onDecision={() => {}} isActive={false} />);
    await tick();
    assert.deepEqual(stdout.modes(), ['on', 'off']);
    app.rerender(<PauseIndicator pause={pause} onDecision={() => {}} />);
    await tick();
    assert.deepEqual(stdout.modes(), ['on', 'off', 'on']);
    app.unmount();
    assert.deepEqual(stdout.modes(), ['on', 'off', 'on', 'off']);
  });

  it('stays on while another component still owns input', async () => {
    const row = { id: 's1', runState: 'interrupted', reasonLabel: 'Stopped by you', eligible: true } as const;
    const both = (withPause: boolean) => (
      <>
        {withPause ? <PauseIndicator pause={pause} onDecision={() => {}} /> : <Text>answered</Text>}
        <ContinueBar session={row} />
      </>
    );
    const { stdout, app } = await mount(both(true));
    app.rerender(both(false));
    await tick();
    assert.deepEqual(stdout.modes(), ['on'], 'the Continue bar still owns input');
    app.unmount();
    assert.deepEqual(stdout.modes(), ['on', 'off']);
  });

  it('is left alone when the output is not a terminal', async () => {
    const { stdout, app } = await mount(<PauseIndicator pause={pause} onDecision={() => {}} />, false);
    app.unmount();
    assert.deepEqual(stdout.modes(), []);
  });
});
