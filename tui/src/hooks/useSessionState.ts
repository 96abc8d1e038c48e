import { useSyncExternalStore } from 'react';
import { sessionStore } from '../store/sessionStore.js';
import type { VersionedStoreOptions } from '../store/versionedStore.js';
import type { SessionLike, SessionState } from '../types.js';

/**
 * useSessionState returns the session's current snapshot and re-renders only
 * when the engine's version changes. Pushed events feed it; when events are
 * unavailable it polls the version (options.pollMs, default 250 ms).
 */
export function useSessionState(session: SessionLike, options?: VersionedStoreOptions): SessionState {
  const store = sessionStore(session, options);
  return useSyncExternalStore(store.subscribe, store.getSnapshot);
}
