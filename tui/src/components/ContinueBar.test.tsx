/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { cleanup, manualClock, render } from '../testing/ink.js';
import { ContinueBar, REPEATS_SIDE_EFFECT_HINT } from './ContinueBar.js';
import { ResumeAllConfirm } from './ResumeAllConfirm.js';
import { KEY } from '../testing/ink.js';

afterEach(cleanup);

describe('ContinueBar', () => {
  it('offers Continue with its reason only when eligible; C continues', async () => {
    let continued = 0;
    const clock = manualClock();
    const ui = await render(
      <ContinueBar session={{ runState: 'interrupted', reasonLabel: 'Stopped by emergency stop', eligible: true }} onContinue={() => continued++} quiet={{ now: clock.now, holdMs: 0 }} />,
    );
    assert.equal(ui.frame(), 'Stopped by emergency stop — [C] Continue');
    clock.advance(250);
    await ui.press('c');
    assert.equal(continued, 1);
    ui.unmount();
  });

  it('a session blocked by a restart offers Continue, which asks its question again: C continues', async () => {
    let continued = 0;
    const clock = manualClock();
    const session = { runState: 'blocked', reasonLabel: 'Interrupted by server restart', waitingFor: 'Potentially dangerous command', eligible: false, asksAgain: true } as const;
    const ui = await render(<ContinueBar session={session} onContinue={() => continued++} quiet={{ now: clock.now, holdMs: 0 }} />);
    assert.equal(ui.frame(), 'Interrupted by server restart — [C] Continue\nAsks again: Potentially dangerous command');
    clock.advance(250);
    await ui.press('c');
    assert.equal(continued, 1);
    ui.unmount();
  });

  it('says continuing asks first when it may repeat a side effect', async () => {
    const ui = await render(<ContinueBar session={{ runState: 'interrupted', reasonLabel: 'Stopped by you', eligible: true, repeatsSideEffect: true }} />);
    assert.equal(ui.frame(), `Stopped by you — [C] Continue\n⚠️ ${REPEATS_SIDE_EFFECT_HINT}`);
    ui.unmount();
  });

  it('keys typed on through the stop never continue: C counts after a quiet period', async () => {
    let continued = 0;
    const clock = manualClock();
    const ui = await render(
      <ContinueBar session={{ runState: 'interrupted', reasonLabel: 'Stopped by you', eligible: true }} onContinue={() => continued++} quiet={{ now: clock.now, holdMs: 0 }} />,
    );
    for (const key of ['c', 'a', 'c', 'C']) {
      await ui.press(key);
      clock.advance(100);
    }
    assert.equal(continued, 0);
    assert.match(ui.frame(), /Keys ignored while you were typing — press C again/);
    clock.advance(150);
    await ui.press('C');
    assert.equal(continued, 1);
    ui.unmount();
  });

  it('C continues only alone in its read: pasted "c\\r" continues nothing', async () => {
    let continued = 0;
    const clock = manualClock();
    const ui = await render(
      <ContinueBar session={{ runState: 'interrupted', reasonLabel: 'Stopped by you', eligible: true }} onContinue={() => continued++} quiet={{ now: clock.now, holdMs: 0 }} />,
    );
    clock.advance(250);
    await ui.press(`c${KEY.enter}`);
    assert.equal(continued, 0);
    assert.match(ui.frame(), /Keys ignored while you were typing — press C again/);
    clock.advance(250);
    await ui.press('c');
    assert.equal(continued, 1);
    ui.unmount();
  });

  it('another session shown in its place starts its own quiet period', async () => {
    let continued = '';
    const clock = manualClock();
    const bar = (id: string) => (
      <ContinueBar session={{ id, runState: 'interrupted', reasonLabel: 'Stopped by you', eligible: true }} onContinue={() => (continued += id)} quiet={{ now: clock.now, holdMs: 0 }} />
    );
    const ui = await render(bar('a'));
    clock.advance(5_000); // the user has read a's bar; the app now shows b
    ui.rerender(bar('b'));
    await ui.press('c'); // meant for a
    assert.equal(continued, '');
    clock.advance(250);
    await ui.press('c');
    assert.equal(continued, 'b');
    ui.unmount();
  });

  for (const [name, session, want] of [
    ['blocked', { runState: 'blocked', eligible: false }, 'Waiting for your input'],
    ['proceeding', { runState: 'proceeding', eligible: false }, ''],
    ['idle', { runState: 'idle', eligible: false }, ''],
    ['interrupted but not eligible', { runState: 'interrupted', reasonLabel: 'Stopped by you', eligible: false }, ''],
    ['done', { runState: 'terminal', eligible: false }, ''],
  ] as const) {
    it(`${name}: no Continue, and C does nothing`, async () => {
      let continued = 0;
      const ui = await render(<ContinueBar session={session} onContinue={() => continued++} />);
      assert.equal(ui.frame(), want);
      await ui.press('c');
      assert.equal(continued, 0);
      ui.unmount();
    });
  }
});

describe('ResumeAllConfirm', () => {
  it('says what it resumes and answers once', async () => {
    const answers: boolean[] = [];
    const clock = manualClock();
    const ui = await render(<ResumeAllConfirm sessions={['a']} onDecision={(r) => answers.push(r)} quiet={{ now: clock.now, holdMs: 0 }} />);
    assert.match(ui.frame(), /Resume all will continue 1 session: a/);
    await ui.press('y'); // at once: typed before the dialog was read
    assert.deepEqual(answers, []);
    for (const key of ['y', 'y', KEY.enter]) {
      clock.advance(250);
      await ui.press(key);
    }
    assert.deepEqual(answers, [true]);
    ui.unmount();
  });

  it('a read holding Esc cancels, whatever else it holds', async () => {
    const answers: boolean[] = [];
    const ui = await render(<ResumeAllConfirm sessions={['a', 'b']} onDecision={(r) => answers.push(r)} />);
    await ui.press(`y${KEY.escape}`);
    assert.deepEqual(answers, [false]);
    ui.unmount();
  });
});
