/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
// Colours are checked with colour forced on: chalk decides when it loads,
// so ink is imported only after FORCE_COLOR is set.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';

process.env.FORCE_COLOR = '1';
const { cleanup, render, tick } = await import('./testing/ink.js');
const { PauseIndicator } = await import('./components/PauseIndicator.js');
const { TaskProgress } = await import('./components/TaskProgress.js');
const { FakeTaskLoop } = await import('./testing/fakes.js');
const { theme } = await import('./theme.js');

const YELLOW = '\u001B[33m';
const RED = '\u001B[31m';

after(cleanup);

describe('theme colours', () => {
  it('paused is yellow and danger is red', () => {
    assert.equal(theme.paused, 'yellow');
    assert.equal(theme.danger, 'red');
  });

  it('a continue pause is yellow, a confirm pause red', async () => {
    const cont = await render(<PauseIndicator pause={{ id: 'a', kind: 'continue', source: 'tool', toolName: 'WebSearch', message: 'Page loaded: x' }} />);
    assert.ok(cont.lastFrame()!.includes(`${YELLOW}⏸ WebSearch paused`), JSON.stringify(cont.lastFrame()));
    const conf = await render(<PauseIndicator pause={{ id: 'b', kind: 'confirm', source: 'tool', toolName: 'Bash', message: 'Potentially dangerous command' }} />);
    assert.match(conf.lastFrame()!, new RegExp(`${RED.replace('[', '\\[')}(\\u001B\\[1m)?⚠️ Bash`));
  });

  it('[PAUSE MODE] is yellow', async () => {
    const ui = await render(<TaskProgress loop={new FakeTaskLoop(['one'], { pauseMode: true })} />);
    await tick();
    assert.match(ui.lastFrame()!, /\u001B\[33m(\u001B\[1m)?\[PAUSE MODE\]/);
  });
});
