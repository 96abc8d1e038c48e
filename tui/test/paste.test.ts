// No paste answers a pause (issue 27.3), in a real terminal (tmux): a small
// app built from the package's components (pause-app.tsx, no hook of its
// own) at a confirm and at a continue pause. Each paste comes after the
// quiet period, when one key on its own would answer: plain (as tmux
// paste-buffer delivers it to an app that did not ask for bracketed paste:
// "y\n" arrives as one read "y\r") and bracketed (paste-buffer -p, which
// marks the paste only because the components turned the mode on). The
// pause must still be pending afterwards, as the engine reports it.
//
//   node --import tsx --test tui/test/paste.test.ts

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, afterEach, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Terminal, whyNoDemo } from './terminal.js';

const missing = whyNoDemo();
if (missing && process.env.INTERLOCK_REQUIRE_DEMO === '1') throw new Error(`the demo can't run: ${missing}`);
const skip = missing ? `skipped: ${missing}` : false;

const APP = [process.execPath, '--import', 'tsx', 'tui/test/pause-app.tsx'];
/** Longer than the quiet period (250 ms): a key on its own now would answer. */
const QUIET_MS = 400;
/** Longer than the quiet period and the hold of an answer (250 + 150 ms): an answer would have acted by now. */
const ACT_MS = 600;
const PASTES = ['y\n', 'yes\n', '\n'];

interface AppState {
  status: string;
  pause: string | null;
  answers: string[];
  reads: number;
  bracketed: number;
}

const dir = mkdtempSync(path.join(tmpdir(), 'interlock-paste-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

let term: Terminal | undefined;
afterEach(() => {
  term?.close();
  term = undefined;
});

/** until polls the app's state file until test holds; it throws with the state and screen at the deadline. */
async function until(file: string, test: (s: AppState) => boolean, timeoutMs = 20_000): Promise<AppState> {
  const deadline = Date.now() + timeoutMs;
  let last: AppState | null = null;
  for (;;) {
    try {
      last = JSON.parse(readFileSync(file, 'utf8')) as AppState;
      if (test(last)) return last;
    } catch {
      // not written yet, or caught mid-write
    }
    if (Date.now() > deadline) throw new Error(`timed out; the app's state: ${JSON.stringify(last)}; the screen:\n${term?.screen()}`);
    await sleep(50);
  }
}

describe('pastes at a pause, in a real terminal (tmux)', { skip, timeout: 120_000 }, () => {
  for (const kind of ['confirm', 'continue'] as const) {
    it(`no paste of ${PASTES.map((p) => JSON.stringify(p)).join(', ')}, plain or bracketed, answers a ${kind} pause`, async () => {
      const stateFile = path.join(dir, `${kind}.json`);
      term = new Terminal();
      term.start([...APP, '--kind', kind, '--state', stateFile]);
      const control = term.control();
      await term.waitFor('> Type a prompt');
      await term.type('go');
      const { pause } = await until(stateFile, (s) => s.status === 'paused' && s.pause !== null);
      await term.waitFor(kind === 'confirm' ? '[N] Deny  [Esc] Cancel' : '(Press Enter to continue, Esc to stop)');

      let trials = 0;
      for (const bracketed of [false, true]) {
        for (const text of PASTES) {
          // A plain paste of a line break alone is the byte Enter sends: at a continue pause it is a press of Enter.
          if (kind === 'continue' && !bracketed && text === '\n') continue;
          const what = `${bracketed ? 'bracketed' : 'plain'} paste of ${JSON.stringify(text)}`;
          const file = path.join(dir, `paste-${trials++}.txt`);
          writeFileSync(file, text);
          await control.command(`load-buffer -b paste ${file}`);
          await sleep(QUIET_MS); // the premise: the input has been quiet, one key now would answer
          const before = await until(stateFile, () => true);
          await control.command(`paste-buffer -b paste ${bracketed ? '-p ' : ''}-t demo`);
          const read = await until(stateFile, (s) => s.reads > before.reads);
          assert.equal(read.bracketed - before.bracketed, bracketed ? 1 : 0, `${what}: marked as a paste only when bracketed (the components turned the mode on)`);
          await sleep(ACT_MS); // an answer it gave would have acted by now
          const now = await until(stateFile, () => true);
          assert.deepEqual(now.answers, [], `${what} answered the pause; the screen:\n${term.screen()}`);
          assert.equal(now.status, 'paused', what);
          assert.equal(now.pause, pause, `${what}: the same pause is pending`);
        }
      }

      // The control: one key on its own after a quiet period answers.
      await sleep(QUIET_MS);
      term.keys(kind === 'confirm' ? 'y' : 'Enter');
      const answered = await until(stateFile, (s) => s.answers.length > 0);
      assert.deepEqual(answered.answers, [kind === 'confirm' ? 'approved' : 'resumed']);
      await until(stateFile, (s) => s.status === 'idle');
      term.keys('C-c');
      assert.equal(await term.waitForExit(), 0);
    });
  }
});
