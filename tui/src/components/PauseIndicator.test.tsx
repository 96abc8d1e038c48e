/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
import assert from 'node:assert/strict';
import { afterEach, describe, it, mock } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { cleanup, KEY, manualClock, render, tick } from '../testing/ink.js';
import type { PauseInfo } from '../../../node/index.js';
import type { PauseDecision, RememberChoice } from '../types.js';
import { IGNORED_HINT, PauseIndicator } from './PauseIndicator.js';

const pageLoaded: PauseInfo = {
  id: 'p-web', kind: 'continue', source: 'tool', tool: 'WebSearch', message: 'Page loaded: https://example.test/', step: 1, at: '2026-11-28T10:00:00Z',
};
const dangerous: PauseInfo = {
  id: 'p-bash', kind: 'confirm', source: 'tool', tool: 'Bash', message: 'Potentially dangerous command', details: 'rm -rf /important/*', step: 2, at: '2026-11-28T10:00:01Z',
};

/** A JS tool's confirm whose approval can be remembered. */
const deploy: PauseInfo = {
  id: 'p-deploy', kind: 'confirm', source: 'tool', tool: 'deploy', message: 'Deploy to production?', rememberScopes: ['session', 'project'], step: 3, at: '2026-11-28T10:00:02Z',
};

function recorder() {
  const decisions: ([PauseDecision, string] | [PauseDecision, string, RememberChoice])[] = [];
  const onDecision = (d: PauseDecision, id: string, remember?: RememberChoice) =>
    void decisions.push(remember ? [d, id, remember] : [d, id]);
  return { decisions, onDecision };
}

afterEach(cleanup);

/**
 * What a model can put in a command or message to make the terminal show
 * something else than what runs: a carriage return or backspaces to write
 * over it, ESC sequences to conceal it or talk to the terminal (OSC 52
 * writes the clipboard), a C1 CSI, a bell, a right-to-left override.
 */
