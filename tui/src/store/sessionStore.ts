// One store per session: the engine pushes events, React reads immutable
// snapshots through useSyncExternalStore.

import type { EngineEvent, SessionSnapshot } from '../../../node/index.js';
import type { InterruptionView, SessionLike, SessionState } from '../types.js';
import {
  createStoreRegistry,
  createVersionedStore,
  type VersionedStore,
  type VersionedStoreOptions,
} from './versionedStore.js';

export type SessionStore = VersionedStore<SessionState>;

/** toSessionState derives the TUI snapshot from an engine snapshot. */
export function toSessionState(snap: SessionSnapshot): SessionState {
  const isPaused = snap.status === 'paused';
  let interruption: InterruptionView | null = null;
  if (snap.status === 'interrupted' && snap.interruption) {
    const { reason, label, resumable } = snap.interruption;
    interruption = Object.freeze({ reason, label, resumable });
  }
  const stopping =
    snap.status === 'stopping' && snap.stopping
      ? Object.freeze({ reason: snap.stopping.reason, label: snap.stopping.label })
      : null;
  return Object.freeze({
    status: snap.status,
    isLoading: snap.status === 'running',
    isPaused,
    pauseInfo: isPaused && snap.pause ? Object.freeze(snap.pause) : null,
    model: snap.model || null,
    tokens: Object.freeze({ input: snap.tokens?.input ?? 0, output: snap.tokens?.output ?? 0 }),
    version: snap.version,
    interruption,
    stopping,
  });
}

/** A session that can't be read any more (closed, or its handle is gone). */
function closedState(previous: SessionState | undefined): SessionState {
  return Object.freeze({
    status: 'closed',
    isLoading: false,
    isPaused: false,
    pauseInfo: null,
    model: previous?.model ?? null,
    tokens: previous?.tokens ?? Object.freeze({ input: 0, output: 0 }),
    // Past every real version, so the change is seen once and never again.
    version: Number.MAX_SAFE_INTEGER,
    interruption: null,
    stopping: null,
  });
}

/** createSessionStore returns a new store over session (prefer sessionStore, which shares one per session). */
export function createSessionStore(session: SessionLike, options?: VersionedStoreOptions): SessionStore {
  return createVersionedStore<SessionState>(
    {
      read(previous) {
        if (previous?.status === 'closed') return previous;
        try {
          return toSessionState(session.snapshot());
        } catch {
          return closedState(previous);
        }
      },
      version: () => session.version,
      listen(onVersion) {
        if (typeof session.on !== 'function') return null;
        const onEvent = (ev: EngineEvent) => onVersion(ev.version);
        session.on('event', onEvent);
        return () => session.off('event', onEvent);
      },
      isFinal: (state) => state.status === 'closed',
    },
    options,
  );
}

const registry = createStoreRegistry<SessionLike, SessionStore>(createSessionStore);

/**
 * sessionStore returns the one store of session, creating it on first use.
 * Options count only on first use.
 */
export function sessionStore(session: SessionLike, options?: VersionedStoreOptions): SessionStore {
  return registry.get(session, options);
}

/** resetSessionStores resets and forgets every shared session store (test isolation). */
export function resetSessionStores(): void {
  registry.reset();
}
