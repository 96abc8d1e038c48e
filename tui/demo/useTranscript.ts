// The demo's conversation view model: built from the session's events
// ('text', 'tool_progress'...) plus its history for tool arguments, results
// and markers. The library renders state; what a transcript looks like is
// the app's business.

import { useCallback, useEffect, useState } from 'react';
import type { EngineEvent, HistoryMessage, Session } from '../../node/index.js';

export type Entry =
  | { id: number; kind: 'note' | 'user' | 'marker' | 'error'; text: string; done: true }
  | { id: number; kind: 'assistant'; text: string; step: number; done: boolean }
  | {
      id: number;
      kind: 'tool';
      callId: string;
      name: string;
      title: string;
      output: string;
      /** How the user answered the tool's pause ('approved', 'approved:session', 'granted:project'...). */
      answer?: string;
      result?: { text: string; isError: boolean };
      done: boolean;
    };

type NewEntry = Entry extends infer E ? (E extends Entry ? Omit<E, 'id'> : never) : never;

const MAX_OUTPUT = 4000;

function describeCall(name: string, args: unknown): string {
  const a = (args ?? {}) as Record<string, unknown>;
  if (name === 'bash' && typeof a.command === 'string') return a.command;
  if (name === 'web') return [a.type, a.url ?? a.query].filter(Boolean).join(' ');
  if (name === 'sleep') return `${a.ms} ms`;
  return JSON.stringify(args ?? {});
}

function findCall(history: HistoryMessage[], callId: string) {
  for (let i = history.length - 1; i >= 0; i--) {
    const call = history[i].toolCalls?.find((c) => c.id === callId);
    if (call) return call;
  }
  return undefined;
}

/** useTranscript follows session's events and returns the entries, oldest first, and a way to add one. */
export function useTranscript(session: Session, intro?: string) {
  const [entries, setEntries] = useState<Entry[]>(() =>
    intro ? [{ id: 0, kind: 'note', text: intro, done: true }] : [],
  );

  const add = useCallback((entry: NewEntry) => {
    setEntries((list) => [...closeOpen(list), { ...entry, id: list.length } as Entry]);
  }, []);

  useEffect(() => {
    let markersShown = 0;
    const countMarkers = (history: HistoryMessage[]) => history.filter((m) => m.role === 'marker');

    const onEvent = (ev: EngineEvent) => {
      switch (ev.type) {
        case 'text':
          return setEntries((list) => {
            // One entry per model turn: a turn is a step.
            const last = list.at(-1);
            if (last?.kind === 'assistant' && !last.done && last.step === ev.step) {
              return [...list.slice(0, -1), { ...last, text: last.text + (ev.text ?? '') }];
            }
            const entry: Entry = { id: list.length, kind: 'assistant', text: ev.text ?? '', step: ev.step, done: false };
            return [...closeOpen(list), entry];
          });
        case 'tool_started': {
          const call = findCall(session.history(), ev.callId ?? '');
          const name = ev.tool ?? call?.name ?? 'tool';
          return add({
            kind: 'tool', callId: ev.callId ?? '', name, title: describeCall(name, call?.args), output: '', done: false,
          });
        }
        case 'tool_progress':
          return setEntries((list) =>
            list.map((e) =>
              e.kind === 'tool' && e.callId === ev.callId
                ? { ...e, output: (e.output + (ev.text ?? '')).slice(-MAX_OUTPUT) }
                : e,
            ),
          );
        case 'tool_finished': {
          const message = session.history().findLast((m) => m.role === 'tool' && m.toolCallId === ev.callId);
          const result = { text: message?.text ?? ev.text ?? '', isError: message?.isError ?? ev.text === 'error' };
          return setEntries((list) =>
            list.map((e) => (e.kind === 'tool' && e.callId === ev.callId ? { ...e, result, done: true } : e)),
          );
        }
        case 'pause_answered':
        case 'granted': {
          if (!ev.answer || ev.answer === 'interrupted') return; // the marker says it
          // An approval remembered now (pause_answered) or before (granted) says for how long.
          const remembered = ev.remember === 'session' || ev.remember === 'project';
          const answer = ev.type === 'granted' ? `granted:${ev.remember}` : remembered ? `${ev.answer}:${ev.remember}` : ev.answer;
          return setEntries((list) => {
            const i = list.findLastIndex((e) => e.kind === 'tool' && !e.done);
            if (i < 0) return list;
            return list.map((e, j) => (j === i ? { ...e, answer } : e));
          });
        }
        case 'run_started':
          return setEntries(closeOpen);
        case 'interrupted':
        case 'run_finished':
        case 'run_failed': {
          if (ev.type === 'run_failed') add({ kind: 'error', text: `Run failed: ${ev.text ?? 'unknown error'}`, done: true });
          const markers = countMarkers(session.history());
          const fresh = markers.slice(markersShown);
          markersShown = markers.length;
          setEntries((list) => {
            let next = closeOpen(list);
            for (const m of fresh) next = [...next, { id: next.length, kind: 'marker', text: m.text ?? '', done: true }];
            return next;
          });
          return;
        }
      }
    };
    try {
      markersShown = countMarkers(session.history()).length;
    } catch {
      // a closed session has no history
    }
    session.on('event', onEvent);
    return () => {
      session.off('event', onEvent);
    };
  }, [session, add]);

  return { entries, add };
}

/** closeOpen marks every entry done (a new one starts; a run ended). */
function closeOpen(list: Entry[]): Entry[] {
  return list.some((e) => !e.done) ? list.map((e) => (e.done ? e : { ...e, done: true })) : list;
}
