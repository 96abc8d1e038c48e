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
const { colorsWanted, theme, themeFor, ThemeProvider } = await import('./theme.js');
const { FakeSession } = await import('./testing/fakes.js');
const { InputTransition } = await import('./components/InputTransition.js');
const { TextInput } = await import('./components/TextInput.js');
const { GlobalControls } = await import('./components/GlobalControls.js');

const YELLOW = '\u001B[33m';
const RED = '\u001B[31m';

after(cleanup);

describe('theme colours', () => {
  it('paused is yellow and danger is red', () => {
    assert.equal(theme.paused, 'yellow');
    assert.equal(theme.danger, 'red');
  });

  it('a continue pause is yellow, a confirm pause red', async () => {
    const cont = await render(<PauseIndicator pause={{ id: 'a', kind: 'continue', source: 'tool', tool: 'WebSearch', message: 'Page loaded: x' }} />);
    assert.ok(cont.lastFrame()!.includes(`${YELLOW}⏸ WebSearch paused`), JSON.stringify(cont.lastFrame()));
    const conf = await render(<PauseIndicator pause={{ id: 'b', kind: 'confirm', source: 'tool', tool: 'Bash', message: 'Potentially dangerous command' }} />);
    assert.match(conf.lastFrame()!, new RegExp(`${RED.replace('[', '\\[')}(\\u001B\\[1m)?⚠️ Bash`));
  });

  it('Emergency stop is in the danger style (red, bold), apart from Resume all', async () => {
    const ui = await render(<GlobalControls counts={{ proceeding: 2, eligible: 1, needsInput: 0 }} />);
    const frame = ui.lastFrame()!;
    const emergency = frame.slice(0, frame.indexOf('Emergency stop'));
    assert.ok(emergency.includes(RED) && emergency.includes('\u001B[1m'), JSON.stringify(frame));
    const resume = frame.slice(frame.indexOf('(2 proceeding)'), frame.indexOf('Resume all'));
    assert.ok(!resume.includes(RED), 'Resume all is not red');
  });

  it('[PAUSE MODE] is yellow', async () => {
    const ui = await render(<TaskProgress loop={new FakeTaskLoop(['one'], { pauseMode: true })} />);
    await tick();
    assert.match(ui.lastFrame()!, /\u001B\[33m(│)?(\u001B\[1m)?\[PAUSE MODE\]/); // the border glyph may share the colour
  });
});

describe('NO_COLOR and FORCE_COLOR', () => {
  // An SGR colour: 30-37, 39, 40-47, 49, 90-97, 100-107, or 38;/48; (256 / true colour).
  const COLOR_SGR = /\u001B\[(3[0-79]|4[0-79]|9[0-7]|10[0-7]|[34]8;[\d;]+)m/;

  for (const [env, wanted] of [
    [{}, true],
    [{ NO_COLOR: '1' }, false],
    [{ NO_COLOR: '' }, true],
    [{ FORCE_COLOR: '0' }, false],
    [{ FORCE_COLOR: 'false' }, false],
    [{ NO_COLOR: '1', FORCE_COLOR: '1' }, true],
  ] as const) {
    it(`${JSON.stringify(env)}: colours ${wanted ? 'on' : 'off'}`, () => {
      assert.equal(colorsWanted(env), wanted);
    });
  }

  it('with NO_COLOR no colour code is drawn, and every state still reads in words and glyphs', async () => {
    const session = new FakeSession();
    const loop = new FakeTaskLoop(['one', 'two'], { pauseMode: true });
    const ui = await render(
      <ThemeProvider theme={themeFor({ NO_COLOR: '1' })}>
        <InputTransition session={session} />
        <TaskProgress loop={loop} />
      </ThemeProvider>,
    );
    const frames: string[] = [];
    const step = async (change: () => void) => {
      change();
      await tick();
      frames.push(ui.lastFrame()!);
    };
    await step(() => session.set({ status: 'running' }));
    await step(() => session.pauseWith({ id: 'c', kind: 'confirm', tool: 'Bash', message: 'Potentially dangerous command' }));
    await step(() => session.set({ status: 'stopping', pause: null, pauses: [], stopping: { reason: 'user_stop', label: 'Stopped by you' } }, 'stopping'));
    await step(() => session.interrupt('user_stop'));
    await step(() => loop.begin(0));
    await step(() => loop.end(0, 'exit status 3'));
    for (const frame of frames) assert.doesNotMatch(frame, COLOR_SGR, JSON.stringify(frame));
    const all = frames.join('\n');
    for (const words of ['Thinking... (Esc to stop)', '⚠️ Bash: Potentially dangerous command', 'Stopping… (stopped by you', 'Stopped by you', '[PAUSE MODE]', '✗ 1. one — exit status 3']) {
      assert.ok(all.includes(words), `${words} in ${JSON.stringify(all)}`);
    }
    ui.unmount();
  });

  it('pause mode draws a yellow border as well as [PAUSE MODE]; without colours the border stays', async () => {
    const loop = new FakeTaskLoop(['one', 'two'], { pauseMode: true });
    const ui = await render(<TaskProgress loop={loop} />);
    assert.match(ui.lastFrame()!, new RegExp(`${YELLOW.replace('[', '\\[')}╭`));
    ui.unmount();
    const plain = await render(
      <ThemeProvider theme={themeFor({ NO_COLOR: '1' })}>
        <TaskProgress loop={loop} />
      </ThemeProvider>,
    );
    assert.match(plain.lastFrame()!, /^╭─+╮$/m);
    assert.doesNotMatch(plain.lastFrame()!, COLOR_SGR);
    plain.unmount();
  });

  it("the idle prompt's placeholder animates (its cursor blinks)", async () => {
    const ui = await render(<TextInput placeholder="Type a prompt" blinkMs={20} />);
    const frames = new Set<string>();
    const deadline = Date.now() + 5_000;
    while (frames.size < 2 && Date.now() < deadline) {
      frames.add(ui.lastFrame() ?? '');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(frames.size, 2, 'two different frames of the idle prompt');
    ui.unmount();
  });
});
