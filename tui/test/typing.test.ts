// Human control under real typing: the demo in tmux (real engine, real
// terminal) while a person keeps typing. A flood of y, Y, Enter and space
// (and at a confirm s, S, p, P: approve for the session or project) runs
// from before a pause appears until 2 s after it: no pause may be answered,
// nothing remembered. Keys still flowing after Esc must never start a run. Esc with a
// key in the same read, and through a tmux client with the default
// escape-time (which merges them), and after a paste whose end never came,
// must stop the run every time.
//
// Trials run in several terminals at once to keep the file short (about a
// minute); each terminal runs its share one after another.
//
//   node --import tsx --test tui/test/typing.test.ts

import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CONFIRM_DIALOG, Terminal, whyNoDemo, type Control } from './terminal.js';

const missing = whyNoDemo();
if (missing && process.env.INTERLOCK_REQUIRE_DEMO === '1') throw new Error(`the demo can't run: ${missing}`);
const skip = missing ? `skipped: ${missing}` : false;

const DEMO = [process.execPath, '--import', 'tsx', 'tui/demo/main.tsx'];
const TRIALS = 20;
const TERMINALS = 4;
const FLOOD_AFTER_MS = 2_000;
/** Longer than the quiet period: a key in flight when a flood stops has been handled by then. */
const SETTLE_WAIT_MS = 400;
/** A flood with a gap this long (near the quiet period) is not a flood: the trial is run again. */
const MAX_FLOOD_GAP_MS = 240;
const FLOOD_KEYS = ['y', 'Y', 'Enter', 'Space'];
/** At a confirm the flood holds the keys that remember an approval too: the longest-lasting answer. */
const CONFIRM_FLOOD_KEYS = ['y', 's', 'Y', 'S', 'Enter', 'p', 'Space', 'P'];

const count = (screen: string, text: string) => screen.split(text).length - 1;
/** runs counts the prompts submitted: each is printed once ("> go"), unlike live parts a redraw may leave behind. */
const runs = (screen: string) => (screen.match(/^> go$/gm) ?? []).length;
/** lastRun is the screen from the last submitted prompt on. */
const lastRun = (screen: string) => screen.slice(screen.lastIndexOf('\n> go\n'));
/** running: the last run's bash command has started and the session is running. */
const running = (s: string) => lastRun(s).includes('│ working for 10 minutes') && /· running\n/.test(s);

/**
 * Flood sends y, Y, Enter, space, one key every periodMs, through a tmux
 * control client, and measures the longest gap between two sends.
 */
class Flood {
  private timer: NodeJS.Timeout | null = null;
  private last = 0;
  private maxGap = 0;
  private sent = 0;

  constructor(
    private readonly control: Control,
    private readonly keys = FLOOD_KEYS,
    private readonly target = 'demo',
  ) {}

  start(periodMs = 15): void {
    this.last = performance.now();
    this.maxGap = 0;
    this.timer = setInterval(() => {
      const now = performance.now();
      this.maxGap = Math.max(this.maxGap, now - this.last);
      this.last = now;
      this.control.send(`send-keys -t ${this.target} ${this.keys[this.sent++ % this.keys.length]}`);
    }, periodMs);
  }

  /** stop ends the flood and returns its longest gap, ms. */
  stop(): number {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    return Math.max(this.maxGap, performance.now() - this.last);
  }
}

const terms: Terminal[] = [];
afterEach(() => {
  for (const term of terms.splice(0)) term.close();
});

function open(args: string[]): { term: Terminal; control: Control } {
  const term = new Terminal();
  terms.push(term);
  term.start(args);
  return { term, control: term.control() };
}

/** shares splits n trials over the terminals. */
const shares = (n: number, k: number) => Array.from({ length: k }, (_, i) => Math.floor(n / k) + (i < n % k ? 1 : 0));

