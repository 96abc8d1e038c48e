import { useSyncExternalStore } from 'react';
import type { TaskLoopState } from '../../../node/index.js';
import { taskLoopStore } from '../store/taskLoopStore.js';
import type { VersionedStoreOptions } from '../store/versionedStore.js';
import type { TaskLoopLike } from '../types.js';

/** useTaskLoopState returns the loop's current state; it re-renders only when the loop's version changes. */
export function useTaskLoopState(loop: TaskLoopLike, options?: VersionedStoreOptions): TaskLoopState {
  const store = taskLoopStore(loop, options);
  return useSyncExternalStore(store.subscribe, store.getSnapshot);
}
