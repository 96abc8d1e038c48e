/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { KEY, cleanup, manualClock, render } from '../testing/ink.js';
import type { CountsView, SessionRow } from '../types.js';
import { GlobalControls } from './GlobalControls.js';
import { SESSIONS_HINT, SessionsView } from './SessionsView.js';

const rows: SessionRow[] = [
  { id: 'build', runState: 'proceeding', eligible: false },
  { id: 'tests', runState: 'interrupted', reasonLabel: 'Stopped by emergency stop', eligible: true },
  { id: 'deploy', runState: 'blocked', waitingFor: 'Potentially dangerous command', eligible: false },
  { id: 'notes', runState: 'idle', eligible: false },
  { id: 'old', runState: 'terminal', eligible: false },
  { id: 'lint', runState: 'interrupted', reasonLabel: 'Stopped by you', eligible: true },
];
const counts: CountsView = { proceeding: 1, eligible: 2, needsInput: 1 };

function recorder() {
  const calls: string[] = [];
  return {
    calls,
    props: {
      onOpen: (id: string) => void calls.push(`open ${id}`),
      onEmergencyStop: () => void calls.push('emergency'),
      onResumeAll: (ids: string[]) => void calls.push(`resume-all ${ids.join(' ')}`),
      onQuit: () => void calls.push('quit'),
    },
  };
}

afterEach(cleanup);

describe('GlobalControls', () => {
  it('shows what each control affects', async () => {
    const ui = await render(<GlobalControls counts={counts} />);
    assert.equal(ui.frame(), '[E] Emergency stop (1 proceeding)   [R] Resume all (2 eligible)   1 needs input');
    ui.unmount();
  });
});

