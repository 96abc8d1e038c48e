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
// tokens, an interruption, a grant) is one Update: one transaction on the
// store's one connection, made synchronously by the goroutine making the
// transition, before the transition is reported to any observer. No writer
// goroutine, no queue: what an observer has seen is on disk. Every
// statement, BEGIN IMMEDIATE and COMMIT included, is prepared once at Open
// and run directly on that connection (database/sql's BeginTx parsed BEGIN
// and COMMIT anew for each transaction and wrapped each statement).
//
// With synchronous=NORMAL a commit appends the transaction's pages to the
// WAL without fsync: it survives the process being killed at any point
// (the OS has the pages), while a power failure or kernel crash can lose
// the commits since the last checkpoint (the file stays consistent). A
// commit of a transition writes 2-5 pages: about 6 pwrite and 6 fcntl
// calls (SQLite's WAL locks), 15-25 µs at p50 on the 2-core machine the
// benchmarks run on.
//
// One commit in about 300 crosses wal_autocheckpoint (1,000 pages) and
// SQLite checkpoints inside it: it syncs the WAL, copies it into the
// database file and syncs that. Measured with a timer around each commit,
// that commit took 2.5-4 ms on an idle machine, nearly all of it the first
// fsync writing the WAL's ~4 MB of dirty pages; it was the whole tail of
// the pause round trip above ~0.3 ms. The store's own goroutine
// (walsync.go) now syncs the WAL every 32 commits, off the transition
// path and without any SQLite lock, so that checkpoint finds little left to
// write: 0.6-1.5 ms under a load average of 5 (3-5 ms before, same load).
// Moving the checkpoint itself off the path was tried and not kept: with
// autocheckpoint off and PASSIVE checkpoints on a second connection the
// WAL never restarts while writes come without a pause (the checkpointer
// never catches up with the writer), so it grew by 100 MB in 2,000 pause
// round trips and every commit paid for appending to a growing file
// (p50 +8 µs); making the writer wait for a short last pass put an fsync
// back on the path. Measured cost: see BENCHMARKS.md (store_* metrics and
// the store-on pause round trips).
package store
