/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { resetTaskLoopStores } from '../store/taskLoopStore.js';
import { FakeTaskLoop } from '../testing/fakes.js';
import { cleanup, KEY, manualClock, render, tick } from '../testing/ink.js';
import { Text } from 'ink';
import { useTaskLoopState } from '../hooks/useTaskLoopState.js';
import { TaskProgress } from './TaskProgress.js';

afterEach(() => {
  cleanup();
  resetTaskLoopStores();
});

const TITLES = ['Set up the scratch dir', 'Write notes', 'Run the checks', 'Summarize'];
const PAUSED_PROMPT = "Task 1 complete. Press Enter to continue or 'p' to switch to continuous mode";
const HELP_PAUSE = 'p: continuous mode | Enter: continue | q: quit';
const HELP_CONTINUOUS = 'p: pause mode | j/k: scroll | q: quit';

async function setup(opts: { pauseMode?: boolean; height?: number } = {}) {
  const loop = new FakeTaskLoop(TITLES, { pauseMode: opts.pauseMode });
  const clock = manualClock();
  let quit = 0;
  const ui = await render(
    <TaskProgress loop={loop} now={clock.now} height={opts.height} onQuit={() => quit++} />,
  );
  const update = async (change: () => void) => {
    change();
    await tick();
  };
  return { loop, clock, ui, update, quits: () => quit };
}

describe('TaskProgress view', () => {
  it('lists the tasks with their status, and the continuous-mode help', async () => {
    const { ui, loop, update } = await setup();
    await update(() => loop.begin(0));
    const frame = ui.frame();
    assert.match(frame, /▶ 1\. Set up the scratch dir/);
    assert.match(frame, /○ 4\. Summarize/);
    assert.match(frame, /Task 1\/4: Set up the scratch dir/);
    assert.ok(frame.includes(HELP_CONTINUOUS), frame);
    assert.ok(!frame.includes('[PAUSE MODE]'));
  });

  it('in pause mode: [PAUSE MODE], the prompt after a task, and the pause-mode help', async () => {
    const { ui, loop, update } = await setup({ pauseMode: true });
    await update(() => loop.begin(0));
    assert.ok(ui.frame().includes('[PAUSE MODE] Task 1/4'), ui.frame());
    assert.ok(ui.frame().includes(HELP_PAUSE));
    await update(() => loop.end(0));
    const frame = ui.frame();
    assert.ok(frame.includes(`[PAUSE MODE] ${PAUSED_PROMPT}`), frame);
    assert.match(frame, /✓ 1\. Set up the scratch dir/);
  });

  it('shows the error of a failed task at the pause', async () => {
    const { ui, loop, update } = await setup({ pauseMode: true });
    await update(() => loop.begin(2));
    await update(() => loop.end(2, 'exit status 3'));
    const frame = ui.frame();
    assert.ok(frame.includes("Task 3 complete. Press Enter to continue or 'p' to switch to continuous mode"), frame);
    assert.ok(frame.includes('Task 3 failed: exit status 3'), frame);
    assert.match(frame, /✗ 3\. Run the checks — exit status 3/);
  });

  it('says "Completed!" at the end', async () => {
    const { ui, loop, update } = await setup({ pauseMode: true });
    for (let i = 0; i < TITLES.length; i++) {
      await update(() => loop.begin(i));
      await update(() => loop.end(i, i === 2 ? 'exit status 3' : undefined));
    }
    const frame = ui.frame();
    assert.match(frame, /^Completed!/m);
    assert.match(frame, /3 completed, 1 failed, 4 total/);
  });
});

