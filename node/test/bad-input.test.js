// Bad input from JS: every case fails with a clear error (a TypeError naming
// the usage, or an InterlockError with a code and the library's message),
// the process keeps running, and nothing is left behind.

import assert from 'node:assert/strict';
import { after, test } from 'node:test';

import { Engine, InterlockError, internals } from '../index.js';
import { loadAddon } from '../load.js';
import { askConfirm, askContinue, hang, nextEvent, settledCounters, tempDir } from './helpers.js';

const native = loadAddon();
const engine = new Engine({ workDir: tempDir() });
const cleanups = [];
const closing = []; // sessions and loops whose close may still unwind

/** An idle session. */
function idle(opts = {}) {
  const s = engine.createSession(opts);
  closing.push(s);
  cleanups.push(() => s.close());
  return s;
}

/** A session blocked on a pause of the script's kind. */
async function paused(script) {
  const s = engine.createSession({ script });
  closing.push(s);
  const pausedEv = nextEvent(s, 'paused');
  const run = s.prompt('go');
  cleanups.push(async () => {
    s.close();
    await run;
  });
  await pausedEv;
  return s;
}

/** A session with a run in flight (the model hangs). */
async function running() {
  const s = engine.createSession({ script: hang });
  closing.push(s);
  const started = nextEvent(s, 'run_started');
  const run = s.prompt('go');
  cleanups.push(async () => {
    s.close();
    await run;
  });
  await started;
  return s;
}

function closedSession() {
  const s = engine.createSession();
  closing.push(s);
  s.close();
  return s;
}

function closedEngine() {
  const e = new Engine();
  const s = e.createSession();
  const loop = e.createTaskLoop({ tasks: [{ title: 't', prompt: 'p' }] });
  e.close();
  return { e, s, loop };
}

const MB = 1024 * 1024;

