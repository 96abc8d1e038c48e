/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import type { SessionSnapshot } from '../../../node/index.js';
import type { EngineLike } from '../types.js';
import { createEngineStore, toSessionRow } from './engineStore.js';

const base = {
  version: 1, pauses: [], step: 0, tokens: { input: 0, output: 0 }, model: 'scripted', pauseRequested: false,
} satisfies Partial<SessionSnapshot>;

function fakeEngine(snaps: SessionSnapshot[]) {
  const events = new EventEmitter();
  let reads = 0;
  const engine = {
    sessions: () => (reads++, snaps),
    counts: () => ({ proceeding: 1, eligible: 0, needsInput: 0 }),
    on: (type: string, fn: (...a: unknown[]) => void) => (events.on(type, fn), engine),
    off: (type: string, fn: (...a: unknown[]) => void) => (events.off(type, fn), engine),
  };
  return { engine: engine as unknown as EngineLike, emit: (type: string) => events.emit('event', { type }), reads: () => reads };
}

describe('engine store', () => {
  it("maps snapshots to rows: the engine's reason label when interrupted, the pause when blocked", () => {
    assert.deepEqual(
      toSessionRow({ ...base, id: 'a', status: 'interrupted', runState: 'interrupted', pause: null, eligibility: { eligible: true, repeatsSideEffect: true },
        interruption: { reason: 'server_restart', label: 'Interrupted by server restart', at: '', resumable: true } }),
      { id: 'a', runState: 'interrupted', eligible: true, reasonLabel: 'Interrupted by server restart', repeatsSideEffect: true },
    );
    assert.deepEqual(
      toSessionRow({ ...base, id: 'b', status: 'paused', runState: 'blocked', interruption: null, eligibility: { eligible: false, reason: 'Waiting for your input' },
        pause: { id: 'p1', kind: 'confirm', source: 'tool', message: 'Potentially dangerous command', step: 1, at: '' } as never }),
      { id: 'b', runState: 'blocked', eligible: false, waitingFor: 'Potentially dangerous command' },
    );
  });

  it('maps a session blocked by a restart (no pause) to a row that offers Continue and says what it asks again', () => {
    assert.deepEqual(
      toSessionRow({ ...base, id: 'c', status: 'interrupted', runState: 'blocked', pause: null,
        eligibility: { eligible: false, reason: 'Needs input: continue to be asked again', asksAgain: true },
        interruption: { reason: 'server_restart', label: 'Interrupted by server restart', at: '', resumable: true },
        needsInput: { id: 'p1', kind: 'confirm', source: 'tool', message: 'Potentially dangerous command', step: 1, at: '' } as never }),
      { id: 'c', runState: 'blocked', eligible: false, asksAgain: true, reasonLabel: 'Interrupted by server restart', waitingFor: 'Potentially dangerous command' },
    );
  });

  it('reads the engine again after state events, not after streamed text', () => {
    const snaps: SessionSnapshot[] = [{ ...base, id: 'a', status: 'running', runState: 'proceeding', pause: null, interruption: null, eligibility: { eligible: false } }];
    const f = fakeEngine(snaps);
    const store = createEngineStore(f.engine);
    let changes = 0;
    const off = store.subscribe(() => changes++);
    const first = store.getSnapshot();
    assert.equal(first.sessions[0].runState, 'proceeding');
    const reads = f.reads();
    f.emit('text');
    f.emit('tool_progress');
    assert.equal(f.reads(), reads, 'streamed text reads nothing');
    assert.equal(store.getSnapshot(), first);
    f.emit('stopping');
    assert.equal(changes, 1);
    assert.notEqual(store.getSnapshot(), first);
    off();
    f.emit('interrupted');
    assert.equal(changes, 1, 'unsubscribed');
  });
});