/**
 * floodTrial floods from now until FLOOD_AFTER_MS after shown(screen) holds,
 * then lets SETTLE_WAIT_MS pass. It returns the screen, or null when the
 * flood itself stalled (then it is not a valid trial).
 */
async function floodTrial(term: Terminal, control: Control, shown: (s: string) => boolean, keys = FLOOD_KEYS): Promise<string | null> {
  const flood = new Flood(control, keys);
  flood.start();
  try {
    await term.waitFor(shown);
    await sleep(FLOOD_AFTER_MS); // the length of the flood, not a wait for something
  } finally {
    const gap = flood.stop();
    await sleep(SETTLE_WAIT_MS);
    if (gap > MAX_FLOOD_GAP_MS) return null;
  }
  return term.screen();
}

/** chatFloodTrials runs trials of `kind` in one demo: prompt, flood through the pause, check, Esc. */
async function chatFloodTrials(kind: 'confirm' | 'continue', trials: number, note: (s: string) => void): Promise<number> {
  const demo = async () => {
    const d = open([...DEMO, '--script', kind]);
    await d.term.waitFor('> Type a prompt');
    return d;
  };
  let { term, control } = await demo();
  const dialog = kind === 'confirm' ? CONFIRM_DIALOG : '(Press Enter to continue, Esc to stop)';
  const answered = kind === 'confirm' ? '✓ Approved' : '↩ Continued';
  let valid = 0;
  while (valid < trials) {
    await term.type('go');
    // The dialog is the last thing on screen while the pause is shown.
    const screen = await floodTrial(term, control, (s) => s.includes(dialog), kind === 'confirm' ? CONFIRM_FLOOD_KEYS : FLOOD_KEYS);
    if (screen === null) note(`${kind}: the flood stalled; trial run again`);
    else {
      valid++;
      assert.equal(count(screen, answered), 0, `the flood answered the ${kind} pause:\n${screen}`); // '✓ Approved for this session' too
      assert.match(screen, /Keys ignored while you were typing — press (Y or N|Enter) again/);
      assert.match(screen, /· paused\n/, 'still paused');
    }
    term.keys('Escape');
    // A flood that stalled paused like a person: its next key may answer
    // (and remember the approval for the session or project), and the run
    // goes on to its end. The next trials then run in a new demo.
    const ended = await term.waitFor((s) => lastRun(s).includes('— Stopped by you —') || (screen === null && /\nDone\.\n/.test(lastRun(s))));
    if (screen === null && count(lastRun(ended), answered) > 0) {
      note(`${kind}: the stalled flood answered the pause; the next trials run in a new demo`);
      term.close();
      ({ term, control } = await demo());
    }
  }
  assert.equal(count(term.screen(), answered), 0);
  return valid;
}

