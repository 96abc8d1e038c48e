import { useMemo, useSyncExternalStore } from 'react';
import { createEngineStore } from '../store/engineStore.js';
import type { EngineLike, EngineState } from '../types.js';

/** useEngineState returns the engine's sessions and counts, re-rendering when a run state changes. */
export function useEngineState(engine: EngineLike): EngineState {
  const store = useMemo(() => createEngineStore(engine), [engine]);
  return useSyncExternalStore(store.subscribe, store.getSnapshot);
}
