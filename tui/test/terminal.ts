// Drives the demo in a real terminal (tmux) for the end-to-end tests: start
// it, type keys, read the screen. Waiting means polling the screen for text
// with a deadline: observing, never sleeping for ordering.

import { execFileSync, spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The repository root (tui/test/ is two levels down). */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The key-hint line of a confirm the user may remember (the demo's bash and deploy confirms). */
export const CONFIRM_DIALOG = '[Y] Approve  [S] Approve for this session  [P] Approve for this project  [N] Deny  [Esc] Cancel';

/**
 * whyNoDemo says why the demo can't run here (no tmux, the addon does not
 * load), or null when it can. The addon is loaded in a child process: this
 * process stays free of the Go runtime.
 */
export function whyNoDemo(): string | null {
  if (spawnSync('tmux', ['-V']).status !== 0) return 'tmux is not installed (apt-get install tmux)';
  const probe = spawnSync(
    process.execPath,
    ['-e', "import('./node/index.js').then((m) => new m.Engine().close())"],
    { cwd: ROOT, encoding: 'utf8', timeout: 30_000 },
  );
  if (probe.status !== 0) {
    const reason = (probe.stderr || probe.error?.message || `exit ${probe.status}`).trim().split('\n').slice(0, 3).join(' ');
    return `the addon (node/index.js) does not load yet: ${reason}`;
  }
  return null;
}

/** A tmux-driven terminal on a private tmux server (its own socket). */
export class Terminal {
  readonly socket = `interlock-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  readonly target = 'demo';
  private controls: Control[] = [];

  /**
   * start runs args (node ...) in a 120x40 terminal, in the repo root,
   * outside CI mode (Ink renders only the last frame in CI). A shell runs it
   * and prints "[demo exited N]" after it, which exitStatus reads.
   */
  start(args: string[], { width = 120, height = 40, env = {} as Record<string, string> } = {}): void {
    const quoted = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    const vars = Object.entries(env).map(([k, v]) => `${k}='${v.replace(/'/g, `'\\''`)}'`).join(' ');
    this.tmux('-f', '/dev/null', 'new-session', '-d', '-s', this.target, '-x', String(width), '-y', String(height), '-c', ROOT,
      `env -u CI -u CONTINUOUS_INTEGRATION ${vars} ${quoted}; echo "[demo exited $?]"; sleep 600`);
    this.tmux('set-option', '-t', this.target, 'history-limit', '5000');
  }

  /** The demo's pid (the child of the pane's shell). */
  pid(): number {
    const shell = Number(this.tmux('display-message', '-p', '-t', this.target, '#{pane_pid}').trim());
    const [demo] = descendants(shell);
    if (!demo) throw new Error(`the demo is not running (shell ${shell}); the screen:\n${this.screen()}`);
    return demo;
  }

  /** keys sends tmux key names ("Enter", "Escape", "y") or literal text (literal: true). */
  keys(keys: string, { literal = false } = {}): void {
    const control = this.controls[0];
    // A control client takes a command line: quote the text for tmux.
    if (control) control.send(`send-keys -t ${this.target} ${literal ? '-l ' : ''}'${keys.replace(/'/g, `'\\''`)}'`);
    else this.tmux('send-keys', '-t', this.target, ...(literal ? ['-l', keys] : [keys]));
  }

  /** screen is the whole scrollback and screen, wrapped lines joined. */
  screen(): string {
    return this.tmux('capture-pane', '-p', '-J', '-t', this.target, '-S', '-');
  }

  /** waitFor polls the screen until test passes; it throws with the screen at the deadline. */
  async waitFor(what: string | RegExp | ((screen: string) => boolean), timeoutMs = 20_000): Promise<string> {
    const test = typeof what === 'function' ? what : (s: string) => (typeof what === 'string' ? s.includes(what) : what.test(s));
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      // Through a control client when there is one: no process per look, no blocked event loop.
      const control = this.controls[0];
      const screen = control ? await control.command(`capture-pane -p -J -S - -t ${this.target}`) : this.screen();
      if (test(screen)) return screen;
      if (Date.now() > deadline) {
        throw new Error(`timed out after ${timeoutMs} ms waiting for ${String(what)} (${this.describe()}); the screen:\n${screen.trimEnd()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /**
   * answer presses key at a prompt until its effect shows. A prompt ignores
   * answer keys for a short settle time after it appears (a person never
   * answers that fast); a key pressed in that window is dropped, and pressed
   * again here while the screen still shows no effect.
   */
  async answer(key: string, effect: (screen: string) => boolean, timeoutMs = 20_000, retryMs = 1_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      this.keys(key);
      try {
        return await this.waitFor(effect, retryMs);
      } catch (error) {
        if (Date.now() > deadline) throw error;
      }
    }
  }

  /**
   * type enters text at the prompt and submits it. The prompt that comes
   * back after a run takes keys only once the input has been quiet for the
   * settle time, and a read of several letters never opens it: the first
   * letter is pressed on its own (again, while it does not show), then the
   * rest.
   */
  async type(text: string, timeoutMs = 20_000): Promise<void> {
    const first = text.slice(0, 1);
    const lastLine = (s: string) => s.trimEnd().split('\n').pop() ?? '';
    const typed = (s: string) => new RegExp(`^> (${first.replace(/\W/g, '\\$&')})+$`).exec(lastLine(s));
    // Pressed again every 400 ms (longer than the quiet period) until it shows.
    const screen = await this.answer(first, (s) => typed(s) !== null, timeoutMs, 400);
    // The prompt takes keys now. Erase what it got, type the text, and check
    // the prompt holds exactly that: a press still on its way, or an erase
    // the prompt dropped on a busy machine, leaves something else (e.g.
    // "ggo"); then erase and type again.
    const deadline = Date.now() + timeoutMs;
    let shown = lastLine(screen);
    for (;;) {
      for (let i = 0; i < shown.length + 2; i++) this.keys('BSpace');
      await this.waitFor((s) => !/^> \S/.test(lastLine(s)) || /^> [^>]*(Type a prompt|press Enter)/.test(lastLine(s)), timeoutMs);
      this.keys(text, { literal: true });
      try {
        await this.waitFor((s) => lastLine(s) === `> ${text}`, 2_000);
        break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        shown = lastLine(this.screen());
      }
    }
    this.keys('Enter');
  }

  /** describe says whether the demo still runs, for failure messages. */
  describe(): string {
    const status = this.exitStatus();
    return status === null ? 'the demo is running' : `the demo exited with status ${status}`;
  }

  /** exitStatus is the demo's exit status once it has exited (128+N: killed by signal N), else null. */
  exitStatus(): number | null {
    const exited = /\[demo exited (\d+)\]/.exec(this.screen());
    return exited ? Number(exited[1]) : null;
  }

  /** waitForExit polls until the demo has exited and returns its status. */
  async waitForExit(timeoutMs = 20_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const status = this.exitStatus();
      if (status !== null) return status;
      if (Date.now() > deadline) throw new Error(`the demo did not exit within ${timeoutMs} ms; the screen:\n${this.screen()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** control attaches a control-mode client (see Control); close() ends it. */
  control(): Control {
    const control = new Control(this.socket, this.target);
    this.controls.push(control);
    return control;
  }

  /** screenWithStyles is the visible screen with its colour and style codes (capture-pane -e). */
  screenWithStyles(): string {
    return this.tmux('capture-pane', '-p', '-e', '-t', this.target);
  }

  /** close kills the private tmux server (and anything still in it) and removes its socket. */
  close(): void {
    for (const control of this.controls) control.close();
    this.controls = [];
    const socketPath = spawnSync('tmux', ['-L', this.socket, 'display-message', '-p', '#{socket_path}'], { encoding: 'utf8' })
      .stdout?.trim();
    spawnSync('tmux', ['-L', this.socket, 'kill-server']);
    if (socketPath) rmSync(socketPath, { force: true });
  }

  private tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8' });
  }
}

/**
 * Control is a tmux control-mode client (tmux -C) of a Terminal's server:
 * commands go down one pipe, no process per command, so a test can send a
 * key every few ms and read the screen within about a millisecond.
 */
export class Control {
  private readonly proc: ChildProcessWithoutNullStreams;
  private readonly waiting: ((reply: string) => void)[] = [];
  private block: string[] | null = null;
  private rest = '';
  private closed = false;

  constructor(socket: string, target: string) {
    this.proc = spawn('tmux', ['-L', socket, '-C', 'attach-session', '-t', target]);
    this.proc.stdout.setEncoding('utf8');
    this.proc.stdout.on('data', (data: string) => this.onData(data));
    this.proc.on('error', () => {});
    this.proc.stdin.on('error', () => {});
    this.send('refresh-client -f no-output'); // no pane output notifications
  }

  /** command runs a tmux command and resolves with its output. */
  command(cmd: string): Promise<string> {
    return new Promise((resolve, reject) => {
      if (this.closed) return reject(new Error(`tmux control client closed before: ${cmd}`));
      this.waiting.push(resolve);
      this.proc.stdin.write(`${cmd}\n`);
    });
  }

  /** send runs a tmux command without waiting for it. */
  send(cmd: string): void {
    if (this.closed) return;
    this.waiting.push(() => {});
    this.proc.stdin.write(`${cmd}\n`);
  }

  /** screen is the visible screen (capture-pane -p). */
  screen(target = 'demo'): Promise<string> {
    return this.command(`capture-pane -p -J -t ${target}`);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.proc.stdin.end();
    this.proc.kill();
  }

  private onData(data: string): void {
    const lines = (this.rest + data).split('\n');
    this.rest = lines.pop() ?? '';
    for (const line of lines) {
      // Replies to this client's commands carry flag 1 (%begin time number flags).
      const mark = /^%(begin|end|error) \d+ \d+ (\d+)$/.exec(line);
      if (mark && (Number(mark[2]) & 1) === 1) {
        if (mark[1] === 'begin') this.block = [];
        else {
          const reply = (this.block ?? []).join('\n');
          this.block = null;
          this.waiting.shift()?.(reply);
        }
      } else if (this.block && !mark) {
        this.block.push(line);
      }
    }
  }
}

/** descendants lists the pids of every process under pid (from /proc). */
export function descendants(pid: number): number[] {
  const found: number[] = [];
  const visit = (parent: number) => {
    for (const task of safeList(`/proc/${parent}/task`)) {
      const children = safeRead(`/proc/${parent}/task/${task}/children`).trim();
      for (const child of children ? children.split(/\s+/).map(Number) : []) {
        found.push(child);
        visit(child);
      }
    }
  };
  visit(pid);
  return found;
}

/** alive reports whether a process exists (and is not a zombie). */
export function alive(pid: number): boolean {
  const stat = safeRead(`/proc/${pid}/stat`);
  return stat !== '' && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
}

/** cpuSeconds is the user+system CPU time a process used so far. */
export function cpuSeconds(pid: number, ticksPerSecond: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of /proc/pid/stat; fields[0] here is field 3.
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

/** clockTicks is the kernel's USER_HZ (getconf CLK_TCK). */
export function clockTicks(): number {
  return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return []; // the process is gone
  }
}

function safeRead(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
