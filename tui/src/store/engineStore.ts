// The engine's sessions and counts as one external store: the sessions view
// and the header render from it. It reads the engine again after every
// event that can change a run state (not after streamed text).

import type { SessionSnapshot } from '../../../node/index.js';
import type { EngineLike, EngineState, SessionRow } from '../types.js';
import { createVersionedStore, type VersionedStore } from './versionedStore.js';

const NO_STATE_CHANGE: ReadonlySet<string> = new Set(['text', 'tool_progress', 'grants_changed']);

/** toSessionRow makes a sessions-view line from an engine snapshot. */
export function toSessionRow(snap: SessionSnapshot): SessionRow {
  const row: SessionRow = { id: snap.id, runState: snap.runState, eligible: snap.eligibility?.eligible ?? false };
  if (snap.runState === 'interrupted' && snap.interruption) row.reasonLabel = snap.interruption.label;
  if (snap.pause) row.waitingFor = snap.pause.message; // blocked, or a call still runs beside it
  if (snap.eligibility?.asksAgain) {
    row.asksAgain = true; // the question a restart cut: Continue asks it again
    if (snap.interruption) row.reasonLabel = snap.interruption.label;
    if (snap.needsInput) row.waitingFor = snap.needsInput.message;
  }
  if (snap.eligibility?.repeatsSideEffect) row.repeatsSideEffect = true;
  return row;
}

/** EngineStore is the store of one engine's sessions view. */
export type EngineStore = VersionedStore<EngineState>;

/** createEngineStore returns a store of engine's sessions and counts. */
export function createEngineStore(engine: EngineLike): EngineStore {
  let version = 0;
  return createVersionedStore<EngineState>({
    read: () => {
      try {
        return { version, counts: engine.counts(), sessions: engine.sessions().map(toSessionRow) };
      } catch {
        return { version, counts: { proceeding: 0, eligible: 0, needsInput: 0 }, sessions: [] };
      }
    },
    version: () => version,
    listen: (onVersion) => {
      const on = (ev: { type: string }) => {
        if (NO_STATE_CHANGE.has(ev.type)) return;
        onVersion(++version);
      };
      engine.on('event', on as never);
      return () => void engine.off('event', on as never);
    },
  });
}
