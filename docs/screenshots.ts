// The README's pictures, made from the real thing (make screenshots):
//
//   docs/images/tui-confirm.png  the chat demo in tmux at a confirm pause:
//                                tmux capture-pane -e (the screen with its
//                                colours) turned into HTML, shot by Chromium
//   docs/images/web-ui.png       the web UI of an engine with four sessions,
//                                one paused at a confirm, shot by Chromium
//
// Chromium is driven over the DevTools protocol on a pipe
// (--remote-debugging-pipe): `--screenshot` and `--dump-dom` never return
// for a page that keeps an event stream open, as the web UI does.
//
//   node --import tsx docs/screenshots.ts

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';

import { Engine } from '../node/index.js';
import { ROOT, Terminal } from '../tui/test/terminal.js';

const OUT = path.join(ROOT, 'docs', 'images');

/** A Chromium with one page, driven over the DevTools protocol. */
class Browser {
  private proc: ChildProcess;
  private toChrome: Writable;
  private next = 1;
  private waiting = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
  private sessionId = '';
  private profile = mkdtempSync(path.join(tmpdir(), 'interlock-shots-'));

  constructor() {
    const args = [
      '--headless=new', '--remote-debugging-pipe', '--disable-gpu', '--hide-scrollbars', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync', '--mute-audio',
      '--font-render-hinting=none', `--user-data-dir=${this.profile}`,
    ];
    if (process.getuid?.() === 0) args.push('--no-sandbox');
    // fd 3: what Chromium reads; fd 4: what it writes. Messages end with NUL.
    this.proc = spawn('chromium', args, { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] });
    this.toChrome = this.proc.stdio[3] as Writable;
    let buffered = '';
    (this.proc.stdio[4] as Readable).on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      let end;
      while ((end = buffered.indexOf('\0')) >= 0) {
        const msg = JSON.parse(buffered.slice(0, end));
        buffered = buffered.slice(end + 1);
        const w = msg.id && this.waiting.get(msg.id);
        if (!w) continue;
        this.waiting.delete(msg.id);
        if (msg.error) w.reject(new Error(`DevTools: ${msg.error.message}`));
        else w.resolve(msg.result);
      }
    });
  }

  send(method: string, params: object = {}, toPage = true): Promise<any> {
    const id = this.next++;
    const msg = { id, method, params, ...(toPage && this.sessionId ? { sessionId: this.sessionId } : {}) };
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.toChrome.write(`${JSON.stringify(msg)}\0`);
    });
  }

  /** Opens url in a page of width x height CSS pixels, at 2 device pixels each. */
  async open(url: string, width: number, height: number): Promise<void> {
    if (!this.sessionId) {
      const { targetId } = await this.send('Target.createTarget', { url: 'about:blank' }, false);
      ({ sessionId: this.sessionId } = await this.send('Target.attachToTarget', { targetId, flatten: true }, false));
    }
    await this.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 2, mobile: false });
    await this.send('Page.navigate', { url });
  }

  async evaluate<T>(expression: string): Promise<T> {
    const { result, exceptionDetails } = await this.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true });
    if (exceptionDetails) throw new Error(`in the page: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
    return result.value as T;
  }

  /** Polls a page expression until it is true; throws at the deadline. */
  async waitFor(expression: string, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await this.evaluate<boolean>(expression).catch(() => false))) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${expression} in the page`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** A PNG of the page, or of the box of the element selector names. */
  async screenshot(file: string, selector?: string): Promise<void> {
    let clip;
    if (selector) {
      const r = await this.evaluate<{ x: number; y: number; width: number; height: number }>(
        `(() => { const r = document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect(); return { x: r.x, y: r.y, width: r.width, height: r.height }; })()`);
      clip = { ...r, scale: 1 };
    }
    const { data } = await this.send('Page.captureScreenshot', { format: 'png', ...(clip ? { clip } : {}) });
    writeFileSync(file, Buffer.from(data, 'base64'));
    console.log(`wrote ${path.relative(ROOT, file)}`);
  }

  /** Ends Chromium and, once it has exited (it writes its profile until then), removes the profile. */
  async close(): Promise<void> {
    if (this.proc.exitCode === null && this.proc.signalCode === null) {
      const exited = new Promise((resolve) => this.proc.once('exit', resolve));
      this.proc.kill();
      await exited;
    }
    rmSync(this.profile, { recursive: true, force: true });
  }
}

// The 16 colours of a dark terminal theme (xterm's order), for SGR 30-37/90-97.
const PALETTE = ['#1e1e1e', '#f44747', '#6a9955', '#d7ba7d', '#569cd6', '#c586c0', '#4ec9b0', '#d4d4d4',
  '#808080', '#f44747', '#b5cea8', '#dcdcaa', '#9cdcfe', '#d670d6', '#4ec9b0', '#ffffff'];
const FG = '#d4d4d4';
const BG = '#1e1e1e';

function color256(n: number): string {
  if (n < 16) return PALETTE[n];
  if (n >= 232) {
    const v = 8 + (n - 232) * 10;
    return `rgb(${v},${v},${v})`;
  }
  const c = n - 16;
  const level = (x: number) => (x === 0 ? 0 : 55 + x * 40);
  return `rgb(${level(Math.floor(c / 36))},${level(Math.floor(c / 6) % 6)},${level(c % 6)})`;
}