describe('TaskProgress keys', () => {
  it('p toggles pause mode while running', async () => {
    const { ui, loop } = await setup();
    await ui.press('p');
    assert.deepEqual(loop.calls, [['setPauseMode', true]]);
    assert.ok(ui.frame().includes('[PAUSE MODE]'));
    assert.ok(ui.frame().includes(HELP_PAUSE));
    await ui.press('p');
    assert.deepEqual(loop.calls, [['setPauseMode', true], ['setPauseMode', false]]);
    assert.ok(ui.frame().includes(HELP_CONTINUOUS));
  });

  for (const [name, key, call] of [
    ['Enter continues', KEY.enter, 'continue'],
    ['space continues', KEY.space, 'continue'],
    ['n runs the next task', 'n', 'next'],
    ['c continues all', 'c', 'continueAll'],
    ['p switches to continuous and goes on', 'p', 'continueAll'],
  ] as const) {
    it(`paused: ${name}`, async () => {
      const { ui, loop, clock, update } = await setup({ pauseMode: true });
      await update(() => loop.end(0));
      clock.advance(250);
      await ui.press(key);
      assert.deepEqual(loop.calls, [[call]]);
    });
  }

  it('Enter right after the pause appears does nothing', async () => {
    const { ui, loop, clock, update } = await setup({ pauseMode: true });
    await ui.press(KEY.enter); // before the pause
    await update(() => loop.end(0));
    await ui.press(KEY.enter, 'n'); // at once
    clock.advance(249);
    await ui.press(KEY.space);
    assert.deepEqual(loop.calls, []);
    clock.advance(1);
    await ui.press(KEY.enter);
    assert.deepEqual(loop.calls, [['continue']]);
  });

  it('answers a pause once: a second key before the view moves on never releases the next pause', async () => {
    const { ui, loop, clock, update } = await setup({ pauseMode: true });
    await update(() => loop.end(0));
    clock.advance(250);
    // The fake loop does not move on by itself: the view still shows pause 1,
    // as it would while a real loop's next event is on its way.
    await ui.press(KEY.enter, KEY.enter, 'n', KEY.space);
    assert.deepEqual(loop.calls, [['continue']]);
    // The next pause is answered normally, after its own settle time.
    await update(() => loop.begin(1));
    await update(() => loop.end(1));
    await ui.press(KEY.enter);
    assert.deepEqual(loop.calls, [['continue']], 'the next pause settles first');
    clock.advance(250);
    await ui.press('n');
    assert.deepEqual(loop.calls, [['continue'], ['next']]);
  });

  it('p toggles from the engine\'s mode: "p p" faster than a render ends where it started', async () => {
    const { ui, loop } = await setup();
    ui.stdin.write('p');
    ui.stdin.write('p');
    await tick();
    assert.deepEqual(loop.calls, [['setPauseMode', true], ['setPauseMode', false]]);
    assert.ok(ui.frame().includes(HELP_CONTINUOUS), ui.frame());
  });

  it('p after answering a pause toggles pause mode back on', async () => {
    const { ui, loop, clock, update } = await setup({ pauseMode: true });
    await update(() => loop.end(0));
    clock.advance(250);
    ui.stdin.write('p'); // continuous, and go on
    ui.stdin.write('p'); // pause mode again, for after the next task
    await tick();
    assert.deepEqual(loop.calls, [['continueAll'], ['setPauseMode', true]]);
    assert.ok(ui.frame().includes('[PAUSE MODE]'), ui.frame());
  });

  it('c continues all while a task runs; nothing moves the loop once it is done', async () => {
    const { ui, loop, update } = await setup({ pauseMode: true });
    await update(() => loop.begin(0));
    await ui.press('c');
    assert.deepEqual(loop.calls, [['continueAll']]);
    for (let i = 0; i < TITLES.length; i++) await update(() => loop.end(i));
    await ui.press('p', 'c', 'n', KEY.enter, KEY.space);
    assert.deepEqual(loop.calls, [['continueAll']]);
    assert.match(ui.frame(), /^Completed!/m);
  });

  it('Enter and n do nothing while a task runs', async () => {
    const { ui, loop, update } = await setup({ pauseMode: true });
    await update(() => loop.begin(0));
    await ui.press(KEY.enter, 'n', KEY.space);
    assert.deepEqual(loop.calls, []);
  });

  it('j/k scroll the list', async () => {
    const { ui } = await setup({ height: 2 });
    assert.match(ui.frame(), /1\. Set up/);
    assert.match(ui.frame(), /↓ 2 more/);
    await ui.press('j', 'j', 'j');
    assert.doesNotMatch(ui.frame(), /1\. Set up/);
    assert.match(ui.frame(), /↑ 2 more/);
    assert.match(ui.frame(), /4\. Summarize/);
    await ui.press('k');
    assert.match(ui.frame(), /2\. Write notes/);
    assert.doesNotMatch(ui.frame(), /4\. Summarize/);
  });

  it('q quits', async () => {
    const { ui, quits } = await setup();
    await ui.press('q');
    assert.equal(quits(), 1);
  });
});

describe('useTaskLoopState', () => {
  function Probe({ loop, onRender }: { loop: FakeTaskLoop; onRender: () => void }) {
    const state = useTaskLoopState(loop);
    onRender();
    return <Text>current={state.current} v={state.version}</Text>;
  }

  it('re-renders only when the loop\'s version changes', async () => {
    const loop = new FakeTaskLoop(TITLES);
    let renders = 0;
    const ui = await render(<Probe loop={loop} onRender={() => renders++} />);
    assert.equal(ui.frame(), 'current=-1 v=1');
    const before = renders;
    // A duplicate event (same version) changes nothing.
    loop.listeners.emit({ loop: loop.id, version: 1, type: 'started', at: new Date(0).toISOString() });
    await tick();
    assert.equal(renders, before, 'no re-render without a version change');
    loop.begin(0);
    await tick();
    assert.equal(renders, before + 1);
    assert.equal(ui.frame(), 'current=0 v=2');
    ui.unmount();
    assert.equal(loop.listeners.count(), 0, 'unmount unsubscribes');
  });
});
