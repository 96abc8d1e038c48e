// Package store keeps an engine's sessions in one SQLite file so that they
// survive the process: sessions and their options (never secrets), the
// append-only history, interruptions with their reasons, pending pauses,
// remembered project grants, task loops and their tasks, and an audit log
// of every decision about a pause (raised, answered how, by which client,
// with which remember scope, when).
//
//	st, err := store.Open(ctx, "/home/me/.local/state/interlock/sessions.db")
//	if err != nil { ... } // ErrLocked, ErrCorrupt, ErrForeign, ErrNewerSchema, ErrReadOnly
//	defer st.Close()
//	err = st.Update(ctx, func(tx *store.Tx) { tx.RunStarted("s1", 7, "prompt") })
//
// The engine uses it through engine.WithStore; this package knows nothing of
// the engine's types and stores its structured values as their JSON.
//
// # The file
//
// SQLite through modernc.org/sqlite, a pure-Go driver: the shared library
// exports no foreign C symbols. One file in WAL mode, its schema versioned
// by PRAGMA user_version with ordered migrations (schema.go), marked as
// ours by PRAGMA application_id. Open checks the file's header before
// SQLite reads it, so a corrupt file, another application's database or a
// store from a newer Interlock is reported and left untouched. One owner at
// a time: Open holds an exclusive flock on "<path>.lock" until Close (the
// kernel drops it when the owner dies), and a second opener, in this
// process or another, gets ErrLocked.
//
// # The write path
//
// Each transition the engine's crash recovery depends on (a run started or
// ended and why, a pause raised or answered, history appended with its
// tokens, an interruption, a grant) is one Update: one transaction of a few
// prepared statements on the store's one connection, made synchronously by
// the goroutine making the transition, before the transition is reported to
// any observer. No writer goroutine, no queue: what an observer has seen is
// on disk. With synchronous=NORMAL a commit appends to the WAL without
// fsync: it survives the process being killed at any point (the OS has the
// pages), while a power failure or kernel crash can lose the last commits
// since the last checkpoint (the file stays consistent). Measured cost: see
// BENCHMARKS.md (store_* metrics and the store-on pause round trips).
package store
