// One store per task loop, like the session store: events push, a slow poll
// of state() is the fallback.

import type { TaskLoopEvent, TaskLoopState } from '../../../node/index.js';
import type { TaskLoopLike } from '../types.js';
import {
  createStoreRegistry,
  createVersionedStore,
  type VersionedStore,
  type VersionedStoreOptions,
} from './versionedStore.js';

export type TaskLoopStore = VersionedStore<TaskLoopState>;

function freezeState(state: TaskLoopState): TaskLoopState {
  for (const task of state.tasks) Object.freeze(task);
  Object.freeze(state.tasks);
  return Object.freeze(state);
}

/** createTaskLoopStore returns a new store over loop (prefer taskLoopStore, which shares one per loop). */
export function createTaskLoopStore(loop: TaskLoopLike, options?: VersionedStoreOptions): TaskLoopStore {
  return createVersionedStore<TaskLoopState>(
    {
      read(previous) {
        try {
          return freezeState(loop.state());
        } catch {
          // A closed loop can't be read: keep showing its last state.
          return previous ?? freezeState({
            id: loop.id, tasks: [], current: -1, pauseMode: false, paused: false,
            completed: 0, failed: 0, done: true, interrupted: false, version: 0,
          });
        }
      },
      listen(onVersion) {
        if (typeof loop.on !== 'function') return null;
        const onEvent = (ev: TaskLoopEvent) => onVersion(ev.version);
        loop.on('event', onEvent);
        return () => loop.off('event', onEvent);
      },
      isFinal: (state) => state.done,
    },
    options,
  );
}

const registry = createStoreRegistry<TaskLoopLike, TaskLoopStore>(createTaskLoopStore);

/**
 * taskLoopStore returns the one store of loop, creating it on first use.
 * Options count only on first use.
 */
export function taskLoopStore(loop: TaskLoopLike, options?: VersionedStoreOptions): TaskLoopStore {
  return registry.get(loop, options);
}

/** resetTaskLoopStores resets and forgets every shared task loop store (test isolation). */
export function resetTaskLoopStores(): void {
  registry.reset();
}
