// End-to-end: the demo in a real terminal (tmux), driven by keys, judged by
// what the screen shows. Needs tmux and the built addon; without them it
// skips and says why (INTERLOCK_REQUIRE_DEMO=1 makes that a failure).
//
//   node --import tsx --test tui/test/tmux.test.ts

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { afterEach, describe, it } from 'node:test';
import { CONFIRM_DIALOG, alive, descendants, Terminal, whyNoDemo } from './terminal.js';

const missing = whyNoDemo();
if (missing && process.env.INTERLOCK_REQUIRE_DEMO === '1') throw new Error(`the demo can't run: ${missing}`);
const skip = missing ? `skipped: ${missing}` : false;

const DEMO = [process.execPath, '--import', 'tsx', 'tui/demo/main.tsx'];
const count = (screen: string, text: string) => screen.split(text).length - 1;

let term: Terminal | undefined;
afterEach(() => {
  term?.close();
  term = undefined;
});

describe('demo in a real terminal', { skip, timeout: 120_000 }, () => {
  it('streams, asks to confirm (N then Y), pauses on a page (Enter), stops (Esc), replays, quits cleanly', async () => {
    term = new Terminal();
    term.start(DEMO);
    const intro = await term.waitFor(/working in (\S+)\./);
    const workDir = /working in (\S+)\./.exec(intro)![1];
    await term.waitFor('> Type a prompt');

    await term.type('go');
    await term.waitFor('step 5 of 5'); // a safe command's output streamed

    // A dangerous command asks; N denies it and the model sees the denial.
    await term.waitFor('⚠️ Bash: Potentially dangerous command');
    let screen = await term.waitFor(CONFIRM_DIALOG);
    assert.match(screen, /^rm -rf \.\/demo-scratch$/m, 'the command on its own line');
    screen = await term.answer('n', (s) => s.includes('Command denied by user'));
    assert.ok(existsSync(`${workDir}/demo-scratch`), 'denied: the directory is still there');

    // Asked again, saying what S or P would remember (the command as judged); Y approves and the command runs.
    await term.waitFor(/^rm -rf \.\/demo-scratch && echo "removed demo-scratch"\n· recursive deletion: rm -rf \.\/demo-scratch\nRemembering approves again without asking: rm -rf \S+\/demo-scratch \(in\s+\S+\)\n\[Y\] Approve/m);
    await term.answer('y', (s) => s.includes('✓ Approved'));
    await term.waitFor(/│ removed demo-scratch/);
    assert.ok(!existsSync(`${workDir}/demo-scratch`), 'approved: the directory is gone');

    // The web tool pauses on the page served by the demo; Enter continues.
    screen = await term.waitFor('(Press Enter to continue, Esc to stop)');
    assert.match(screen, /⏸ WebSearch paused: Page loaded: http:\/\/127\.0\.0\.1:\d+\//);
    const browsers = descendants(term.pid());
    await term.answer('Enter', (s) => s.includes('Title: Interlock demo page'));

    // A long tool; Esc stops it at once.
    await term.waitFor('sleeping... 1s');
    await term.waitFor('Thinking... (Esc to stop)');
    term.keys('Escape');
    // The store and the transcript render separately: wait for the whole picture.
    await term.waitFor((s) =>
      s.includes('Stopped by you') &&
      s.includes('⎿ interrupted before completion') && // the tool's result in the history
      s.includes('— Stopped by you —') && // the history's marker
      /· interrupted\n/.test(s), // the status line
    );

    // A new prompt replays the script; Esc at its first confirm stops it too.
    await term.type('again');
    await term.waitFor((s) => count(s, 'Now I will clean up') === 2 && s.split('\n').includes(CONFIRM_DIALOG));
    term.keys('Escape');
    await term.waitFor((s) => count(s, '— Stopped by you —') === 2);

    // q on the empty prompt quits (once the keys of the run are over): exit 0, temp dir removed, no browser left.
    await term.answer('q', (s) => /\[demo exited \d+\]/.test(s));
    assert.equal(await term.waitForExit(), 0);
    assert.ok(!existsSync(workDir), `the demo removed ${workDir}`);
    const left = browsers.filter(alive);
    assert.deepEqual(left, [], `processes of the demo still running: ${left.join(' ')}`);
  });

  it('task loop in pause mode: pauses after each task, shows the failure, completes', async () => {
    term = new Terminal();
    term.start([...DEMO, '--tasks', '--pause']);
    let screen = await term.waitFor("[PAUSE MODE] Task 1 complete. Press Enter to continue or 'p' to switch to continuous mode");
    assert.match(screen, /p: continuous mode \| Enter: continue \| Esc: stop \| j\/k: scroll \| q: quit/);
    assert.match(screen, /^╭─+╮$/m, "pause mode's border");
    assert.match(screen, /✓ 1\. Write the scratch notes/);
    assert.match(screen, /○ 2\. Count to three/);

    screen = await term.answer('Enter', (s) => s.includes('Task 2 complete.'));
    assert.match(screen, /count 3/);
    screen = await term.answer('Enter', (s) => s.includes('Task 3 complete.'));
    assert.match(screen, /✗ 3\. Run the checks — checking\.\.\. \[exit code 3\]/);
    assert.match(screen, /Task 3 failed: checking\.\.\. \[exit code 3\]/);

    screen = await term.answer('Enter', (s) => s.includes('Completed!'));
    assert.match(screen, /3 completed, 1 failed, 4 total/);
    assert.match(screen, /✓ 4\. Summarize/);
    assert.match(screen, /· idle\n/, 'the session ends idle');

    const workDir = /task demo in (\S+)\./.exec(screen)![1];
    const children = descendants(term.pid());
    term.keys('q');
    assert.equal(await term.waitForExit(), 0);
    assert.ok(!existsSync(workDir), `the demo removed ${workDir}`);
    const left = children.filter(alive);
    assert.deepEqual(left, [], `processes of the demo still running: ${left.join(' ')}`);
  });

  it('task loop: Esc at a pause stops it, Enter resumes it and asks again before the next task', async () => {
    term = new Terminal();
    term.start([...DEMO, '--tasks', '--pause']);
    const paused = "[PAUSE MODE] Task 1 complete. Press Enter to continue or 'p' to switch to continuous mode";
    await term.waitFor(paused);
    let screen = await term.answer('Escape', (s) => s.includes('Stopped by you at task 1 — press Enter to continue the loop'));
    assert.match(screen, /Enter: continue \| j\/k: scroll \| q: quit/);
    assert.match(screen, /· interrupted\n/);
    screen = await term.answer('Enter', (s) => s.includes(paused) && !s.includes('press Enter to continue the loop'), 20_000, 5_000);
    assert.match(screen, /○ 2\. Count to three/, 'the loop waits again before task 2');
    screen = await term.answer('Enter', (s) => s.includes('Task 2 complete.'), 20_000, 5_000);
    assert.match(screen, /✓ 2\. Count to three/);
    term.keys('q');
    assert.equal(await term.waitForExit(), 0);
  });

  it('task loop in continuous mode: p turns pause mode on while it runs', async () => {
    term = new Terminal();
    term.start([...DEMO, '--tasks']);
    await term.waitFor('p: pause mode | Esc: stop | j/k: scroll | q: quit');
    term.keys('p');
    await term.waitFor('[PAUSE MODE]');
    await term.waitFor(/Task \d complete\. Press Enter to continue or 'p' to switch to continuous mode/);
    // p while paused: continuous again, and the loop goes on to the end.
    await term.answer('p', (s) => s.includes('Completed!'));
    assert.match(term.screen(), /Completed! +j\/k: scroll \| q: quit/);
    // Ctrl+C quits as cleanly as q.
    term.keys('C-c');
    assert.equal(await term.waitForExit(), 0);
  });

  it('sessions: three agents; emergency stop and resume all change the counts; a web answer shows in the TUI; stop and Continue in a session; q quits cleanly', async () => {
    term = new Terminal();
    term.start([...DEMO, '--sessions'], { width: 140 });
    const intro = await term.waitFor(/sessions demo in (\S+):[\s\S]*Web UI: (http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+)/);
    const workDir = /sessions demo in (\S+):/.exec(intro)![1];
    const url = /Web UI: (\S+)/.exec(intro)![1];
    await term.waitFor((s) => s.includes('[E] Emergency stop (2 proceeding)') && s.includes('1 needs input'));
    let screen = term.screen();
    assert.match(screen, /› research +Proceeding/);
    assert.match(screen, /cleanup +Needs input · waiting for: Potentially dangerous command/);

    // The web UI is served by the same engine: same counts.
    const origin = new URL(url).origin;
    const auth = { headers: { authorization: `Bearer ${new URL(url).searchParams.get('token')}` } };
    assert.equal((await fetch(`${origin}/api/state`)).status, 401, 'no token, no state');
    assert.deepEqual(((await (await fetch(`${origin}/api/state`, auth)).json()) as { counts: unknown }).counts, { proceeding: 2, eligible: 0, needs_input: 1 });

    screen = await term.answer('e', (s) => s.includes('[E] Emergency stop (0 proceeding)') && s.includes('[R] Resume all (2 eligible)'));
    assert.match(screen, /research +Interrupted · Stopped by emergency stop/);
    assert.match(screen, /build +Interrupted · Stopped by emergency stop/);
    assert.match(screen, /cleanup +Needs input/, 'emergency stop leaves a blocked session alone');

    screen = await term.answer('r', (s) => s.includes('Resume all will continue 2 sessions: research, build'));
    assert.match(screen, /\[E\] Emergency stop \(0 proceeding\)/, 'nothing resumed before the confirmation');
    await term.answer('y', (s) => s.includes('[E] Emergency stop (2 proceeding)') && s.includes('[R] Resume all (0 eligible)'));

    // A confirm answered from the web UI: the TUI shows it at once.
    const state = (await (await fetch(`${origin}/api/state`, auth)).json()) as {
      epoch: string;
      sessions: { id: string; version: number; pause: { id: string } | null }[];
    };
    const cleanup = state.sessions.find((x) => x.id === 'cleanup')!;
    const answered = await fetch(`${origin}/api/answer?session=cleanup`, {
      method: 'POST',
      headers: { ...auth.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ epoch: state.epoch, version: cleanup.version, pause_id: cleanup.pause!.id, answer: 'approved' }),
    });
    assert.equal(answered.status, 200, await answered.text());
    await term.waitFor((s) => /cleanup +Idle/.test(s) && s.includes('[R] Resume all (0 eligible)'));

    // Open a session: Esc stops it, its Continue shows the reason, C continues, Tab goes back.
    await term.answer('Enter', (s) => s.includes('Session research: Tab goes back to the list.'));
    await term.answer('Escape', (s) => s.includes('Stopped by you — [C] Continue'));
    await term.answer('c', (s) => s.includes('Thinking'));
    await term.answer('Tab', (s) => /› research +Proceeding/.test(s));

    const children = descendants(term.pid());
    term.keys('q');
    assert.equal(await term.waitForExit(), 0);
    assert.ok(!existsSync(workDir), `the demo removed ${workDir}`);
    const left = children.filter(alive);
    assert.deepEqual(left, [], `processes of the demo still running: ${left.join(' ')}`);
  });
  it('sessions: P remembers the cleanup command for the project; G lists it, X takes it back, and the same command asks again; the list follows grants given and revoked from the web UI', async () => {
    term = new Terminal();
    term.start([...DEMO, '--sessions'], { width: 160 });
    const intro = await term.waitFor(/Web UI: (http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+)/);
    const url = new URL(/Web UI: (\S+)/.exec(intro)![1]);
    const auth = { headers: { authorization: `Bearer ${url.searchParams.get('token')}` } };
    const api = async (path: string) => (await fetch(`${url.origin}${path}`, auth)).json() as Promise<Record<string, any>>;
    const post = async (path: string, body: unknown) => {
      const r = await fetch(`${url.origin}${path}`, { method: 'POST', headers: { ...auth.headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      assert.equal(r.status, 200, await r.text());
    };
    await term.waitFor((s) => s.includes('1 needs input') && s.includes('G approvals'));

    await term.answer('j', (s) => /› build/.test(s));
    await term.answer('j', (s) => /› cleanup/.test(s));
    await term.answer('Enter', (s) => s.includes('Session cleanup: Tab goes back to the list.'));
    // The bash confirm says what P remembers: the command as judged, and where.
    const dialog = await term.waitFor(CONFIRM_DIALOG);
    assert.match(dialog, /Remembering approves again without asking: rm -rf \S*demo-scratch \(in \S+\)/);
    await term.answer('p', (s) => s.includes('Cleanup done.'));
    await term.answer('Tab', (s) => /G approvals/.test(s) && /cleanup +Idle/.test(s));

    let screen = await term.answer('g', (s) => s.includes('Remembered approvals: approved again without asking'));
    screen = await term.waitFor(/› bash +rm -rf \S*demo-scratch.*· this project \(/);
    assert.match(screen, /↑\/↓ move  X revoke  Esc back/);
    assert.equal(((await api('/api/grants')).grants as unknown[]).length, 1, 'the web UI lists the same grant');

    await term.answer('x', (s) => s.includes('Nothing is remembered: every confirm asks.'));
    assert.match(term.screen(), /Revoked bash: rm -rf \S*demo-scratch.* — the next such confirm asks again/);
    assert.deepEqual((await api('/api/grants')).grants, []);

    // While G is open, the same command is asked again and approved for the
    // project from the web UI, then revoked there: the list follows each
    // change (grants_changed), without a key pressed.
    await post('/api/prompt?session=cleanup', { text: 'clean up' });
    let cleanup: { version: number; pause: { id: string } | null } | undefined;
    for (const deadline = Date.now() + 20_000; !cleanup?.pause; ) {
      assert.ok(Date.now() < deadline, `the cleanup session asks again; the screen:\n${term.screen()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      cleanup = ((await api('/api/state')).sessions as { id: string; version: number; pause: { id: string } | null }[]).find((x) => x.id === 'cleanup');
    }
    const { epoch } = await api('/api/state');
    await post('/api/answer?session=cleanup', { epoch, version: cleanup.version, pause_id: cleanup.pause.id, answer: 'approved', remember: 'project' });
    await term.waitFor(/› bash +rm -rf \S*demo-scratch.*· this project \(/);
    const [grant] = (await api('/api/grants')).grants as Record<string, string>[];
    await post('/api/grants/revoke', grant);
    await term.waitFor('Nothing is remembered: every confirm asks.');

    // The same command again: asked, not approved by the revoked grant.
    await term.answer('Escape', (s) => /G approvals/.test(s) && /cleanup +Idle/.test(s));
    await term.answer('j', (s) => /› build/.test(s));
    await term.answer('j', (s) => /› cleanup/.test(s));
    await term.answer('Enter', (s) => s.includes('Session cleanup: Tab goes back to the list.'));
    await term.waitFor('Type a prompt and press Enter (Tab: sessions, q quits)');
    term.keys('clean up', { literal: true });
    await term.waitFor(/^> clean up\s*$/m);
    await term.answer('Enter', (s) => /^session cleanup · .*· (running|paused)$/m.test(s));
    const runState = async () => ((await api('/api/state')).sessions as { id: string; run_state: string }[]).find((x) => x.id === 'cleanup')!.run_state;
    for (const deadline = Date.now() + 20_000; (await runState()) !== 'blocked'; ) {
      assert.ok(Date.now() < deadline, `the cleanup session asks again (it is ${await runState()}); the screen:\n${term.screen()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await term.waitFor(CONFIRM_DIALOG);
    term.keys('Escape');
    await term.waitFor('Stopped by you');
    term.keys('C-c');
    assert.equal(await term.waitForExit(), 0);
  });

  it('NO_COLOR: no colour codes on screen, and the states still read in words', async () => {
    term = new Terminal();
    term.start([...DEMO, '--script', 'confirm'], { env: { NO_COLOR: '1' } });
    await term.waitFor('> Type a prompt');
    await term.type('go');
    await term.waitFor(CONFIRM_DIALOG);
    const styled = term.screenWithStyles();
    // An SGR colour: 30-37, 40-47, 90-97, 100-107, or 38;/48; (256 / true colour). tmux writes
    // 39/49 (default colours) as part of its resets: those are no colour.
    assert.doesNotMatch(styled, /\u001B\[(?:[\d;]*;)?(3[0-7]|4[0-7]|9[0-7]|10[0-7]|[34]8;[\d;]+)m/, JSON.stringify(styled));
    assert.match(styled, /⚠️ Bash: Potentially dangerous command/);
    term.keys('Escape');
    await term.waitFor('Stopped by you');
  });
});
