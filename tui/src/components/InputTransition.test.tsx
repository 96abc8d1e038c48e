/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { resetSessionStores } from '../store/sessionStore.js';
import { FakeSession } from '../testing/fakes.js';
import { cleanup, KEY, manualClock, render, tick } from '../testing/ink.js';
import { InputTransition } from './InputTransition.js';

afterEach(() => {
  cleanup();
  resetSessionStores();
});

const confirmPause = { id: 'p1', kind: 'confirm', tool: 'Bash', message: 'Potentially dangerous command', details: 'rm -rf ./demo-scratch' } as const;
const continuePause = { id: 'p2', kind: 'continue', tool: 'WebSearch', message: 'Page loaded: http://127.0.0.1:8080/' } as const;

async function setup(session = new FakeSession(), props: { onSubmit?: (t: string) => void; onQuit?: () => void } = {}) {
  const clock = manualClock();
  const errors: unknown[] = [];
  const ui = await render(
    <InputTransition session={session} now={clock.now} holdMs={0} onError={(e) => errors.push(e)} {...props} />,
  );
  /** update applies an engine change and lets it render. */
  const update = async (change: () => void) => {
    change();
    await tick();
  };
  return { session, clock, errors, ui, update };
}

describe('InputTransition states', () => {
  it('idle: the prompt with its placeholder', async () => {
    const { ui } = await setup();
    assert.equal(ui.frame(), '> Type a prompt and press Enter');
    ui.unmount();
  });

  it('running: the spinner, "Thinking..." and the Esc hint', async () => {
    const { ui, session, update } = await setup();
    await update(() => session.set({ status: 'running' }));
    assert.equal(ui.frame(), '⠋ Thinking... (Esc to stop)');
    ui.unmount();
  });

  it('paused: the pause indicator in place of "Thinking..."', async () => {
    const { ui, session, update } = await setup();
    await update(() => session.set({ status: 'running' }));
    await update(() => session.pauseWith(continuePause));
    assert.equal(ui.frame(), '⏸ WebSearch paused: Page loaded: http://127.0.0.1:8080/\n(Press Enter to continue, Esc to stop)');
    await update(() => session.resume('p2'));
    assert.equal(ui.frame(), '⠋ Thinking... (Esc to stop)');
    await update(() => session.pauseWith(confirmPause));
    assert.equal(ui.frame(), '⚠️ Bash: Potentially dangerous command\nrm -rf ./demo-scratch\n[Y] Approve  [N] Deny  [Esc] Cancel');
    ui.unmount();
  });

  it('stopping: who stopped it and what happens next; interrupted: the reason above the prompt', async () => {
    const { ui, session, update } = await setup();
    await update(() => session.set({ status: 'stopping', stopping: { reason: 'user_stop', label: 'Stopped by you' } }, 'stopping'));
    assert.equal(ui.frame(), 'Stopping… (stopped by you — waiting for the command to exit)');
    await update(() => session.set({ status: 'stopping', stopping: { reason: 'emergency_stop', label: 'Stopped by emergency stop' } }, 'stopping'));
    assert.equal(ui.frame(), 'Stopping… (stopped by emergency stop — waiting for the command to exit)');
    await update(() => session.interrupt('user_stop'));
    assert.equal(ui.frame(), 'Stopped by you\n> Type a prompt and press Enter');
    await update(() => session.close());
    assert.equal(ui.frame(), 'Session closed');
    ui.unmount();
  });
});