describe('SessionsView', () => {
  it('shows one line per session: badge, reason when interrupted, what it waits for when blocked', async () => {
    const ui = await render(<SessionsView sessions={rows} counts={counts} />);
    assert.equal(
      ui.frame(),
      [
        '[E] Emergency stop (1 proceeding)   [R] Resume all (2 eligible)   1 needs input',
        '',
        '› build     Proceeding',
        '  tests     Interrupted · Stopped by emergency stop',
        '  deploy    Needs input · waiting for: Potentially dangerous command',
        '  notes     Idle',
        '  old       Done',
        '  lint      Interrupted · Stopped by you',
        SESSIONS_HINT,
      ].join('\n'),
    );
    ui.unmount();
  });

  it('shows control characters of an id or what a session waits for as visible signs', async () => {
    const hostile: SessionRow[] = [{ id: 'a\u001b[2J\rb', runState: 'blocked', waitingFor: 'rm -rf ./\rls ./', eligible: false }];
    const ui = await render(<SessionsView sessions={hostile} counts={counts} />);
    assert.doesNotMatch(ui.lastFrame() ?? '', /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    assert.match(ui.frame(), /› a␛\[2J␍b +Needs input · waiting for: rm -rf \.\/␍ls \.\//);
    ui.unmount();
  });

  it('moves with arrows and j/k (bounded) and opens with Enter', async () => {
    const { calls, props } = recorder();
    const ui = await render(<SessionsView sessions={rows} counts={counts} {...props} />);
    await ui.press(KEY.up, KEY.down, 'j');
    assert.match(ui.frame(), /› deploy/);
    await ui.press('k', KEY.enter);
    await ui.press(KEY.down, KEY.down, KEY.down, KEY.down, KEY.down, KEY.down, KEY.enter);
    await ui.press(`${KEY.up}${KEY.up}${KEY.up}${KEY.down}${KEY.enter}`); // one read: each key counts
    assert.deepEqual(calls, ['open tests', 'open lint', 'open notes']);
    ui.unmount();
  });

  it('with more sessions than the terminal has rows, shows the ones around the cursor and how many more', async () => {
    // 500 sessions in a 24-row terminal: the list fits, the cursor's row and the controls stay on screen.
    const many: SessionRow[] = Array.from({ length: 500 }, (_, i) => ({ id: `s${i}`, runState: 'interrupted', reasonLabel: 'Stopped by emergency stop', eligible: true }));
    const { calls, props } = recorder();
    const clock = manualClock();
    const ui = await render(<SessionsView sessions={many} counts={{ proceeding: 0, eligible: 500, needsInput: 0 }} quiet={{ now: clock.now, holdMs: 0 }} {...props} />);
    Object.defineProperty(ui.stdout, 'rows', { value: 24 });
    ui.rerender(<SessionsView sessions={many} counts={{ proceeding: 0, eligible: 500, needsInput: 0 }} quiet={{ now: clock.now, holdMs: 0 }} {...props} />);
    await ui.press('j'.repeat(300)); // one read: each key counts
    const lines = ui.frame().split('\n');
    assert.ok(lines.length < 24, `${lines.length} lines in a 24-row terminal`);
    assert.match(lines[0], /Emergency stop \(0 proceeding\)/);
    assert.equal(lines.filter((l) => l.startsWith('› ')).length, 1);
    assert.match(ui.frame(), /› s300 /);
    assert.match(ui.frame(), /↑ \d+ more/);
    assert.match(ui.frame(), /↓ \d+ more/);
    await ui.press(KEY.enter);
    assert.deepEqual(calls, ['open s300']);
    // The confirmation of Resume all fits too: its list of 500 ids is cut to one line.
    await ui.press('r');
    const asking = ui.frame().split('\n');
    assert.ok(asking.length < 24, `${asking.length} lines in a 24-row terminal`);
    assert.match(ui.frame(), /Resume all will continue 500 sessions: s0, s1, /);
    assert.match(ui.frame(), /› s300 /);
    ui.unmount();
  });

  it('E stops everything at once, with no confirmation', async () => {
    const { calls, props } = recorder();
    const ui = await render(<SessionsView sessions={rows} counts={counts} {...props} />);
    await ui.press('e');
    assert.deepEqual(calls, ['emergency']);
    assert.doesNotMatch(ui.frame(), /\[Y\]/);
    ui.unmount();
  });

  it('R shows what it will resume and asks once, owning the keys meanwhile', async () => {
    const { calls, props } = recorder();
    const clock = manualClock();
    const ui = await render(<SessionsView sessions={rows} counts={counts} quiet={{ now: clock.now, holdMs: 0 }} {...props} />);
    await ui.press('r');
    assert.match(ui.frame(), /Resume all will continue 2 sessions: tests, lint .*\n.*\[Y\] Resume  \[N\] Cancel/);
    await ui.press('e', 'q', KEY.down);
    assert.deepEqual(calls, [], 'the dialog owns input: the list keys do nothing, nothing resumed yet');
    clock.advance(250); // quiet: the next key is meant for the dialog
    await ui.press('y', 'y');
    assert.deepEqual(calls, ['resume-all tests lint'], 'one resume per confirmation, of the sessions it listed');
    assert.doesNotMatch(ui.frame(), /Resume all will continue/, 'the dialog is gone');
    ui.unmount();
  });

  for (const [name, answer, want] of [
    ['Enter resumes', KEY.enter, ['resume-all tests lint']],
    ['Y resumes', 'y', ['resume-all tests lint']],
    ['N cancels', 'n', []],
    ['N with Enter in one read cancels', `n${KEY.enter}`, []],
    ['Esc cancels', KEY.escape, []],
  ] as const) {
    it(`resume all: ${name}`, async () => {
      const { calls, props } = recorder();
      const clock = manualClock();
      const ui = await render(<SessionsView sessions={rows} counts={counts} quiet={{ now: clock.now, holdMs: 0 }} {...props} />);
      await ui.press('r');
      clock.advance(250);
      await ui.press(answer);
      assert.deepEqual(calls, want);
      assert.doesNotMatch(ui.frame(), /Resume all will continue/);
      assert.match(ui.frame(), new RegExp(SESSIONS_HINT.replace(/[/]/g, '.')), 'the list owns the keys again');
      ui.unmount();
    });
  }

  it('a session that becomes eligible while Resume all asks starts its quiet period again: a Y at that moment resumes nothing', async () => {
    const { calls, props } = recorder();
    const clock = manualClock();
    const ui = await render(<SessionsView sessions={rows} counts={counts} quiet={{ now: clock.now, holdMs: 0 }} {...props} />);
    await ui.press('r');
    clock.advance(250); // the user has read "2 sessions: tests, lint"
    const more = [...rows, { id: 'deploy-prod', runState: 'interrupted', reasonLabel: 'Stopped by you', eligible: true } as const];
    ui.rerender(<SessionsView sessions={more} counts={{ ...counts, eligible: 3 }} quiet={{ now: clock.now, holdMs: 0 }} {...props} />);
    await ui.press('y'); // meant for the two it said
    assert.deepEqual(calls, [], 'resumed a list the user had no time to read');
    assert.match(ui.frame(), /Resume all will continue 3 sessions: tests, lint, deploy-prod/);
    clock.advance(250);
    await ui.press('y');
    assert.deepEqual(calls, ['resume-all tests lint deploy-prod']);
    ui.unmount();
  });

  it('Resume all names the sessions it listed: one that left the list is not resumed', async () => {
    const { calls, props } = recorder();
    const clock = manualClock();
    const ui = await render(<SessionsView sessions={rows} counts={counts} quiet={{ now: clock.now, holdMs: 0 }} {...props} />);
    await ui.press('r');
    const fewer = rows.map((r) => (r.id === 'lint' ? { ...r, runState: 'proceeding', eligible: false } as const : r));
    ui.rerender(<SessionsView sessions={fewer} counts={{ ...counts, eligible: 1 }} quiet={{ now: clock.now, holdMs: 0 }} {...props} />);
    assert.match(ui.frame(), /Resume all will continue 1 session: tests/);
    clock.advance(250);
    await ui.press('y');
    assert.deepEqual(calls, ['resume-all tests']);
    ui.unmount();
  });

  for (const chunk of [`y${KEY.enter}`, `${KEY.enter}${KEY.enter}`]) {
    it(`resume all: ${JSON.stringify(chunk)} in one read (a plain paste) resumes nothing`, async () => {
      const { calls, props } = recorder();
      const clock = manualClock();
      const ui = await render(<SessionsView sessions={rows} counts={counts} quiet={{ now: clock.now, holdMs: 0 }} {...props} />);
      await ui.press('r');
      clock.advance(250);
      await ui.press(chunk);
      assert.deepEqual(calls, []);
      assert.match(ui.frame(), /Resume all will continue/);
      ui.unmount();
    });
  }

  it('"r" then "y" typed on (into the wrong window) resume nothing', async () => {
    const { calls, props } = recorder();
    const clock = manualClock();
    const ui = await render(<SessionsView sessions={rows} counts={counts} quiet={{ now: clock.now, holdMs: 0 }} {...props} />);
    for (const key of ['r', 'y', KEY.enter, 'y', ' ', 'Y']) {
      await ui.press(key);
      clock.advance(100);
    }
    assert.deepEqual(calls, []);
    assert.match(ui.frame(), /Keys ignored while you were typing — press Y or N again/);
    ui.unmount();
  });

  it('G opens the remembered approvals, and says so, only where the app has them', async () => {
    const calls: string[] = [];
    const ui = await render(<SessionsView sessions={rows} counts={counts} onGrants={() => void calls.push('grants')} />);
    assert.ok(ui.frame().endsWith('↑/↓ move  Enter open  E emergency stop  R resume all  G approvals  q quit'), ui.frame());
    await ui.press('g', 'G');
    assert.deepEqual(calls, ['grants', 'grants']);
    ui.unmount();
    const without = await render(<SessionsView sessions={rows} counts={counts} />);
    assert.ok(without.frame().endsWith(SESSIONS_HINT));
    await without.press('g');
    without.unmount();
  });

  it('R does nothing when no session is eligible; q quits; inactive ignores keys', async () => {
    const { calls, props } = recorder();
    const none = rows.map((r) => ({ ...r, eligible: false }));
    const ui = await render(<SessionsView sessions={none} counts={{ ...counts, eligible: 0 }} {...props} />);
    await ui.press('r');
    assert.doesNotMatch(ui.frame(), /Resume all will continue/);
    await ui.press('q');
    assert.deepEqual(calls, ['quit']);
    ui.unmount();
    const inactive = recorder();
    const ui2 = await render(<SessionsView sessions={rows} counts={counts} isActive={false} {...inactive.props} />);
    await ui2.press('e', KEY.enter, 'q');
    assert.deepEqual(inactive.calls, []);
    ui2.unmount();
  });
});
