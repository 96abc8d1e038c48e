// End-to-end: code of the app itself under Interlock's control, in the demo
// in a real terminal (tmux): a tool written in JS whose ctx.pause() the TUI
// answers with keys (and a key flood does not), Esc aborting the run.signal
// of the demo's own agent loop (session.begin()), and the emergency stop of
// the sessions view reaching a host-driven session.
//
//   node --import tsx --test tui/test/host.test.ts

import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CONFIRM_DIALOG, Terminal, whyNoDemo } from './terminal.js';

const missing = whyNoDemo();
if (missing && process.env.INTERLOCK_REQUIRE_DEMO === '1') throw new Error(`the demo can't run: ${missing}`);
const skip = missing ? `skipped: ${missing}` : false;

const DEMO = [process.execPath, '--import', 'tsx', 'tui/demo/main.tsx'];
const DIALOG = CONFIRM_DIALOG;
const count = (screen: string, text: string) => screen.split(text).length - 1;
/** lastRun is the screen from the last submitted prompt on. */
const lastRun = (screen: string) => screen.slice(screen.lastIndexOf('\n> go\n'));

const terms: Terminal[] = [];
afterEach(() => {
  for (const term of terms.splice(0)) term.close();
});

function open(args: string[], opts?: { width?: number }): Terminal {
  const term = new Terminal();
  terms.push(term);
  term.start(args, opts);
  return term;
}

describe('host code under control, in a real terminal (tmux)', { skip, timeout: 120_000 }, () => {
  it('a JS tool pauses with ctx.pause(): a key flood answers nothing, N denies, Y approves', async () => {
    const term = open([...DEMO, '--host', 'js-tool']);
    const control = term.control();
    await term.waitFor('> Type a prompt');

    // A person typing y, Y, Enter and space from before the pause shows until
    // 2 s after: the quiet rule answers nothing.
    await term.type('go');
    const keys = ['y', 'Y', 'Enter', 'Space'];
    let sent = 0;
    const flood = setInterval(() => control.send(`send-keys -t demo ${keys[sent++ % keys.length]}`), 15);
    try {
      let screen = await term.waitFor((s) => lastRun(s).includes(DIALOG));
      assert.match(screen, /Deploy to staging\?/);
      assert.match(screen, /^deploy build 42 to staging$/m, 'the details on their own line');
      assert.match(screen, /packaging build 42 for staging/, "the tool's progress");
      await sleep(2_000); // the length of the flood, not a wait for something
    } finally {
      clearInterval(flood);
    }
    await sleep(400); // longer than the quiet period: keys in flight are handled
    let screen = term.screen();
    assert.equal(count(screen, '✓ Approved'), 0, `the flood approved the JS tool's pause:\n${screen}`);
    assert.doesNotMatch(screen, /deployed build 42|not deployed/, 'the tool is still waiting');
    assert.match(screen, /Keys ignored while you were typing — press (Y or N|Enter) again/);
    assert.match(screen, /· paused\n/);

    screen = await term.answer('n', (s) => s.includes('not deployed: denied'));
    await term.waitFor((s) => /Deployment finished\./.test(s) && /· idle\n/.test(s));

    await term.type('go');
    await term.waitFor((s) => lastRun(s).includes(DIALOG));
    screen = await term.answer('y', (s) => lastRun(s).includes('deployed build 42 to staging'));
    assert.match(lastRun(screen), /✓ Approved/);
    assert.match(lastRun(screen), /uploading to staging/);
    await term.waitFor((s) => count(s, 'Deployment finished.') === 2 && /· idle\n/.test(s));

    await term.answer('q', (s) => /\[demo exited \d+\]/.test(s)); // q once the keys of the run are over
    assert.equal(await term.waitForExit(), 0);
  });

  it("S at a JS tool's confirm approves it for the session: the next identical confirm does not ask", async () => {
    const term = open([...DEMO, '--host', 'js-tool']);
    await term.waitFor('> Type a prompt');
    await term.type('go');
    await term.waitFor((s) => lastRun(s).includes(DIALOG));
    let screen = await term.answer('s', (s) => lastRun(s).includes('deployed build 42 to staging'));
    assert.match(lastRun(screen), /✓ Approved for this session/);
    await term.waitFor((s) => /Deployment finished\./.test(s) && /· idle\n/.test(s));

    await term.type('go');
    screen = await term.waitFor((s) => count(s, 'Deployment finished.') === 2 && /· idle\n/.test(s));
    assert.match(lastRun(screen), /✓ Approved: you approved it for this session/, 'the transcript says which grant approved it');
    assert.match(lastRun(screen), /deployed build 42 to staging/);
    assert.doesNotMatch(lastRun(screen), /Deploy to staging\?/, 'not asked again');
    assert.equal(count(screen, DIALOG), 0);

    await term.answer('q', (s) => /\[demo exited \d+\]/.test(s));
    assert.equal(await term.waitForExit(), 0);
  });

  it("Esc aborts the run.signal of the app's own loop (session.begin()): the session ends interrupted", async () => {
    const term = open([...DEMO, '--host', 'loop']);
    await term.waitFor("the demo's own agent loop working in");
    await term.waitFor('> Type a prompt');
    await term.type('go');
    await term.waitFor((s) => s.includes('host loop: working for 10 minutes') && /· running\n/.test(s));
    term.keys('Escape');
    // The loop's grace is 10 minutes: only its own reaction to the abort
    // (run.end()) makes the session interrupted.
    const screen = await term.waitFor((s) => /· interrupted\n/.test(s) && s.includes('— Stopped by you —'));
    assert.match(screen, /host loop: signal aborted \(interrupted \(user_stop\)\), ending the run/);

    // A new run of the loop after the stop works the same.
    await term.type('go');
    await term.waitFor((s) => count(s, 'host loop: working for 10 minutes') === 2 && /· running\n/.test(s));
    term.keys('Escape');
    await term.waitFor((s) => count(s, '— Stopped by you —') === 2 && /· interrupted\n/.test(s));
    await term.answer('q', (s) => /\[demo exited \d+\]/.test(s)); // q once the keys of the run are over
    assert.equal(await term.waitForExit(), 0);
  });

  it('emergency stop in the sessions view reaches a host-driven session', async () => {
    const term = open([...DEMO, '--sessions', '--host', 'loop'], { width: 140 });
    await term.waitFor((s) => s.includes('[E] Emergency stop (3 proceeding)') && /host +Proceeding/.test(s));
    const screen = await term.answer('e', (s) => s.includes('[E] Emergency stop (0 proceeding)') && /host +Interrupted/.test(s));
    // Interrupted, not stopping: the loop saw its signal abort and ended the run.
    assert.match(screen, /host +Interrupted · Stopped by emergency stop/);
    assert.match(screen, /research +Interrupted · Stopped by emergency stop/);
    await term.answer('q', (s) => /\[demo exited \d+\]/.test(s)); // q once the keys of the run are over
    assert.equal(await term.waitForExit(), 0);
  });
});