describe('InputTransition keys (seed 000 keyboard table)', () => {
  it('running: Esc interrupts; other keys do nothing', async () => {
    const { ui, session, update } = await setup();
    await update(() => session.set({ status: 'running' }));
    await ui.press('y', 'n', KEY.enter);
    assert.deepEqual(session.calls, []);
    await ui.press(KEY.escape);
    assert.deepEqual(session.calls, [['interrupt', 'user_stop']]);
    assert.equal(ui.frame(), 'Stopped by you\n> Type a prompt and press Enter');
    ui.unmount();
  });

  it('continue pause: Enter resumes that pause', async () => {
    const { ui, session, clock, update } = await setup();
    await update(() => session.pauseWith(continuePause));
    clock.advance(250);
    await ui.press(KEY.enter);
    assert.deepEqual(session.calls, [['resume', 'p2']]);
    assert.equal(ui.frame(), '⠋ Thinking... (Esc to stop)');
    ui.unmount();
  });

  it('continue pause: Esc interrupts', async () => {
    const { ui, session, update } = await setup();
    await update(() => session.pauseWith(continuePause));
    await ui.press(KEY.escape);
    assert.deepEqual(session.calls, [['interrupt', 'user_stop']]);
    ui.unmount();
  });

  it('paused with no pause to show: Esc still interrupts', async () => {
    const { ui, session, update } = await setup();
    await update(() => session.set({ status: 'paused', pause: null, pauses: [] }, 'paused'));
    assert.equal(ui.frame(), '⏸ Paused (Esc to stop)');
    await ui.press(KEY.enter, 'y');
    assert.deepEqual(session.calls, []);
    await ui.press(KEY.escape);
    assert.deepEqual(session.calls, [['interrupt', 'user_stop']]);
    ui.unmount();
  });

  it('stopping: no key does anything', async () => {
    const { ui, session, update } = await setup();
    await update(() => session.set({ status: 'stopping', stopping: { reason: 'user_stop', label: 'Stopped by you' } }, 'stopping'));
    await ui.press(KEY.escape, KEY.enter, 'y', 'n', 'q');
    assert.deepEqual(session.calls, []);
    assert.equal(ui.frame(), 'Stopping… (stopped by you — waiting for the command to exit)');
    ui.unmount();
  });

  for (const [key, approved] of [['y', true], ['n', false]] as const) {
    it(`confirm pause: ${key} ${approved ? 'approves' : 'denies'} that pause`, async () => {
      const { ui, session, clock, update } = await setup();
      await update(() => session.pauseWith(confirmPause));
      clock.advance(250);
      await ui.press(key);
      assert.deepEqual(session.calls, [['confirm', approved, undefined, 'p1']]);
      ui.unmount();
    });
  }

  it('confirm pause: Esc interrupts', async () => {
    const { ui, session, update } = await setup();
    await update(() => session.pauseWith(confirmPause));
    await ui.press(KEY.escape);
    assert.deepEqual(session.calls, [['interrupt', 'user_stop']]);
    assert.equal(ui.frame(), 'Stopped by you\n> Type a prompt and press Enter');
    ui.unmount();
  });

  it('keys typed before and just after a pause appears never answer it', async () => {
    const { ui, session, clock, update } = await setup();
    await update(() => session.set({ status: 'running' }));
    await ui.press('y', KEY.enter); // before: the running state ignores them
    await update(() => session.pauseWith(confirmPause));
    await ui.press('y'); // at once
    clock.advance(200);
    await ui.press('y', 'n'); // just after
    assert.deepEqual(session.calls, []);
    clock.advance(250); // quiet since the last key
    await ui.press('y');
    assert.deepEqual(session.calls, [['confirm', true, undefined, 'p1']]);
    ui.unmount();
  });

  it('the next pause is answered by its own id, after its own settle time', async () => {
    const { ui, session, clock, update } = await setup();
    await update(() => session.pauseWith(confirmPause));
    await update(() => session.pauseWith({ ...confirmPause, id: 'p3', details: 'rm -rf ./other' }));
    clock.advance(300);
    await ui.press('y'); // answers p1; p3 becomes the current pause
    assert.match(ui.frame(), /rm -rf \.\/other/);
    await ui.press('y'); // too soon for p3
    assert.deepEqual(session.calls, [['confirm', true, undefined, 'p1']]);
    clock.advance(300);
    await ui.press('n');
    assert.deepEqual(session.calls, [['confirm', true, undefined, 'p1'], ['confirm', false, undefined, 'p3']]);
    ui.unmount();
  });

  it('another session shown in its place starts its own quiet period, though its pause has the same id', async () => {
    // Pause ids count per session: both sessions are paused at "p1".
    const { ui, session: a, clock, update } = await setup(new FakeSession('a'));
    const b = new FakeSession('b');
    await update(() => a.pauseWith(confirmPause));
    await update(() => b.pauseWith({ ...confirmPause, details: 'rm -rf ~' }));
    clock.advance(5_000); // the user has read a's pause; the app now shows b (say, the one that just paused)
    ui.rerender(<InputTransition session={b} now={clock.now} holdMs={0} />);
    await tick();
    assert.match(ui.frame(), /rm -rf ~/);
    await ui.press('y'); // meant for a's pause
    assert.deepEqual([a.calls, b.calls], [[], []]);
    clock.advance(250);
    await ui.press('y');
    assert.deepEqual(b.calls, [['confirm', true, undefined, 'p1']]);
    ui.unmount();
  });

  it('text typed into one session\'s prompt is not sent to another session shown in its place', async () => {
    const submitted: string[] = [];
    const a = new FakeSession('a');
    const b = new FakeSession('b');
    const ui = await render(<InputTransition session={a} holdMs={0} onSubmit={(t) => submitted.push(t)} />);
    await ui.press('d', 'r', 'o', 'p');
    ui.rerender(<InputTransition session={b} holdMs={0} onSubmit={(t) => submitted.push(t)} />);
    await tick();
    assert.equal(ui.frame(), '> Type a prompt and press Enter');
    await ui.press(KEY.enter);
    assert.deepEqual(submitted, []);
    ui.unmount();
  });

  it('a failed answer goes to onError', async () => {
    const { ui, session, clock, update, errors } = await setup();
    await update(() => session.pauseWith(confirmPause));
    session.holdEvents = true; // the UI still shows p1 ...
    session.confirm(true, { pauseId: 'p1' }); // ... that another client answered
    clock.advance(300);
    await ui.press('n');
    assert.equal((errors[0] as { code?: string }).code, 'ERR_NOT_PAUSED');
    ui.unmount();
  });

  it('idle: typing and Enter submit a prompt; q on an empty prompt quits', async () => {
    const submitted: string[] = [];
    let quit = 0;
    const { ui } = await setup(new FakeSession(), { onSubmit: (t) => submitted.push(t), onQuit: () => quit++ });
    await ui.press('h', 'i', KEY.enter);
    assert.deepEqual(submitted, ['hi']);
    await ui.press('a', 'q');
    assert.equal(ui.frame(), '> aq');
    assert.equal(quit, 0);
    await ui.press('\u007f', '\u007f', 'q');
    assert.equal(quit, 1);
    ui.unmount();
  });
});

