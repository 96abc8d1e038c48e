/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
import assert from 'node:assert/strict';
import { afterEach, describe, it, mock } from 'node:test';
import { Text } from 'ink';
import { useSessionState } from '../hooks/useSessionState.js';
import { FakeSession } from '../testing/fakes.js';
import { cleanup, render, tick } from '../testing/ink.js';
import { createSessionStore, resetSessionStores, sessionStore } from './sessionStore.js';

afterEach(() => {
  cleanup();
  resetSessionStores();
});

describe('session store', () => {
  it('returns the identical snapshot until the version changes', () => {
    const session = new FakeSession();
    const store = createSessionStore(session);
    const unsubscribe = store.subscribe(() => {});
    const first = store.getSnapshot();
    assert.equal(store.getSnapshot(), first);
    const reads = session.snapshotReads;
    session.reemit(); // same version: a duplicate event
    assert.equal(store.getSnapshot(), first);
    assert.equal(session.snapshotReads, reads, 'no snapshot read for a duplicate event');

    session.set({ status: 'running' });
    const second = store.getSnapshot();
    assert.notEqual(second, first);
    assert.equal(second.status, 'running');
    assert.equal(second.isLoading, true);
    assert.ok(Object.isFrozen(second));
    unsubscribe();
  });

  it('derives the seed snapshot: isPaused, pauseInfo, interruption', () => {
    const session = new FakeSession();
    const store = createSessionStore(session);
    store.subscribe(() => {});
    const pause = session.pauseWith({ id: 'p1', kind: 'confirm', tool: 'Bash', message: 'Potentially dangerous command', details: 'rm -rf x' });
    const paused = store.getSnapshot();
    assert.equal(paused.isPaused, true);
    assert.equal(paused.isLoading, false);
    assert.deepEqual(paused.pauseInfo, pause, "the engine's pause as it came");
    assert.equal(paused.model, 'scripted');
    const other = new FakeSession();
    const otherStore = createSessionStore(other);
    otherStore.subscribe(() => {});
    other.pauseWith({ id: 'p2', kind: 'confirm', tool: 'deploy', message: 'Deploy?', rememberScopes: ['session', 'project'] });
    assert.deepEqual(otherStore.getSnapshot().pauseInfo?.rememberScopes, ['session', 'project'], 'what the pause lets the user remember');
    session.interrupt('user_stop');
    assert.deepEqual(store.getSnapshot().interruption, { reason: 'user_stop', label: 'Stopped by you', resumable: true });
    assert.equal(store.getSnapshot().pauseInfo, null);
  });

  it('notifies once per version, and stops listening when the last subscriber leaves', () => {
    const session = new FakeSession();
    const store = createSessionStore(session);
    let notified = 0;
    const unsubscribe = store.subscribe(() => notified++);
    assert.equal(store.mode, 'push');
    assert.equal(session.listeners.count(), 1);
    session.set({ status: 'running' });
    session.reemit();
    session.reemit();
    assert.equal(notified, 1);
    unsubscribe();
    assert.equal(session.listeners.count(), 0);
    assert.equal(store.mode, 'idle');
  });

  it('reads the latest state once for a burst of lagging events', () => {
    const session = new FakeSession();
    const store = createSessionStore(session);
    let notified = 0;
    store.subscribe(() => notified++);
    const reads = session.snapshotReads;
    session.holdEvents = true;
    session.set({ status: 'running' }); // v2
    session.pauseWith({ id: 'p1', kind: 'continue', tool: 'WebSearch', message: 'Page loaded: x' }); // v3
    session.flushEvents(); // v2's event reads v3; v3's event is then old news
    assert.equal(session.snapshotReads, reads + 1);
    assert.equal(notified, 1);
    assert.equal(store.getSnapshot().version, 3);
    assert.equal(store.getSnapshot().pauseInfo?.id, 'p1');
  });

  it('polls the version when events are unavailable, and reads a snapshot only on a change', () => {
    mock.timers.enable({ apis: ['setInterval'] });
    try {
      const session = new FakeSession();
      session.eventsAvailable = false;
      const store = createSessionStore(session, { pollMs: 500 });
      let notified = 0;
      const unsubscribe = store.subscribe(() => notified++);
      assert.equal(store.mode, 'poll');
      const reads = session.snapshotReads;
      mock.timers.tick(500 * 4);
      assert.equal(session.snapshotReads, reads, 'an unchanged version reads no snapshot');
      session.set({ status: 'running' });
      assert.equal(notified, 0, 'nothing pushed');
      mock.timers.tick(500);
      assert.equal(notified, 1);
      assert.equal(store.getSnapshot().status, 'running');
      assert.equal(session.snapshotReads, reads + 1);
      unsubscribe();
    } finally {
      mock.timers.reset();
    }
  });

  it('shows a session that can no longer be read as closed, once', () => {
    const session = new FakeSession();
    const store = createSessionStore(session);
    let notified = 0;
    store.subscribe(() => notified++);
    session.close();
    const closed = store.getSnapshot();
    assert.equal(closed.status, 'closed');
    store.refresh();
    assert.equal(store.getSnapshot(), closed);
    assert.equal(notified, 1);
  });

  it('shares one store per session, and reset forgets them and stops listening', () => {
    const session = new FakeSession();
    const store = sessionStore(session);
    assert.equal(sessionStore(session), store);
    store.subscribe(() => {});
    assert.equal(session.listeners.count(), 1);
    resetSessionStores();
    assert.equal(session.listeners.count(), 0);
    assert.notEqual(sessionStore(session), store);
  });
});

describe('useSessionState', () => {
  function Probe({ session, onRender }: { session: FakeSession; onRender: () => void }) {
    const state = useSessionState(session);
    onRender();
    return <Text>status={state.status} v={state.version}</Text>;
  }

  it('re-renders only when the version changes', async () => {
    const session = new FakeSession();
    let renders = 0;
    const ui = await render(<Probe session={session} onRender={() => renders++} />);
    assert.equal(ui.frame(), 'status=idle v=1');
    const before = renders;
    session.reemit();
    session.reemit('tool_progress');
    await tick();
    assert.equal(renders, before, 'no re-render without a version change');
    session.set({ status: 'running' });
    await tick();
    assert.equal(renders, before + 1);
    assert.equal(ui.frame(), 'status=running v=2');
    ui.unmount();
    assert.equal(session.listeners.count(), 0, 'unmount unsubscribes');
  });
});