const escapeHTML = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** HTML of a screen captured with its SGR colour and style codes (tmux capture-pane -e -p). */
function ansiToHTML(screen: string): string {
  let fg = '';
  let bg = '';
  let bold = false;
  let dim = false;
  let italic = false;
  let underline = false;
  let inverse = false;
  const out: string[] = [];
  const span = (text: string) => {
    if (!text) return;
    let f = fg || FG;
    let b = bg;
    if (inverse) [f, b] = [b || BG, fg || FG];
    const style = [`color:${f}`, b && `background:${b}`, bold && 'font-weight:bold', dim && 'opacity:0.6',
      italic && 'font-style:italic', underline && 'text-decoration:underline'].filter(Boolean).join(';');
    out.push(`<span style="${style}">${escapeHTML(text)}</span>`);
  };
  // eslint-disable-next-line no-control-regex
  for (const part of screen.split(/(\x1b\[[0-9;:]*m)/)) {
    const sgr = /^\x1b\[([0-9;:]*)m$/.exec(part);
    if (!sgr) {
      span(part);
      continue;
    }
    const codes = sgr[1] === '' ? [0] : sgr[1].split(/[;:]/).map(Number);
    for (let i = 0; i < codes.length; i++) {
      const c = codes[i];
      if (c === 0) [fg, bg, bold, dim, italic, underline, inverse] = ['', '', false, false, false, false, false];
      else if (c === 1) bold = true;
      else if (c === 2) dim = true;
      else if (c === 3) italic = true;
      else if (c === 4) underline = true;
      else if (c === 7) inverse = true;
      else if (c === 22) [bold, dim] = [false, false];
      else if (c === 23) italic = false;
      else if (c === 24) underline = false;
      else if (c === 27) inverse = false;
      else if (c >= 30 && c <= 37) fg = PALETTE[c - 30];
      else if (c >= 90 && c <= 97) fg = PALETTE[c - 90 + 8];
      else if (c === 39) fg = '';
      else if (c >= 40 && c <= 47) bg = PALETTE[c - 40];
      else if (c >= 100 && c <= 107) bg = PALETTE[c - 100 + 8];
      else if (c === 49) bg = '';
      else if (c === 38 || c === 48) {
        const value = codes[i + 1] === 5 ? color256(codes[i + 2]) : `rgb(${codes[i + 2]},${codes[i + 3]},${codes[i + 4]})`;
        i += codes[i + 1] === 5 ? 2 : 4;
        if (c === 38) fg = value;
        else bg = value;
      }
    }
  }
  return out.join('');
}

/** The chat demo in tmux, at the confirm of a dangerous command. */
async function tuiConfirm(browser: Browser): Promise<void> {
  const term = new Terminal();
  const dir = mkdtempSync(path.join(tmpdir(), 'interlock-shots-'));
  try {
    // XDG_STATE_HOME: the demo keeps nothing of the user's.
    term.start(['node', '--import', 'tsx', 'tui/demo/main.tsx'], { width: 96, height: 24, env: { XDG_STATE_HOME: dir, FORCE_COLOR: '1' } });
    await term.waitFor('Type a prompt', 60_000);
    await term.type('clean up the scratch directory');
    await term.waitFor('[Y] Approve', 60_000);
    const html = `<!doctype html><meta charset="utf-8"><style>
      body { margin: 0; background: #111; }
      pre { display: inline-block; margin: 0; padding: 14px 18px; background: ${BG}; color: ${FG};
            font: 14px/1.35 'DejaVu Sans Mono', 'Liberation Mono', monospace; border-radius: 6px; }
    </style><pre id="screen">${ansiToHTML(term.screenWithStyles().trimEnd())}</pre>`;
    const file = path.join(dir, 'screen.html');
    writeFileSync(file, html);
    await browser.open(pathToFileURL(file).href, 1000, 700);
    await browser.waitFor("document.readyState === 'complete' && !!document.getElementById('screen')");
    await browser.screenshot(path.join(OUT, 'tui-confirm.png'), '#screen');
  } finally {
    term.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The web UI of an engine with four sessions; the selected one asks to confirm. */
async function webUI(browser: Browser): Promise<void> {
  const workDir = mkdtempSync(path.join(tmpdir(), 'interlock-shots-'));
  mkdirSync(path.join(workDir, 'build'));
  const engine = new Engine({ workDir });
  try {
    const bash = (command: string, text: string) => ({ text, toolCalls: [{ name: 'bash', args: { command } }] });
    // Created first, so the page selects it.
    const deploy = engine.createSession({ id: 'deploy', script: [bash('ls build', 'Checking the build folder.'), bash('rm -rf ./build', 'Removing the old build.'), { text: 'Done.' }] });
    const tests = engine.createSession({ id: 'tests', script: [{ text: 'Running the test suite.', hang: true }] });
    const lint = engine.createSession({ id: 'lint', script: [{ text: 'Linting.', hang: true }] });
    const docs = engine.createSession({ id: 'docs', script: [{ text: 'The docs build without warnings.' }] });
    await docs.prompt('build the docs');
    void lint.prompt('lint everything');
    void tests.prompt('run the tests');
    const paused = new Promise((resolve) => deploy.on('paused', resolve));
    void deploy.prompt('clean up and deploy');
    await paused;
    const stopped = new Promise((resolve) => lint.on('interrupted', resolve));
    lint.interrupt('user_stop');
    await stopped;

    const web = engine.serve();
    try {
      await browser.open(web.url, 1100, 620);
      await browser.waitFor("!document.getElementById('pause').hidden && document.querySelectorAll('#sessions li').length === 4 && document.getElementById('history').textContent.includes('rm -rf')");
      // The answer buttons enable after the pause has been on screen a moment.
      await browser.waitFor("!document.querySelector('#pause button[data-answer=\"approved\"]').disabled");
      await browser.screenshot(path.join(OUT, 'web-ui.png'));
    } finally {
      web.close();
    }
  } finally {
    await engine.close();
    rmSync(workDir, { recursive: true, force: true });
  }
}

mkdirSync(OUT, { recursive: true });
const browser = new Browser();
try {
  await tuiConfirm(browser);
  await webUI(browser);
} finally {
  await browser.close();
}
