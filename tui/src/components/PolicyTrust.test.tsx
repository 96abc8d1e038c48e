/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { ProjectPolicyReview } from '../../../node/index.js';
import { KEY, cleanup, manualClock, render } from '../testing/ink.js';
import { PolicyTrust } from './PolicyTrust.js';

const review: ProjectPolicyReview = {
  path: '/src/app/.interlock/policy.toml',
  sha256: '3f2a9c0000000000000000000000000000000000000000000000000000000001',
  trusted: false,
  rules: [
    { name: 'no-deploy', decision: 'deny', reason: 'deploys go through CI', matches: 'program make, subcommand deploy' },
    { name: 'gradle', decision: 'allow', reason: 'our build', matches: 'program gradlew', shadow: true },
  ],
};

afterEach(cleanup);

describe('PolicyTrust', () => {
  it('shows the file, the hash trust binds to and its rules, then [Y] Trust  [N] Not now', async () => {
    const ui = await render(<PolicyTrust review={review} onDecision={() => {}} />);
    assert.equal(
      ui.frame(),
      [
        '╭──────────────────────────────────────────────────────────────────────────────────────────────────╮',
        '│ Project policy not trusted: /src/app/.interlock/policy.toml                                      │',
        '│ sha256 3f2a9c0000000000000000000000000000000000000000000000000000000001                          │',
        '│ · deny  no-deploy: program make, subcommand deploy — deploys go through CI                       │',
        '│ · allow gradle: program gradlew — our build (shadow: not enforced)                               │',
        '│ Its rules are used only once you trust it, as it is now: a change asks again.                    │',
        '│ [Y] Trust  [N] Not now                                                                           │',
        '╰──────────────────────────────────────────────────────────────────────────────────────────────────╯',
      ].join('\n'),
    );
    ui.unmount();
  });

  it('Y trusts once, only after the input was quiet; N and Esc say not now', async () => {
    const answers: boolean[] = [];
    const clock = manualClock();
    const ui = await render(<PolicyTrust review={review} onDecision={(t) => answers.push(t)} quiet={{ now: clock.now, holdMs: 0 }} />);
    await ui.press('y'); // at once: typed before the prompt was read
    assert.deepEqual(answers, []);
    clock.advance(250);
    await ui.press('y');
    clock.advance(250);
    await ui.press('y');
    assert.deepEqual(answers, [true]);
    ui.unmount();

    for (const key of ['n', KEY.escape]) {
      const got: boolean[] = [];
      const c = manualClock();
      const no = await render(<PolicyTrust review={review} onDecision={(t) => got.push(t)} quiet={{ now: c.now, holdMs: 0 }} />);
      c.advance(250);
      await no.press(key);
      assert.deepEqual(got, [false], `key ${JSON.stringify(key)}`);
      no.unmount();
    }
  });

  it('pasted "y\\r" trusts nothing', async () => {
    const answers: boolean[] = [];
    const clock = manualClock();
    const ui = await render(<PolicyTrust review={review} onDecision={(t) => answers.push(t)} quiet={{ now: clock.now, holdMs: 0 }} />);
    clock.advance(250);
    await ui.press('y\r');
    assert.deepEqual(answers, []);
    ui.unmount();
  });

  it('a changed file asks again: a new hash is a new question, quiet period and all', async () => {
    const answers: string[] = [];
    const clock = manualClock();
    const decide = (r: ProjectPolicyReview) => (t: boolean) => answers.push(`${t} ${r.sha256.slice(-1)}`);
    const ui = await render(<PolicyTrust review={review} onDecision={decide(review)} quiet={{ now: clock.now, holdMs: 0 }} />);
    clock.advance(250);
    await ui.press('n');
    const changed = { ...review, sha256: review.sha256.slice(0, -1) + '2', rules: [{ ...review.rules[0]!, decision: 'allow' as const }] };
    ui.rerender(<PolicyTrust review={changed} onDecision={decide(changed)} quiet={{ now: clock.now, holdMs: 0 }} />);
    await ui.press('y'); // the new content has not been on screen a while
    assert.match(ui.frame(), /sha256 3f2a9c0+2/);
    assert.match(ui.frame(), /· allow no-deploy/);
    clock.advance(250);
    await ui.press('y');
    assert.deepEqual(answers, ['false 1', 'true 2']);
    ui.unmount();
  });

  it('a file that does not load shows why and cannot be trusted; control characters show as signs', async () => {
    const answers: boolean[] = [];
    const clock = manualClock();
    const broken = { path: '/p/.interlock/policy.toml\u001b[2J', sha256: '', trusted: false, rules: [], error: 'invalid policy: policy.toml:2: not valid TOML' };
    const ui = await render(<PolicyTrust review={broken} onDecision={(t) => answers.push(t)} quiet={{ now: clock.now, holdMs: 0 }} />);
    assert.match(ui.frame(), /Project policy not trusted: \/p\/\.interlock\/policy\.toml␛\[2J/);
    assert.match(ui.frame(), /It does not load, so it cannot be trusted: invalid policy/);
    assert.match(ui.frame(), /\[N\] Not now/);
    assert.doesNotMatch(ui.frame(), /\[Y\] Trust/);
    clock.advance(250);
    await ui.press('y'); // nothing to trust
    clock.advance(250);
    await ui.press('n');
    assert.deepEqual(answers, [false]);
    ui.unmount();
  });
});
