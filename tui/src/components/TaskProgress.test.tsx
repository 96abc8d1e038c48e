/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { resetTaskLoopStores } from '../store/taskLoopStore.js';
import { FakeSession, FakeTaskLoop } from '../testing/fakes.js';
import { cleanup, KEY, manualClock, render, tick } from '../testing/ink.js';
import { Text } from 'ink';
import { useTaskLoopState } from '../hooks/useTaskLoopState.js';
import { TaskProgress } from './TaskProgress.js';

/** The fake session under a fake loop. */
const sessionOf = (loop: FakeTaskLoop) => loop.session as unknown as FakeSession;

afterEach(() => {
  cleanup();
  resetTaskLoopStores();
});

const TITLES = ['Set up the scratch dir', 'Write notes', 'Run the checks', 'Summarize'];
const PAUSED_PROMPT = "Task 1 complete. Press Enter to continue or 'p' to switch to continuous mode";
const HELP_PAUSED = 'p: continuous mode | Enter: continue | Esc: stop | j/k: scroll | q: quit';
const HELP_PAUSE = 'p: continuous mode | Esc: stop | j/k: scroll | q: quit';
const HELP_CONTINUOUS = 'p: pause mode | Esc: stop | j/k: scroll | q: quit';
const HELP_DONE = 'j/k: scroll | q: quit';