const HIDING = ['\r', '\b\b', '\u001b[8m', '\u001b]52;c;cm0gLXJmIH4=\u0007', '\u009b2K', '\u0007', '\u202e'];
/** Characters a terminal acts on rather than shows (newline and tab aside). */
const ACTED_ON = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe('PauseIndicator', () => {
  it('shows every control character of the engine\'s strings as a visible sign: nothing can write over the command', async () => {
    for (const hide of HIDING) {
      const pause: PauseInfo = {
        ...deploy, tool: `deploy${hide}`, message: `Run it?${hide}`, details: `rm -rf ./${hide}ls -la ./`, rememberKey: `rm -rf ./${hide}ls`,
      };
      const ui = await render(<PauseIndicator holdMs={0} pause={pause} />);
      const raw = ui.lastFrame() ?? '';
      assert.doesNotMatch(raw, ACTED_ON, `${JSON.stringify(hide)} reached the terminal: ${JSON.stringify(raw)}`);
      assert.match(raw, /rm -rf \.\/.+ls -la \.\//, 'the whole command is on its line');
      ui.unmount();
    }
    const ui = await render(<PauseIndicator holdMs={0} pause={{ ...dangerous, details: 'rm -rf ./\rls -la ./\n\techo done' }} />);
    assert.equal(ui.frame().split('\n')[1], 'rm -rf ./␍ls -la ./', 'a carriage return shows as ␍');
    assert.match(ui.frame(), /\n\techo done\n/, 'newlines and tabs of a multi-line command stay');
    ui.unmount();
  });

  it('renders a continue pause as the seed says', async () => {
    const ui = await render(<PauseIndicator holdMs={0} pause={pageLoaded} />);
    assert.equal(
      ui.frame(),
      '⏸ WebSearch paused: Page loaded: https://example.test/\n(Press Enter to continue, Esc to stop)',
    );
    ui.unmount();
  });

  it('renders a confirm pause with the command on its own line', async () => {
    const ui = await render(<PauseIndicator holdMs={0} pause={dangerous} />);
    assert.equal(
      ui.frame(),
      '⚠️ Bash: Potentially dangerous command\nrm -rf /important/*\n[Y] Approve  [N] Deny  [Esc] Cancel',
    );
    ui.unmount();
  });

  it('says why a confirm asks: the gate\'s reasons, with the tier and rule of a policy rule', async () => {
    const reasons = ['user rule "ask-prod" (production needs a second look): kubectl apply -f k8s/', 'subcommand that changes state outside the project: kubectl apply -f k8s/'];
    const ui = await render(<PauseIndicator holdMs={0} pause={{ ...dangerous, details: 'kubectl apply -f k8s/', reasons }} />);
    assert.equal(
      ui.frame(),
      `⚠️ Bash: Potentially dangerous command\nkubectl apply -f k8s/\n· ${reasons[0]}\n· ${reasons[1]}\n[Y] Approve  [N] Deny  [Esc] Cancel`,
    );
    ui.unmount();
  });

  it('offers the scopes a confirm can be remembered with, and only those', async () => {
    const ui = await render(<PauseIndicator holdMs={0} pause={deploy} />);
    assert.equal(
      ui.frame(),
      '⚠️ deploy: Deploy to production?\n[Y] Approve  [S] Approve for this session  [P] Approve for this project  [N] Deny  [Esc] Cancel',
    );
    ui.rerender(<PauseIndicator holdMs={0} pause={{ ...deploy, rememberScopes: ['session'] }} />);
    assert.equal(ui.frame(), '⚠️ deploy: Deploy to production?\n[Y] Approve  [S] Approve for this session  [N] Deny  [Esc] Cancel');
    ui.unmount();
  });

  it('says what a remembered approval approves again, only where one can be remembered', async () => {
    const keyed = { ...deploy, rememberKey: 'deploy api to production' };
    const ui = await render(<PauseIndicator holdMs={0} pause={keyed} />);
    assert.equal(
      ui.frame(),
      '⚠️ deploy: Deploy to production?\nRemembering approves again without asking: deploy api to production\n' +
        '[Y] Approve  [S] Approve for this session  [P] Approve for this project  [N] Deny  [Esc] Cancel',
    );
    ui.rerender(<PauseIndicator holdMs={0} pause={{ ...keyed, rememberScopes: undefined }} />);
    assert.equal(ui.frame(), '⚠️ deploy: Deploy to production?\n[Y] Approve  [N] Deny  [Esc] Cancel');
    ui.unmount();
  });

  for (const [name, pause, key, want] of [
    ['s approves for the session', deploy, 's', [['approve', 'p-deploy', 'session']]],
    ['S approves for the session', deploy, 'S', [['approve', 'p-deploy', 'session']]],
    ['p approves for the project', deploy, 'p', [['approve', 'p-deploy', 'project']]],
    ['P approves for the project', deploy, 'P', [['approve', 'p-deploy', 'project']]],
    ['y approves once', deploy, 'y', [['approve', 'p-deploy']]],
    ['s does nothing where nothing can be remembered', dangerous, 's', []],
    ['p does nothing where only the session is offered', { ...deploy, rememberScopes: ['session'] } as PauseInfo, 'p', []],
    ['s does nothing at a continue pause', pageLoaded, 's', []],
  ] as const) {
    it(`confirm: ${name}`, async () => {
      const clock = manualClock();
      const { decisions, onDecision } = recorder();
      const ui = await render(<PauseIndicator holdMs={0} pause={pause} onDecision={onDecision} now={clock.now} />);
      clock.advance(250);
      await ui.press(key);
      assert.deepEqual(decisions, want);
      ui.unmount();
    });
  }

  it('a flood of s, S, p, P and y through the moment a confirm appears remembers nothing', async () => {
    const clock = manualClock();
    const { decisions, onDecision } = recorder();
    const flood = ['s', 'S', 'p', 'P', 'y'];
    const ui = await render(<PauseIndicator holdMs={0} pause={deploy} onDecision={onDecision} now={clock.now} />);
    for (let t = 0; t < 2_000; t += 240) {
      await ui.press(flood[(t / 240) % flood.length]!);
      clock.advance(240);
    }
    assert.deepEqual(decisions, []);
    assert.ok(ui.frame().endsWith(IGNORED_HINT.confirm), ui.frame());
    clock.advance(10);
    await ui.press('n');
    assert.deepEqual(decisions, [['deny', 'p-deploy']]);
    ui.unmount();
  });

  it('s or p delivered in a run after a stall remember nothing (the hold)', async () => {
    const clock = manualClock();
    const { decisions, onDecision } = recorder();
    const ui = await render(<PauseIndicator pause={deploy} onDecision={onDecision} now={clock.now} holdMs={40} />);
    clock.advance(1_000);
    ui.stdin.write('s'); // admitted and held ...
    await tick();
    ui.stdin.write('p'); // ... and the rest of the flood drops it
    await delay(100);
    await tick();
    assert.deepEqual(decisions, []);
    for (const chunk of ['sp', 'Ps', 'sy']) {
      clock.advance(1_000);
      await ui.press(chunk); // several printable keys in one read: a flood that piled up
    }
    assert.deepEqual(decisions, []);
    ui.unmount();
  });

  it('a paste holding s or p never remembers', async () => {
    const clock = manualClock();
    const { decisions, onDecision } = recorder();
    const ui = await render(<PauseIndicator holdMs={0} pause={deploy} onDecision={onDecision} now={clock.now} />);
    for (const chunk of ['\u001B[200~s\u001B[201~', '\u001B[200~p\r\u001B[201~', 'sure\r', 'please\r']) {
      clock.advance(1_000);
      await ui.press(chunk);
    }
    assert.deepEqual(decisions, []);
    ui.unmount();
  });

  for (const [name, pause, key, decision] of [
    ['continue: Enter resumes', pageLoaded, KEY.enter, 'resume'],
    ['continue: Esc cancels', pageLoaded, KEY.escape, 'cancel'],
    ['confirm: y approves', dangerous, 'y', 'approve'],
    ['confirm: Y approves', dangerous, 'Y', 'approve'],
    ['confirm: n denies', dangerous, 'n', 'deny'],
    ['confirm: Esc cancels', dangerous, KEY.escape, 'cancel'],
  ] as const) {
    it(`${name}, naming the pause`, async () => {
      const clock = manualClock();
      const { decisions, onDecision } = recorder();
      const ui = await render(<PauseIndicator holdMs={0} pause={pause} onDecision={onDecision} now={clock.now} />);
      clock.advance(250);
      await ui.press(key);
      assert.deepEqual(decisions, [[decision, pause.id]]);
      ui.unmount();
    });
  }

  it('ignores keys that answer the other kind of pause', async () => {
    const clock = manualClock();
    const { decisions, onDecision } = recorder();
    const ui = await render(<PauseIndicator holdMs={0} pause={pageLoaded} onDecision={onDecision} now={clock.now} />);
    clock.advance(1000);
    await ui.press('y', 'n', 'x', ' ');
    assert.deepEqual(decisions, []);
    ui.rerender(<PauseIndicator holdMs={0} pause={dangerous} onDecision={onDecision} now={clock.now} />);
    clock.advance(1000);
    await ui.press(KEY.enter, 'x');
    assert.deepEqual(decisions, []);
    ui.unmount();
  });

  it('a key during the quiet period restarts it; a key after a quiet period answers; Esc never waits', async () => {
    const clock = manualClock();
    const { decisions, onDecision } = recorder();
    const ui = await render(<PauseIndicator holdMs={0} pause={dangerous} onDecision={onDecision} now={clock.now} settleMs={250} />);
    await ui.press('y'); // at once
    clock.advance(249);
    await ui.press('x'); // any key restarts the quiet period
    clock.advance(249);
    await ui.press('y'); // 498 ms after the pause, but only 249 ms after the last key
    assert.deepEqual(decisions, [], 'no key came after 250 quiet ms');
    assert.match(ui.frame(), /Keys ignored while you were typing — press Y or N again$/);
    clock.advance(250);
    await ui.press('n');
    assert.deepEqual(decisions, [['deny', 'p-bash']], 'a key after 250 quiet ms answers');
    await ui.press(KEY.escape);
    assert.deepEqual(decisions, [['deny', 'p-bash'], ['cancel', 'p-bash']], 'Esc works at once, even after an answer');
    ui.unmount();
  });

  for (const pause of [dangerous, pageLoaded]) {
    it(`a flood of y, Y, Enter and space through the moment a ${pause.kind} pause appears answers nothing`, async () => {
      const clock = manualClock();
      const { decisions, onDecision } = recorder();
      const flood = ['y', 'Y', KEY.enter, KEY.space];
      const ui = await render(<PauseIndicator holdMs={0} pause={pause} onDecision={onDecision} now={clock.now} />);
      // 2 s of keys 240 ms apart (just inside the quiet period), then silence.
      for (let t = 0; t < 2_000; t += 240) {
        await ui.press(flood[(t / 240) % flood.length]!);
        clock.advance(240);
      }
      assert.deepEqual(decisions, []);
      assert.ok(ui.frame().endsWith(IGNORED_HINT[pause.kind]), ui.frame());
      clock.advance(10); // 250 ms of quiet since the last key: the next key is meant
      await ui.press(pause.kind === 'confirm' ? 'n' : KEY.enter);
      assert.deepEqual(decisions, [[pause.kind === 'confirm' ? 'deny' : 'resume', pause.id]]);
      ui.unmount();
    });
  }

  for (const [name, chunk] of [
    ['Esc then y', `${KEY.escape}y`],
    ['Esc then Y', `${KEY.escape}Y`],
    ['Esc then Enter', `${KEY.escape}${KEY.enter}`],
    ['y then Esc', `y${KEY.escape}`],
    ['Esc, Esc', `${KEY.escape}${KEY.escape}`],
    ['Esc and an unknown sequence', `${KEY.escape}[9q`],
  ] as const) {
    it(`${name} in one read cancels and never answers`, async () => {
      const clock = manualClock();
      const { decisions, onDecision } = recorder();
      const ui = await render(<PauseIndicator holdMs={0} pause={dangerous} onDecision={onDecision} now={clock.now} />);
      clock.advance(1_000);
      await ui.press(chunk);
      assert.deepEqual(decisions, [['cancel', 'p-bash']]);
      ui.unmount();
    });
  }

  it('a known key sequence (an arrow) is not Esc', async () => {
    const clock = manualClock();
    const { decisions, onDecision } = recorder();
    const ui = await render(<PauseIndicator holdMs={0} pause={dangerous} onDecision={onDecision} now={clock.now} />);
    await ui.press(KEY.up, KEY.down, '\u001B[1;5C', '\u001BOA');
    assert.deepEqual(decisions, []);
    ui.unmount();
  });

  it('n and Enter in one read deny (a deny with more keys fails safe)', async () => {
    const clock = manualClock();
    const { decisions, onDecision } = recorder();
    const ui = await render(<PauseIndicator holdMs={0} pause={dangerous} onDecision={onDecision} now={clock.now} />);
    clock.advance(300);
    await ui.press(`n${KEY.enter}`);
    assert.deepEqual(decisions, [['deny', 'p-bash']]);
    ui.unmount();
  });

  // A plain paste (the terminal did not mark it) of y and a line break is one read "y\r".
  for (const [name, pause, chunk] of [
    ['y and Enter', dangerous, `y${KEY.enter}`],
    ['Y and Enter', dangerous, `Y${KEY.enter}`],
    ['s and Enter', deploy, `s${KEY.enter}`],
    ['p and Enter', deploy, `p${KEY.enter}`],
    ['y and an arrow', dangerous, `y${KEY.down}`],
    ['Enter and Enter', pageLoaded, `${KEY.enter}${KEY.enter}`],
    ['Enter and y', pageLoaded, `${KEY.enter}y`],
  ] as const) {
    it(`${name} in one read approve nothing: an approving key counts only alone`, async () => {
      const clock = manualClock();
      const { decisions, onDecision } = recorder();
      const ui = await render(<PauseIndicator holdMs={0} pause={pause} onDecision={onDecision} now={clock.now} />);
      clock.advance(300);
      await ui.press(chunk);
      assert.deepEqual(decisions, []);
      assert.ok(ui.frame().endsWith(IGNORED_HINT[pause.kind]), ui.frame());
      // The same key alone, after a quiet period, answers.
      clock.advance(300);
      await ui.press(pause.kind === 'confirm' ? chunk[0]! : KEY.enter);
      assert.equal(decisions.length, 1);
      ui.unmount();
    });
  }

  for (const pause of [dangerous, pageLoaded]) {
    for (const [name, chunk] of [
      ['bracketed paste', '\u001B[200~y\r\u001B[201~'],
      ['bracketed paste of a line break', '\u001B[200~\r\u001B[201~'],
      ['pasted y and a line break', 'y\r'],
      ['bracketed paste split over reads', ['\u001B[200~', 'y', '\r\u001B[201~']],
      ['pasted text', 'yes\r'],
      ['pasted lines', '\r\ry\r'],
    ] as const) {
      it(`a paste never answers a ${pause.kind} pause (${name})`, async () => {
        const clock = manualClock();
        const { decisions, onDecision } = recorder();
        const ui = await render(<PauseIndicator holdMs={0} pause={pause} onDecision={onDecision} now={clock.now} />);
        clock.advance(1_000);
        await ui.press(...(typeof chunk === 'string' ? [chunk] : chunk));
        assert.deepEqual(decisions, []);
        ui.unmount();
      });
    }
  }

  it('by default settles after 250 ms of a monotonic clock, whatever the wall clock does', async () => {
    const { decisions, onDecision } = recorder();
    let wall = Date.now();
    mock.method(Date, 'now', () => wall);
    try {
      const ui = await render(<PauseIndicator pause={dangerous} onDecision={onDecision} />);
      const shown = performance.now();
      await ui.press('y');
      wall -= 3_600_000; // the wall clock steps back an hour (NTP)
      // The settle time is what is measured here, so it is waited for in real time.
      await delay(Math.max(0, 250 - (performance.now() - shown)) + 20);
      await ui.press('y');
      await delay(250); // the default hold (150 ms): no more keys, so the answer acts
      assert.deepEqual(decisions, [['approve', 'p-bash']], 'answered once 250 ms of real time passed');
      ui.unmount();
    } finally {
      mock.restoreAll();
    }
  });

  it('a held Y repeating slowly (every 100 ms, as a slow key-repeat setting sends it) approves nothing', async () => {
    // The held key answered the pause before; its first repeat comes after the new pause settled.
    const { decisions, onDecision } = recorder();
    const ui = await render(<PauseIndicator pause={dangerous} onDecision={onDecision} />);
    await delay(270); // the default settle, in real time
    for (let i = 0; i < 4; i++) {
      ui.stdin.write('y');
      await delay(100);
    }
    assert.deepEqual(decisions, []);
    ui.unmount();
  });

  it('answers a pause once, and a new pause gets its own settle time', async () => {
    const clock = manualClock();
    const { decisions, onDecision } = recorder();
    const ui = await render(<PauseIndicator holdMs={0} pause={dangerous} onDecision={onDecision} now={clock.now} />);
    clock.advance(300);
    await ui.press('y');
    clock.advance(300);
    await ui.press('y');
    clock.advance(300);
    await ui.press('n');
    assert.deepEqual(decisions, [['approve', 'p-bash']]);

    const next: PauseInfo = { ...dangerous, id: 'p-bash-2', details: 'rm -rf ./other' };
    ui.rerender(<PauseIndicator holdMs={0} pause={next} onDecision={onDecision} now={clock.now} />);
    await ui.press('y');
    assert.deepEqual(decisions, [['approve', 'p-bash']], 'a key right after the new pause appeared');
    clock.advance(300);
    await ui.press('n');
    assert.deepEqual(decisions, [['approve', 'p-bash'], ['deny', 'p-bash-2']]);
    ui.unmount();
  });

  it('an answer acts only if the input stays quiet for holdMs: keys delivered in a run after a stall answer nothing', async () => {
    const clock = manualClock();
    const { decisions, onDecision } = recorder();
    const ui = await render(<PauseIndicator pause={dangerous} onDecision={onDecision} now={clock.now} holdMs={40} />);
    clock.advance(1_000); // the flood stalled on its way: a gap that looks like a pause
    ui.stdin.write('y'); // the first key after the gap is admitted and held ...
    await tick();
    ui.stdin.write('Y'); // ... the rest of the flood follows it at once
    await delay(100);
    await tick();
    assert.deepEqual(decisions, [], 'a key that more input followed within 40 ms');
    assert.ok(ui.frame().endsWith(IGNORED_HINT.confirm), ui.frame());
    clock.advance(1_000);
    ui.stdin.write('n');
    await delay(100); // nothing follows it: it acts
    assert.deepEqual(decisions, [['deny', 'p-bash']]);
    ui.unmount();
  });

  it('listens to no key when inactive', async () => {
    const clock = manualClock();
    const { decisions, onDecision } = recorder();
    const ui = await render(
      <PauseIndicator holdMs={0} pause={dangerous} onDecision={onDecision} now={clock.now} isActive={false} />,
    );
    clock.advance(1000);
    await ui.press('y', KEY.escape);
    assert.deepEqual(decisions, []);
    ui.unmount();
  });
});
