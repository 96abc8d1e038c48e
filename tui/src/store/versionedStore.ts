// A React external store (useSyncExternalStore) over an engine object whose
// every change bumps a monotonic version. Pushed events are the normal path;
// a slow poll of the version is the fallback when events are unavailable.

/** What useSyncExternalStore needs. Both methods are stable (safe to pass as-is). */
export interface ExternalStore<T> {
  subscribe(onChange: () => void): () => void;
  getSnapshot(): T;
}

/** An external store over a versioned engine object. */
export interface VersionedStore<T extends { version: number }> extends ExternalStore<T> {
  /** 'push' while fed by events, 'poll' while polling, 'idle' without subscribers. */
  readonly mode: 'push' | 'poll' | 'idle';
  /** Reads the engine now; notifies subscribers only if the version moved. */
  refresh(): void;
  /** Test isolation: drops subscribers, stops listening and polling, forgets the snapshot. */
  reset(): void;
}

/** How a store reads one engine object. */
export interface VersionedSource<T extends { version: number }> {
  /** A full immutable snapshot. Must not throw (map failures to a terminal snapshot). */
  read(previous: T | undefined): T;
  /** The cheap current version (a sync getter); without it a poll reads a full snapshot. */
  version?(): number;
  /**
   * Subscribes to pushed changes; returns the unsubscribe. Throws (or returns
   * null) when events are unavailable, and the store polls instead.
   */
  listen?(onVersion: (version: number) => void): (() => void) | null;
  /** A snapshot after which nothing changes any more (closed): stop polling. */
  isFinal?(snapshot: T): boolean;
}

export interface VersionedStoreOptions {
  /** Poll interval of the fallback, ms. Default 250. */
  pollMs?: number;
  /** Force polling even if events are available. */
  poll?: boolean;
  /** Called when the first subscriber arrives (true) and the last one leaves (false). */
  onActive?(active: boolean): void;
}

/** createVersionedStore returns a store that makes a new snapshot only when the version changes. */
export function createVersionedStore<T extends { version: number }>(
  source: VersionedSource<T>,
  options: VersionedStoreOptions = {},
): VersionedStore<T> {
  const pollMs = options.pollMs ?? 250;
  const listeners = new Set<() => void>();
  let current: T | undefined;
  let stopFeed: (() => void) | undefined;
  let mode: 'push' | 'poll' | 'idle' = 'idle';

  const snapshot = (): T => (current ??= source.read(undefined));

  const replace = () => {
    const prev = snapshot();
    const next = source.read(prev);
    if (next.version === prev.version) return; // nothing new: keep the identical object
    current = next;
    if (source.isFinal?.(next)) stopPolling();
    for (const listener of [...listeners]) listener();
  };

  const onPushed = (version: number) => {
    // Events can lag the engine: a snapshot read for an earlier event may
    // already be at or past this version.
    if (version > snapshot().version) replace();
  };

  const poll = () => {
    let version: number | undefined;
    try {
      version = source.version?.();
    } catch {
      version = undefined; // the getter failed (closed?): let read() say what happened
    }
    if (version === undefined || version !== snapshot().version) replace();
  };

  function stopPolling() {
    if (mode !== 'poll') return;
    stopFeed?.();
    stopFeed = undefined;
  }

  const start = () => {
    if (!options.poll && source.listen) {
      try {
        const off = source.listen(onPushed);
        if (off) {
          stopFeed = off;
          mode = 'push';
          return;
        }
      } catch {
        // events unavailable: poll below
      }
    }
    mode = 'poll';
    if (source.isFinal?.(snapshot())) return;
    const timer = setInterval(poll, pollMs);
    timer.unref?.();
    stopFeed = () => clearInterval(timer);
  };

  const stop = () => {
    stopFeed?.();
    stopFeed = undefined;
    mode = 'idle';
  };

  const store: VersionedStore<T> = {
    get mode() {
      return mode;
    },
    subscribe(onChange) {
      listeners.add(onChange);
      if (listeners.size === 1) {
        options.onActive?.(true);
        start();
        poll(); // catch up with changes made while nobody listened
      }
      return () => {
        if (listeners.delete(onChange) && listeners.size === 0) {
          stop();
          options.onActive?.(false);
        }
      };
    },
    getSnapshot: snapshot,
    refresh: poll,
    reset() {
      const wasActive = listeners.size > 0;
      listeners.clear();
      stop();
      current = undefined;
      if (wasActive) options.onActive?.(false);
    },
  };
  return store;
}

/** A registry of one shared store per engine object, with a reset for tests. */
export interface StoreRegistry<K extends object, S extends VersionedStore<{ version: number }>> {
  /** The store of key, created on first use (options count only then). */
  get(key: K, options?: VersionedStoreOptions): S;
  /** Resets every store in use and forgets them all (test isolation). */
  reset(): void;
}

/** createStoreRegistry keeps one store per key; keys are held weakly. */
export function createStoreRegistry<K extends object, S extends VersionedStore<{ version: number }>>(
  create: (key: K, options: VersionedStoreOptions) => S,
): StoreRegistry<K, S> {
  let stores = new WeakMap<K, S>();
  // Stores with subscribers, so a reset can stop their listening or polling.
  const active = new Set<S>();
  return {
    get(key, options) {
      let store = stores.get(key);
      if (!store) {
        const created: S = create(key, {
          ...options,
          onActive: (on) => (on ? active.add(created) : active.delete(created)),
        });
        stores.set(key, created);
        store = created;
      }
      return store;
    },
    reset() {
      for (const store of [...active]) store.reset();
      active.clear();
      stores = new WeakMap();
    },
  };
}