describe('TextInput in InputTransition', () => {
  it('submits when Enter arrives in the same chunk as the text (tmux send-keys, fast typing)', async () => {
    const submitted: string[] = [];
    let quit = 0;
    const { ui } = await setup(new FakeSession(), { onSubmit: (t) => submitted.push(t), onQuit: () => quit++ });
    await ui.press('go\r');
    assert.deepEqual(submitted, ['go']);
    await ui.press('g', 'o', 'o', '\u007f', KEY.enter);
    assert.deepEqual(submitted, ['go', 'go']);
    await ui.press('quick\rq');
    assert.deepEqual(submitted, ['go', 'go', 'quick']);
    assert.equal(quit, 0, 'a q inside a chunk is text');
    assert.equal(ui.frame(), '> q');
  });
});

describe('InputTransition under real typing', () => {
  for (const chunk of [`${KEY.escape}y`, `${KEY.escape}${KEY.enter}`, `y${KEY.escape}`, `${KEY.escape}${KEY.escape}`]) {
    it(`running: ${JSON.stringify(chunk)} in one read stops the run`, async () => {
      const { ui, session, update } = await setup();
      await update(() => session.set({ status: 'running' }));
      await ui.press(chunk);
      assert.deepEqual(session.calls, [['interrupt', 'user_stop']]);
      ui.unmount();
    });
  }

  it('confirm pause: Esc and y in one read stop and do not approve', async () => {
    const { ui, session, clock, update } = await setup();
    await update(() => session.pauseWith(confirmPause));
    clock.advance(1_000);
    await ui.press(`${KEY.escape}y`);
    assert.deepEqual(session.calls, [['interrupt', 'user_stop']]);
    ui.unmount();
  });

  it('confirm pause: n and Enter in one read deny', async () => {
    const { ui, session, clock, update } = await setup();
    await update(() => session.pauseWith(confirmPause));
    clock.advance(300);
    await ui.press(`n${KEY.enter}`);
    assert.deepEqual(session.calls, [['confirm', false, undefined, 'p1']]);
    ui.unmount();
  });

  it('keys typed into a run never type or submit a prompt after it stops', async () => {
    const submitted: string[] = [];
    const { ui, session, clock, update } = await setup(new FakeSession(), { onSubmit: (t) => submitted.push(t) });
    await update(() => session.set({ status: 'running' }));
    await ui.press('y', KEY.enter);
    await ui.press(`${KEY.escape}`); // stops; the typing goes on
    assert.deepEqual(session.calls, [['interrupt', 'user_stop']]);
    for (let i = 0; i < 10; i++) {
      clock.advance(200);
      await ui.press(['y', KEY.enter, 'go', ' '][i % 4]!);
    }
    clock.advance(200);
    await ui.press(`again${KEY.enter}`);
    assert.deepEqual(submitted, []);
    assert.equal(ui.frame(), 'Stopped by you\nKeys ignored while you were typing — type again\n> Type a prompt and press Enter');
    clock.advance(250); // quiet: the next key is meant for the prompt
    await ui.press('h', 'i', KEY.enter);
    assert.deepEqual(submitted, ['hi']);
    assert.equal(ui.frame(), 'Stopped by you\n> Type a prompt and press Enter');
    ui.unmount();
  });

  it('a prompt begun after the input was quiet is typed as usual, however fast (the answer hold does not apply)', async () => {
    const submitted: string[] = [];
    const clock = manualClock();
    const session = new FakeSession();
    // The default hold (150 ms, real time): keys 90 ms apart on the quiet clock arrive well within it.
    const ui = await render(<InputTransition session={session} now={clock.now} onSubmit={(t) => submitted.push(t)} />);
    session.set({ status: 'running' });
    await tick();
    await ui.press(KEY.escape);
    session.set({ status: 'interrupted', interruption: { reason: 'user_stop', label: 'Stopped by you', at: new Date(0).toISOString(), resumable: true } }, 'interrupted');
    await tick();
    clock.advance(1_000); // a second after the stop
    for (const key of ['g', 'o', ' ', 'o', 'n', KEY.enter]) {
      await ui.press(key);
      clock.advance(90);
    }
    assert.deepEqual(submitted, ['go on']);
    assert.equal(ui.frame(), 'Stopped by you\n> Type a prompt and press Enter');
    ui.unmount();
  });

  it('the first read after a run types but does not submit ("y\\r" pasted, or the tail of keys typed into the run)', async () => {
    const submitted: string[] = [];
    const { ui, session, clock, update } = await setup(new FakeSession(), { onSubmit: (t) => submitted.push(t) });
    await update(() => session.set({ status: 'running' }));
    await update(() => session.set({ status: 'idle' }, 'run_finished'));
    clock.advance(1_000);
    await ui.press(`y${KEY.enter}`);
    assert.deepEqual(submitted, []);
    assert.match(ui.frame(), /^> y/);
    await ui.press(KEY.enter);
    assert.deepEqual(submitted, ['y']);
    ui.unmount();
  });

  it('the prompt after a finished run ignores keys until the input is quiet', async () => {
    const submitted: string[] = [];
    const { ui, session, clock, update } = await setup(new FakeSession(), { onSubmit: (t) => submitted.push(t) });
    await update(() => session.set({ status: 'running' }));
    await update(() => session.set({ status: 'idle' }, 'run_finished'));
    await ui.press(`x${KEY.enter}`);
    assert.deepEqual(submitted, []);
    clock.advance(250);
    await ui.press('o', 'k', KEY.enter);
    assert.deepEqual(submitted, ['ok']);
    ui.unmount();
  });

  it('a paste whose end never comes does not swallow the next Esc', async () => {
    const { ui, session, update } = await setup();
    await update(() => session.set({ status: 'running' }));
    await ui.press(`${KEY.escape}[200~rm -rf`); // the terminal's paste end is lost
    await ui.press('y', KEY.enter);
    assert.deepEqual(session.calls, []);
    await ui.press(KEY.escape);
    assert.deepEqual(session.calls, [['interrupt', 'user_stop']]);
    ui.unmount();
  });

  it('a paste answers no pause of any kind', async () => {
    const { ui, session, clock, update } = await setup();
    for (const pause of [confirmPause, continuePause, { ...continuePause, id: 'p9', source: 'signal' as const }]) {
      await update(() => session.pauseWith(pause));
      clock.advance(1_000);
      await ui.press(`${KEY.escape}[200~y${KEY.enter}${KEY.escape}[201~`, `yes${KEY.enter}`);
      assert.deepEqual(session.calls, [], `${pause.id}: ${ui.frame()}`);
      session.set({ status: 'running', pause: null, pauses: [] });
    }
    ui.unmount();
  });
});