describe('human control under real typing (tmux)', { skip, timeout: 240_000 }, () => {
  it(`a key flood through a confirm pause approves nothing (${TRIALS} trials)`, async (t) => {
    const done = await Promise.all(shares(TRIALS, TERMINALS).map((n) => chatFloodTrials('confirm', n, (s) => t.diagnostic(s))));
    assert.equal(done.reduce((a, b) => a + b, 0), TRIALS);
  });

  it(`a key flood through a continue pause continues nothing (${TRIALS} trials)`, async (t) => {
    const done = await Promise.all(shares(TRIALS, TERMINALS).map((n) => chatFloodTrials('continue', n, (s) => t.diagnostic(s))));
    assert.equal(done.reduce((a, b) => a + b, 0), TRIALS);
  });

  it(`a key flood through task-loop pauses moves the loop on never (${TRIALS} trials)`, async (t) => {
    // A flood that stalls (a busy machine) does not count: its loop floods
    // the next pause, up to three times the pauses it needs, and stops once
    // it has its share (the terminal is closed after the test).
    const need = TRIALS / TERMINALS;
    const pausesPerLoop = 3 * need;
    const done = await Promise.all(
      Array.from({ length: TERMINALS }, async () => {
        const { term, control } = open([...DEMO, '--tasks', '--pause', '--quick-tasks', String(pausesPerLoop + 1)]);
        await term.waitFor('Tasks'); // the flood starts once the app runs, before the first pause
        let valid = 0;
        for (let task = 1; task <= pausesPerLoop && valid < need; task++) {
          const prompt = `Task ${task} complete. Press Enter to continue`;
          const screen = await floodTrial(term, control, (s) => s.includes(prompt));
          if (screen === null) t.diagnostic(`task loop: the flood stalled at task ${task}`);
          else {
            valid++;
            assert.ok(screen.includes(prompt), `the flood moved the loop on past task ${task}:\n${screen}`);
            assert.match(screen, new RegExp(`○ ${task + 1}\\. Quick task ${task + 1}`), `task ${task + 1} has not started`);
            assert.match(screen, /Keys ignored while you were typing — press Enter again/);
          }
          // A key after a quiet period moves it on.
          await term.answer('Enter', (s) => !s.includes(prompt));
        }
        return valid;
      }),
    );
    assert.ok(done.reduce((a, b) => a + b, 0) >= TRIALS, `valid trials: ${done.join(' + ')}`);
  });

  it(`keys flowing after Esc never start a new run (${TRIALS} trials)`, async (t) => {
    const done = await Promise.all(
      shares(TRIALS, TERMINALS).map(async (trials) => {
        const { term, control } = open([...DEMO, '--script', 'long']);
        await term.waitFor('> Type a prompt');
        let valid = 0;
        for (let run = 1; valid < trials; run++) {
          await term.type('go');
          await term.waitFor((s) => runs(s) === run && running(s));
          const flood = new Flood(control);
          flood.start();
          await sleep(200); // typing while it runs
          control.send('send-keys -t demo Escape');
          await term.waitFor((s) => count(s, '— Stopped by you —') === run);
          await sleep(FLOOD_AFTER_MS); // the typing goes on after the stop
          const gap = flood.stop();
          await sleep(SETTLE_WAIT_MS);
          const screen = term.screen();
          assert.equal(runs(screen), run, `a new run started:\n${screen}`);
          assert.match(screen, /· interrupted\n/);
          assert.doesNotMatch(screen, /^> [yY ]/m, 'nothing typed into the prompt');
          if (gap > MAX_FLOOD_GAP_MS) t.diagnostic(`keys after Esc: the flood stalled (${gap.toFixed(0)} ms)`);
          else valid++;
        }
        return valid;
      }),
    );
    assert.equal(done.reduce((a, b) => a + b, 0), TRIALS);
  });

  it('a prompt typed at 60-120 ms a key, a second after Esc stopped the run, starts the next run', async (t) => {
    const { term, control } = open([...DEMO, '--script', 'long']);
    await term.waitFor('> Type a prompt');
    await term.type('go');
    const typedRuns = (s: string) => (s.match(/^> go on$/gm) ?? []).length;
    let stops = 0;
    for (const [i, intervalMs] of [60, 90, 120].entries()) {
      await term.waitFor((s) => lastRun(s).includes('│ working for 10 minutes') && /· running\n/.test(s));
      control.send('send-keys -t demo Escape');
      stops++;
      await term.waitFor((s) => count(s, '— Stopped by you —') === stops && /· interrupted\n/.test(s));
      // A person who typed nothing into the run starts the next prompt a
      // second later. A machine so busy that two keys reach the demo in one
      // read is not that person: then (at most twice) the prompt is typed again.
      for (let attempt = 1; ; attempt++) {
        await sleep(1_000); // the premise: a second of quiet after the stop
        for (const key of ['g', 'o', 'Space', 'o', 'n', 'Enter']) {
          control.send(`send-keys -t demo ${key}`);
          await sleep(intervalMs); // the typing's pace
        }
        try {
          await term.waitFor((s) => typedRuns(s) === i + 1, 5_000);
          break;
        } catch (error) {
          if (attempt === 3) throw error;
          t.diagnostic(`at ${intervalMs} ms a key: typed again (attempt ${attempt}): ${term.screen().trimEnd().split('\n').slice(-3).join(' | ')}`);
          for (let k = 0; k < 6; k++) control.send('send-keys -t demo BSpace');
        }
      }
    }
    await term.waitFor((s) => /· running\n/.test(s));
    term.keys('Escape');
  });

  it('Esc and a key in one read stop the run, also at a pause (10 + 10 trials)', async () => {
    const atPause = async () => {
      const { term, control } = open([...DEMO, '--script', 'confirm']);
      await term.waitFor('> Type a prompt');
      // At the confirm pause: Esc + y (one write of two bytes) stops and approves nothing.
      for (let run = 1; run <= 10; run++) {
        await term.type('go');
        await term.waitFor((s) => s.includes(CONFIRM_DIALOG));
        await sleep(300); // quiet: a lone y now would approve
        await control.command('send-keys -t demo -H 1b 79');
        const screen = await term.waitFor((s) => count(s, '— Stopped by you —') === run);
        assert.equal(count(screen, '✓ Approved'), 0, `Esc+y approved:\n${screen}`);
      }
    };
    const whileRunning = async () => {
      // While a bash command runs: Esc + y, Esc + Enter.
      const { term, control } = open([...DEMO, '--script', 'long']);
      await term.waitFor('> Type a prompt');
      for (let run = 1; run <= 10; run++) {
        await term.type('go');
        await term.waitFor((s) => runs(s) === run && running(s));
        await control.command(`send-keys -t demo -H 1b ${run % 2 ? '79' : '0d'}`);
        await term.waitFor((s) => count(s, '— Stopped by you —') === run && /· interrupted\n/.test(s));
      }
    };
    await Promise.all([atPause(), whileRunning()]);
  });

  it('Esc stops the run after a paste whose end never came (2 trials)', async () => {
    const { term, control } = open([...DEMO, '--script', 'long']);
    await term.waitFor('> Type a prompt');
    for (let run = 1; run <= 2; run++) {
      await term.type('go');
      await term.waitFor((s) => runs(s) === run && running(s));
      await control.command('send-keys -t demo -H 1b 5b 32 30 30 7e 72 6d 0d'); // ESC[200~rm\r, no ESC[201~
      await control.command('send-keys -t demo Escape');
      await term.waitFor((s) => count(s, '— Stopped by you —') === run && /· interrupted\n/.test(s), 5_000);
    }
  });

  it("Esc then a key through a tmux client with the default escape-time stop the run (10 trials)", async () => {
    // The demo runs in an inner tmux server (default options: escape-time
    // 500 ms); its client runs in an outer terminal, whose keys reach it as
    // a person's keys reach tmux. Esc followed by y within 500 ms reaches
    // the demo merged, as Alt+y ("\x1by").
    const inner = open([...DEMO, '--script', 'long']);
    const outer = new Terminal();
    terms.push(outer);
    outer.start(['tmux', '-L', inner.term.socket, 'attach-session', '-t', 'demo']);
    const escapeTime = (await inner.control.command('show-options -s -v escape-time')).trim();
    assert.equal(escapeTime, '500', "tmux's default escape-time");
    await outer.waitFor('> Type a prompt');
    const outerControl = outer.control();
    for (let run = 1; run <= 10; run++) {
      await inner.term.type('go');
      await inner.term.waitFor((s) => runs(s) === run && running(s));
      outerControl.send('send-keys -t demo Escape');
      outerControl.send(`send-keys -t demo ${run % 2 ? 'y' : 'Enter'}`);
      await inner.term.waitFor((s) => count(s, '— Stopped by you —') === run && /· interrupted\n/.test(s), 5_000);
    }
  });
});
