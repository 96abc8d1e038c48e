/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { cleanup, render, tick } from '../testing/ink.js';
import { SPINNER_FRAMES, ThinkingIndicator } from './ThinkingIndicator.js';

describe('ThinkingIndicator', () => {
  // Only setInterval is faked: React and Ink schedule their own work with setImmediate.
  beforeEach(() => mock.timers.enable({ apis: ['setInterval'] }));
  afterEach(() => {
    cleanup();
    mock.timers.reset();
  });

  it('renders "⠋ Thinking... (Esc to stop)" and changes only the glyph', async () => {
    const ui = await render(<ThinkingIndicator />);
    assert.equal(ui.frame(), '⠋ Thinking... (Esc to stop)');
    for (const glyph of [...SPINNER_FRAMES.slice(1), SPINNER_FRAMES[0]]) {
      mock.timers.tick(80);
      await tick();
      assert.equal(ui.frame(), `${glyph} Thinking... (Esc to stop)`);
    }
    ui.unmount();
  });

  it('stops its timer when unmounted', async () => {
    const ui = await render(<ThinkingIndicator />);
    ui.unmount();
    const frames = ui.frames.length;
    mock.timers.tick(80 * 20);
    await tick();
    assert.equal(ui.frames.length, frames, 'no render after unmount');
  });

  it('runs no timer while not animating', async () => {
    const ui = await render(<ThinkingIndicator animate={false} />);
    const frames = ui.frames.length;
    mock.timers.tick(80 * 20);
    await tick();
    assert.equal(ui.frames.length, frames);
    assert.equal(ui.frame(), '⠋ Thinking... (Esc to stop)');
    ui.unmount();
  });
});