async function setup(opts: { pauseMode?: boolean; height?: number } = {}) {
  const loop = new FakeTaskLoop(TITLES, { pauseMode: opts.pauseMode });
  const clock = manualClock();
  let quit = 0;
  const ui = await render(
    <TaskProgress loop={loop} now={clock.now} holdMs={0} height={opts.height} onQuit={() => quit++} />,
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
    assert.match(ui.frame(), /\[PAUSE MODE\] . Task 1\/4/);
    assert.ok(ui.frame().includes(HELP_PAUSE));
    await update(() => loop.end(0));
    const frame = ui.frame();
    assert.ok(frame.includes(`[PAUSE MODE] ${PAUSED_PROMPT}`), frame);
    assert.ok(frame.includes(HELP_PAUSED), frame);
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
    assert.match(frame, /^Completed! +/m);
    assert.ok(frame.trimEnd().endsWith(` ${HELP_DONE}`), `only the keys that still work: ${frame}`);
    assert.match(frame, /3 completed, 1 failed, 4 total/);
    assert.doesNotMatch(frame, /PAUSE MODE|Enter|Esc/);
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
    ['n runs the next task', 'n', 'continue'],
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
    clock.advance(250); // quiet since the last key
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
    assert.deepEqual(loop.calls, [['continue'], ['continue']]);
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
    await ui.press('p'); // continuous, and go on
    await ui.press('p'); // pause mode again, for after the next task
    assert.deepEqual(loop.calls, [['continueAll'], ['setPauseMode', true]]);
    assert.ok(ui.frame().includes('[PAUSE MODE]'), ui.frame());
  });

  it('c continues all while a task runs; nothing moves the loop once it is done', async () => {
    const { ui, loop, update } = await setup({ pauseMode: true });
    await update(() => loop.begin(0));
    await ui.press('c');
    assert.deepEqual(loop.calls, [['continueAll']]);
    for (let i = 0; i < TITLES.length; i++) await update(() => loop.end(i));
    await ui.press('p', 'c', 'n', KEY.enter, KEY.space, KEY.escape);
    assert.deepEqual(loop.calls, [['continueAll']]);
    assert.deepEqual(sessionOf(loop).calls, [], 'Esc after the end stops nothing');
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

describe('TaskProgress stop and typing', () => {
  it('running: the spinner says "(Esc to stop)" and Esc interrupts the running task', async () => {
    const { ui, loop, update } = await setup();
    await update(() => loop.begin(1));
    assert.match(ui.frame(), /^. Task 2\/4: Write notes \(Esc to stop\) +p: pause mode \| Esc: stop/m);
    await ui.press(`${KEY.escape}`);
    assert.deepEqual(sessionOf(loop).calls, [['interrupt', 'user_stop']]);
  });

  it('Esc and another key in one read stop a paused loop and move nothing on', async () => {
    const { ui, loop, clock, update } = await setup({ pauseMode: true });
    await update(() => loop.end(0));
    clock.advance(1_000);
    await ui.press(`${KEY.escape}${KEY.enter}`);
    assert.deepEqual(sessionOf(loop).calls, [['interrupt', 'user_stop']]);
    assert.deepEqual(loop.calls, []);
  });

  it('stopping and stopped say why, and offer only the keys that work', async () => {
    const { ui, loop, update } = await setup();
    const session = sessionOf(loop);
    await update(() => loop.begin(1));
    await update(() => session.set({ status: 'stopping', stopping: { reason: 'emergency_stop', label: 'Stopped by emergency stop' } }, 'stopping'));
    assert.match(ui.frame(), /Stopping… \(stopped by emergency stop — waiting for the command to exit\) +j\/k: scroll \| q: quit$/m);
    await update(() => {
      session.interrupt('emergency_stop');
      loop.set({ done: true }, 'completed');
    });
    assert.match(ui.frame(), /^Stopped by emergency stop — the loop has ended +j\/k: scroll \| q: quit$/m);
    await ui.press(KEY.escape, KEY.enter);
    assert.deepEqual(session.calls, [['interrupt', 'emergency_stop']], 'nothing more to stop');
  });

  it('a stopped loop that can be resumed says so, and Enter resumes it once', async () => {
    const { ui, loop, clock, update } = await setup();
    const session = sessionOf(loop);
    await update(() => loop.begin(1));
    await update(() => {
      session.interrupt('user_stop');
      const tasks = loop.state().tasks.map((t) => (t.index === 1 ? { ...t, status: 'interrupted' as const } : t));
      loop.set({ interrupted: true, tasks }, 'interrupted');
    });
    const frame = ui.frame();
    assert.match(frame, /^Stopped by you at task 2 — press Enter to continue the loop +Enter: continue \| j\/k: scroll \| q: quit$/m);
    assert.match(frame, /◌ 2\. Write notes/);
    clock.advance(1_000);
    await ui.press(KEY.enter);
    assert.deepEqual(loop.calls, [['continue']]);
    await update(() => loop.begin(1));
    assert.match(ui.frame(), /Task 2\/4: Write notes/);
    await ui.press(KEY.escape);
    assert.deepEqual(session.calls, [['interrupt', 'user_stop'], ['interrupt', 'user_stop']], 'the resumed loop stops again with Esc');
    assert.deepEqual(loop.calls, [['continue']], 'one Enter, one resume');
  });

  it('a flood of Enter, space, y and Y through a task-loop pause moves nothing on', async () => {
    const { ui, loop, clock, update } = await setup({ pauseMode: true });
    await update(() => loop.begin(0));
    const flood = [KEY.enter, KEY.space, 'y', 'Y'];
    let i = 0;
    for (; i < 5; i++) {
      await ui.press(flood[i % 4]!);
      clock.advance(100);
    }
    await update(() => loop.end(0)); // the pause appears mid-flood
    for (; i < 25; i++) {
      await ui.press(flood[i % 4]!);
      clock.advance(100);
    }
    assert.deepEqual(loop.calls, []);
    assert.match(ui.frame(), /Keys ignored while you were typing — press Enter again/);
    clock.advance(150);
    await ui.press(KEY.enter);
    assert.deepEqual(loop.calls, [['continue']]);
  });

  it('a paste never moves a paused loop on', async () => {
    const { ui, loop, clock, update } = await setup({ pauseMode: true });
    await update(() => loop.end(0));
    clock.advance(1_000);
    await ui.press(`${KEY.escape}[200~${KEY.enter}${KEY.escape}[201~`);
    clock.advance(1_000);
    await ui.press(`n ${KEY.enter}`);
    clock.advance(1_000);
    await ui.press(`${KEY.enter}${KEY.enter}`); // a plain paste of line breaks
    clock.advance(1_000);
    await ui.press(`n${KEY.enter}`);
    assert.deepEqual(loop.calls, []);
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
    loop.listeners.emit({ loop: loop.id, session: loop.session.id, version: 1, type: 'started', at: new Date(0).toISOString() });
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