// want: TypeError, or the InterlockError code. msg: a pattern the message must match.
const cases = [
  // Engine config
  { name: 'Engine: config of the wrong type', want: TypeError, msg: /new Engine\(config\?: EngineConfig\): config must be an object, got a number/, run: () => new Engine(42) },
  { name: 'Engine: config as a JSON string', want: TypeError, code: 'ERR_INVALID_ARG_TYPE', msg: /config must be an object, got a string/, run: () => new Engine('{"workDir": "/tmp"}') },
  { name: 'Engine: unknown config field', want: TypeError, code: 'ERR_INVALID_ARG_VALUE', msg: /config\.bogus is not a known field/, run: () => new Engine({ bogus: 1 }) },
  { name: 'Engine: config field of the wrong type', want: TypeError, code: 'ERR_INVALID_ARG_TYPE', msg: /config\.bash\.timeoutMs must be a number/, run: () => new Engine({ bash: { timeoutMs: 'soon' } }) },
  { name: 'Engine: a snake_case key', want: TypeError, code: 'ERR_INVALID_ARG_VALUE', msg: /config\.stream_idle_timeout_ms is not a known field \(keys are camelCase\): did you mean `streamIdleTimeoutMs`/, run: () => new Engine({ stream_idle_timeout_ms: -1 }) },
  { name: 'Engine: config that is an array', want: TypeError, msg: /config must be an object, got an array/, run: () => new Engine([1, 2]) },
  { name: 'Engine: too many arguments', want: TypeError, code: 'ERR_INVALID_ARG_COUNT', msg: /got 2/, run: () => new Engine({}, {}) },
  { name: 'Engine: a built-in tool that does not exist', want: 'ERR_INVALID_ARGUMENT', msg: /"bsh" is not a built-in tool: choose among ask, bash, sleep, web/, run: () => new Engine({ tools: ['bsh'] }) },

  // createSession
  { name: 'createSession: opts of the wrong type', want: TypeError, msg: /engine.createSession/, run: () => engine.createSession(5) },
  { name: 'createSession: too many arguments', want: TypeError, code: 'ERR_INVALID_ARG_COUNT', msg: /expected 0 to 1 arguments, got 2/, run: () => engine.createSession({}, {}) },
  { name: 'createSession: unknown option', want: TypeError, code: 'ERR_INVALID_ARG_VALUE', msg: /opts\.colour is not a known field/, run: () => engine.createSession({ colour: 'red' }) },
  { name: 'createSession: script as a string', want: TypeError, msg: /opts\.script must be an array, got a string/, run: () => engine.createSession({ script: '[]' }) },
  { name: 'createSession: script of the wrong type', want: TypeError, msg: /opts\.script must be an array/, run: () => engine.createSession({ script: 42 }) },
  { name: 'createSession: duplicate id', want: 'ERR_DUPLICATE', run: () => { idle({ id: 'twin' }); engine.createSession({ id: 'twin' }); } },
  {
    name: 'createSession: an option whose getter throws, also right after options alike',
    want: TypeError, code: 'ERR_INVALID_ARG_VALUE', msg: /reading opts\.workDir threw \(no dir\)/,
    run: () => {
      idle({ workDir: '.' });
      engine.createSession({ get workDir() { throw new Error('no dir'); } });
    },
  },

  // Looking sessions up
  { name: 'session: unknown id', want: 'ERR_UNKNOWN_SESSION', run: () => engine.session('nope') },
  { name: 'session: id of the wrong type', want: TypeError, msg: /engine.session\(id: string\)/, run: () => engine.session(42) },
  { name: 'session: no id', want: TypeError, run: () => engine.session() },
  { name: 'session: a closed one', want: 'ERR_UNKNOWN_SESSION', run: () => engine.session(closedSession().id) },

  // Answers with nothing paused
  { name: 'resume with nothing paused', want: 'ERR_NOT_PAUSED', msg: /not paused/, run: () => idle().resume() },
  { name: 'confirm with nothing paused', want: 'ERR_NOT_PAUSED', run: () => idle().confirm(true) },
  { name: 'signal resume with nothing paused', want: 'ERR_NOT_PAUSED', run: () => idle().signal('resume') },

  // Answers of the wrong kind or for the wrong pause
  { name: 'confirm on a continue pause', want: 'ERR_WRONG_PAUSE_KIND', msg: /continue pause/, run: async () => (await paused(askContinue)).confirm(true) },
  { name: 'resume on a confirm pause', want: 'ERR_WRONG_PAUSE_KIND', msg: /confirm pause/, run: async () => (await paused(askConfirm)).resume() },
  { name: 'confirm of an unknown pause id', want: 'ERR_UNKNOWN_PAUSE', run: async () => (await paused(askConfirm)).confirm(true, { pauseId: 'p999' }) },
  { name: 'resume of a 1 MB pause id', want: 'ERR_UNKNOWN_PAUSE', run: async () => (await paused(askContinue)).resume('p'.repeat(MB)) },
  { name: 'confirm with an unknown remember scope', want: 'ERR_INVALID_ARGUMENT', msg: /remember/, run: async () => (await paused(askConfirm)).confirm(true, { reason: '', remember: 'forever' }) },
  { name: 'answering the same pause twice', want: 'ERR_NOT_PAUSED', run: async () => { const s = await paused(askContinue); s.resume(); s.resume(); } },

  // Argument types and counts of answers
  { name: 'confirm without arguments', want: TypeError, code: 'ERR_INVALID_ARG_TYPE', msg: /session.confirm\(approved: boolean.*approved must be true or false, got undefined/, run: () => idle().confirm() },
  { name: 'confirm with a string for approved', want: TypeError, code: 'ERR_INVALID_ARG_TYPE', msg: /approved must be true or false, got string/, run: () => idle().confirm('yes') },
  { name: 'confirm with a number for reason', want: TypeError, msg: /options\.reason must be a string, got a number/, run: () => idle().confirm(true, { reason: 42 }) },
  { name: 'confirm with too many arguments', want: TypeError, msg: /got 3/, run: () => idle().confirm(true, { reason: 'r' }, 'p1') },
  { name: 'resume with a number', want: TypeError, msg: /pauseId must be a string, got number/, run: () => idle().resume(1) },
  { name: 'resume with too many arguments', want: TypeError, msg: /expected 0 to 1 arguments, got 2/, run: () => idle().resume('a', 'b') },

  // Interrupts and signals
  { name: 'interrupt with nothing running', want: 'ERR_NOT_RUNNING', run: () => idle().interrupt() },
  { name: 'interrupt with an unknown reason', want: 'ERR_INVALID_ARGUMENT', msg: /because/, run: async () => (await running()).interrupt('because') },
  { name: 'interrupt with a number', want: TypeError, msg: /session.interrupt\(reason\?: Reason\)/, run: () => idle().interrupt(5) },
  { name: 'signal with an unknown name', want: 'ERR_INVALID_ARGUMENT', msg: /explode/, run: () => idle().signal('explode') },
  { name: 'signal without arguments', want: TypeError, msg: /session.signal/, run: () => idle().signal() },
  { name: 'signal with an object', want: TypeError, run: () => idle().signal({ sig: 'pause' }) },

  // Prompts (they reject rather than throw)
  { name: 'prompt without text', want: TypeError, msg: /session.prompt\(text: string\)/, run: () => idle().prompt() },
  { name: 'prompt with a number', want: TypeError, msg: /text must be a string, got number/, run: () => idle().prompt(42) },
  { name: 'prompt with a NUL in the text', want: TypeError, code: 'ERR_INVALID_ARG_VALUE', msg: /NUL/, run: () => idle().prompt('a\0b') },
  { name: 'prompt while a run is in flight', want: 'ERR_RUNNING', run: async () => (await running()).prompt('again') },
  { name: 'continue with nothing to continue', want: 'ERR_NOT_RESUMABLE', run: () => idle().continue() },
  { name: 'continue with an argument', want: TypeError, msg: /session.continue\(\)/, run: () => idle().continue('now') },

  // Listeners
  { name: 'on with an unknown event type', want: TypeError, code: 'ERR_INVALID_ARG_VALUE', msg: /type "pause" is not an event name: did you mean `paused`\?/, run: () => idle().on('pause', () => {}) },
  { name: 'on without a function', want: TypeError, msg: /fn must be a function/, run: () => idle().on('paused', 42) },
  { name: 'off with a symbol type', want: TypeError, run: () => idle().off(Symbol('x'), () => {}) },

  // Commands
  { name: 'check without a command', want: TypeError, msg: /session\.check\(command: string\)/, run: () => idle().check() },
  { name: 'check with a number', want: TypeError, run: () => idle().check(42) },
  { name: 'check with a NUL', want: TypeError, msg: /NUL/, run: () => idle().check('ls\0rm') },

  // Task loops
  { name: 'createTaskLoop without options', want: TypeError, msg: /engine.createTaskLoop/, run: () => engine.createTaskLoop() },
  { name: 'createTaskLoop with tasks of the wrong type', want: TypeError, msg: /opts.tasks must be an array/, run: () => engine.createTaskLoop({ tasks: 'all' }) },
  { name: 'createTaskLoop with pauseMode of the wrong type', want: TypeError, run: () => engine.createTaskLoop({ tasks: [], pauseMode: 'yes' }) },
  { name: 'createTaskLoop with an unknown task field', want: TypeError, code: 'ERR_INVALID_ARG_VALUE', msg: /opts\.tasks\[0\]\.bogus is not a known field/, run: () => engine.createTaskLoop({ tasks: [{ title: 't', prompt: 'p', bogus: 1 }] }) },
  { name: 'setPauseMode with a string', want: TypeError, msg: /taskLoop.setPauseMode\(on: boolean\)/, run: () => { const l = engine.createTaskLoop({ tasks: [{ title: 't', prompt: 'p' }] }); closing.push(l, l.session); cleanups.push(() => { l.close(); l.session.close(); }); l.setPauseMode('on'); } },

  // After close
  { name: 'resume after session.close()', want: 'ERR_CLOSED', msg: /closed/, run: () => closedSession().resume() },
  { name: 'prompt after session.close()', want: 'ERR_CLOSED', run: () => closedSession().prompt('hi') },
  { name: 'snapshot after session.close()', want: 'ERR_CLOSED', run: () => closedSession().snapshot() },
  { name: 'createSession after engine.close()', want: 'ERR_CLOSED', run: () => closedEngine().e.createSession() },
  { name: 'sessions() after engine.close()', want: 'ERR_CLOSED', run: () => closedEngine().e.sessions() },
  { name: 'session methods after engine.close()', want: 'ERR_CLOSED', run: () => closedEngine().s.history() },
  { name: 'task loop after engine.close()', want: 'ERR_CLOSED', run: () => closedEngine().loop.run() },
  { name: 'emergencyStop after engine.close()', want: 'ERR_CLOSED', run: () => closedEngine().e.emergencyStop() },
  { name: 'emergencyStop with an argument', want: TypeError, msg: /engine.emergencyStop\(\)/, run: () => engine.emergencyStop(true) },

  // Raw handles: unknown, zero, of the wrong kind (the wrapper never sends these; the addon must still cope)
  { name: 'raw: unknown session handle', want: 'ERR_INVALID_HANDLE', run: () => native.sessionStatus(987654321) },
  { name: 'raw: handle 0', want: 'ERR_INVALID_HANDLE', run: () => native.sessionResume(0) },
  { name: 'raw: negative handle', want: 'ERR_INVALID_HANDLE', run: () => native.sessionVersion(-5) },
  { name: 'raw: handle that is not a number', want: TypeError, code: 'ERR_INVALID_ARG_TYPE', run: () => native.sessionStatus('s1') },
  { name: 'raw: status getter without a handle', want: TypeError, code: 'ERR_INVALID_ARG_COUNT', run: () => native.sessionStatus() },
  { name: 'Session constructed directly', want: TypeError, code: 'ERR_ILLEGAL_CONSTRUCTOR', run: () => new (Object.getPrototypeOf(idle()).constructor)() },
  { name: 'raw: engine handle used as a session', want: 'ERR_INVALID_HANDLE', run: () => {
    const h = native.engineCreate(undefined, () => {});
    try {
      native.sessionPrompt(h, 'x');
    } finally {
      native.engineClose(h);
    }
  } },
  { name: 'raw: engineCreate without a callback', want: TypeError, msg: /onEvent must be a function/, run: () => native.engineCreate(undefined, 'cb') },

  // Ids that cannot cross the C boundary intact: refused, never truncated or replaced
  { name: 'createSession: id with a NUL', want: TypeError, code: 'ERR_INVALID_ARG_VALUE', msg: /opts\.id .*NUL/, run: () => engine.createSession({ id: 'a\0b' }) },
  { name: 'createSession: id with a lone surrogate', want: TypeError, code: 'ERR_INVALID_ARG_VALUE', msg: /lone surrogate/, run: () => engine.createSession({ id: 'x\ud800' }) },
  { name: 'createSession: id with a lone low surrogate', want: TypeError, code: 'ERR_INVALID_ARG_VALUE', msg: /lone surrogate/, run: () => engine.createSession({ id: '\udc00' }) },
  { name: 'session: id with a NUL', want: TypeError, code: 'ERR_INVALID_ARG_VALUE', msg: /NUL/, run: () => { idle({ id: 'nul' }); engine.session('nul\0tail'); } },
  { name: 'session: id with a lone surrogate', want: TypeError, code: 'ERR_INVALID_ARG_VALUE', run: () => engine.session('\ud83d') },

  // Config numbers out of range: refused with the field named as written
  { name: 'Engine: a timeout that would overflow', want: RangeError, code: 'ERR_OUT_OF_RANGE', msg: /config\.bash\.timeoutMs .*got 10000000000000000/, run: () => new Engine({ bash: { timeoutMs: 1e16 } }) },
  { name: 'Engine: a fractional grace', want: RangeError, code: 'ERR_OUT_OF_RANGE', msg: /config\.bash\.graceMs/, run: () => new Engine({ bash: { graceMs: 0.5 } }) },
  { name: 'Engine: an infinite idle timeout', want: RangeError, code: 'ERR_OUT_OF_RANGE', msg: /config\.streamIdleTimeoutMs/, run: () => new Engine({ streamIdleTimeoutMs: Infinity }) },
  { name: 'Engine: a negative timeout', want: RangeError, code: 'ERR_OUT_OF_RANGE', msg: /config\.bash\.timeoutMs/, run: () => new Engine({ bash: { timeoutMs: -1 } }) },

  // Methods on the wrong receiver: TypeError ERR_INVALID_THIS, not a bare private-field error
  { name: 'Session method on a plain object', want: TypeError, code: 'ERR_INVALID_THIS', msg: /session\.resume\(\): called on object that is not a Session/, run: () => Object.getPrototypeOf(idle()).resume.call({}) },
  { name: 'Session getter on null', want: TypeError, code: 'ERR_INVALID_THIS', msg: /session\.status/, run: () => Object.getOwnPropertyDescriptor(Object.getPrototypeOf(idle()), 'status').get.call(null) },
  { name: 'detached session.prompt', want: TypeError, code: 'ERR_INVALID_THIS', run: () => { const { prompt } = idle(); return prompt('x'); } },
  { name: 'session.on called on an engine', want: TypeError, code: 'ERR_INVALID_THIS', run: () => idle().on.call(engine, 'paused', () => {}) },
  { name: 'engine.close called on a session', want: TypeError, code: 'ERR_INVALID_THIS', msg: /engine\.close\(\).*not an Engine/, run: () => engine.close.call(idle()) },
  { name: 'taskLoop.run on a session', want: TypeError, code: 'ERR_INVALID_THIS', run: () => { const l = engine.createTaskLoop({ tasks: [{ title: 't', prompt: 'p' }] }); closing.push(l, l.session); cleanups.push(() => { l.close(); l.session.close(); }); return l.run.call(l.session); } },
];

for (const c of cases) {
  test(c.name, async () => {
    let threw;
    try {
      await c.run();
    } catch (err) {
      threw = err;
    }
    assert.ok(threw, 'expected an error');
    if (c.want === TypeError || c.want === RangeError) {
      assert.ok(threw instanceof c.want, `want ${c.want.name}, got ${threw.name} ${threw.code}: ${threw.message}`);
      assert.match(String(threw.code), /^ERR_(INVALID_ARG_(TYPE|VALUE|COUNT)|ILLEGAL_CONSTRUCTOR|INVALID_THIS|OUT_OF_RANGE)$/, `an error with a code: ${threw.message}`);
      if (c.code) assert.equal(threw.code, c.code, threw.message);
    } else {
      assert.ok(threw instanceof InterlockError, `want InterlockError, got ${threw.name}: ${threw.message}`);
      assert.equal(threw.code, c.want, threw.message);
    }
    assert.ok(threw.message.length > 10, 'the message says what failed');
    if (c.msg) assert.match(threw.message, c.msg);
  });
}

test('huge strings go through: 10 MB prompt, 1 MB command', async () => {
  const s = idle({ script: [{ text: 'read it' }] });
  const res = await s.prompt('x'.repeat(10 * MB));
  assert.equal(res.status, 'idle');
  assert.equal(s.history()[0].text.length, 10 * MB);
  const d = s.check(`echo ${'a'.repeat(MB)} && rm -rf /tmp/x`);
  assert.ok(['allow', 'confirm', 'deny'].includes(d.decision));
});

test(`${cases.length} bad-input cases`, () => assert.ok(cases.length >= 40));

after(async () => {
  for (const fn of cleanups) await fn();
  await Promise.all(closing.map((x) => x.closed));
  // Nothing left: no sessions in the engine, every event copy freed.
  assert.deepEqual(engine.sessions(), []);
  engine.close();
  assert.equal(internals.openEngines(), 0);
  await engine.closed;
  assert.equal(internals.counters().openHandles, 0, 'the library handle table is empty');
  // The event functions are finalized on a later turn of the loop, once
  // their queues are drained: wait for that, not for a fixed time.
  const c = await settledCounters();
  assert.equal(c.queuedEvents, 0, 'event copies not freed');
  assert.equal(c.sinks, 0, 'event sinks left');
});
