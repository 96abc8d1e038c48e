/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { Grant } from '../../../node/index.js';
import { KEY, cleanup, manualClock, render, tick } from '../testing/ink.js';
import { GRANTS_HINT, GRANTS_IGNORED_HINT, GrantsView } from './GrantsView.js';

const grants: Grant[] = [
  { tool: 'deploy', key: 'deploy build 42 to staging', scope: 'session', session: 'chat', at: '2026-11-26T13:45:02.123456789Z' },
  { tool: 'bash', key: 'rm -rf /tmp/demo/demo-scratch', scope: 'project', root: '/tmp/demo', at: '2026-11-26T13:46:10+01:00' },
];

function recorder() {
  const calls: string[] = [];
  return {
    calls,
    onRevoke: (g: Grant) => void calls.push(`revoke ${g.tool}: ${g.key}`),
    onClose: () => void calls.push('close'),
  };
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

afterEach(cleanup);

describe('GrantsView', () => {
  it('shows control characters of a tool, key or place as visible signs: nothing writes over the list', async () => {
    const hostile: Grant[] = [{ tool: 'bash\u001b[8m', key: 'rm -rf ./\rls ./', scope: 'project', root: '/tmp/x\u001b]52;c;eA==\u0007', at: grants[1]!.at }];
    const ui = await render(<GrantsView grants={hostile} onRevoke={() => {}} />);
    assert.doesNotMatch(ui.lastFrame() ?? '', /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    assert.match(ui.frame(), /› bash␛\[8m  rm -rf \.\/␍ls \.\/ +· this project \(\/tmp\/x␛\]52;c;eA==␇\)/);
    ui.unmount();
  });

  it('lists each grant: tool, key, scope and where, since when', async () => {
    const ui = await render(<GrantsView grants={grants} onRevoke={() => {}} />);
    assert.equal(
      ui.frame(),
      [
        'Remembered approvals: approved again without asking',
        '› deploy  deploy build 42 to staging     · this session (chat) · since 2026-11-26 13:45:02',
        '  bash    rm -rf /tmp/demo/demo-scratch  · this project (/tmp/demo) · since 2026-11-26 13:46:10',
        GRANTS_HINT,
      ].join('\n'),
    );
    ui.unmount();
    const empty = await render(<GrantsView grants={[]} onRevoke={() => {}} />);
    assert.match(empty.frame(), /Nothing is remembered: every confirm asks\.\nEsc back$/);
    empty.unmount();
  });

  it('X revokes the selected grant once, after the quiet period; Esc goes back', async () => {
    const clock = manualClock();
    const rec = recorder();
    const ui = await render(<GrantsView grants={grants} {...rec} quiet={{ now: clock.now, holdMs: 0 }} />);
    await ui.press(KEY.down);
    assert.match(ui.frame(), /› bash/);
    clock.advance(250);
    await ui.press('x');
    clock.advance(250);
    await ui.press('X'); // the list has not caught up yet: still one revoke
    assert.deepEqual(rec.calls, ['revoke bash: rm -rf /tmp/demo/demo-scratch']);
    await ui.press(KEY.escape);
    assert.deepEqual(rec.calls.at(-1), 'close');
    ui.unmount();
  });

  it('x typed on after moving, in a flood or in a paste takes nothing back', async () => {
    const clock = manualClock();
    const rec = recorder();
    const ui = await render(<GrantsView grants={grants} {...rec} quiet={{ now: clock.now, holdMs: 0 }} />);
    for (let t = 0; t < 2_000; t += 200) {
      await ui.press(t % 400 === 0 ? 'x' : 'X');
      clock.advance(200);
    }
    assert.match(ui.frame(), new RegExp(GRANTS_IGNORED_HINT));
    clock.advance(1_000);
    await ui.press('j');
    await ui.press('x'); // right after the move: the new selection has not been quiet
    for (const chunk of ['xx', 'jx', 'xX', '\u001B[200~x\u001B[201~', 'x\r']) {
      clock.advance(1_000);
      await ui.press(chunk);
    }
    assert.deepEqual(rec.calls, []);
    clock.advance(250);
    await ui.press('x');
    assert.deepEqual(rec.calls, ['revoke bash: rm -rf /tmp/demo/demo-scratch'], 'a deliberate x still works');
    ui.unmount();
  });

  it('x delivered in a run after a stall takes nothing back (the hold)', async () => {
    const clock = manualClock();
    const rec = recorder();
    const ui = await render(<GrantsView grants={grants} {...rec} quiet={{ now: clock.now, holdMs: 40 }} />);
    clock.advance(1_000);
    ui.stdin.write('x'); // admitted and held ...
    await tick();
    ui.stdin.write('x'); // ... and the rest of the flood drops it
    await delay(100);
    await tick();
    assert.deepEqual(rec.calls, []);
    ui.unmount();
  });

  it('inactive, it reads no keys', async () => {
    const clock = manualClock();
    const rec = recorder();
    const ui = await render(<GrantsView grants={grants} {...rec} isActive={false} quiet={{ now: clock.now, holdMs: 0 }} />);
    clock.advance(1_000);
    await ui.press('x', KEY.escape);
    assert.deepEqual(rec.calls, []);
    ui.unmount();
  });
});
