// Package store keeps an engine's sessions in one SQLite file so that they
// survive the process: sessions and their options (never secrets), the
// append-only history, interruptions with their reasons, pending pauses,
// remembered grants (project grants; a session's own, forgotten with it),
// task loops and their tasks, and an audit log of every decision about a
// pause (raised, answered how, by which client, with which remember scope,
// approved by which grant, when).
//
//	st, err := store.Open(ctx, "/home/me/.local/state/interlock/sessions.db")
//	if err != nil { ... } // ErrLocked, ErrCorrupt, ErrForeign, ErrNewerSchema, ErrReadOnly, ErrFull
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
// ours by PRAGMA application_id. Open checks the file's header (and the
// schema version in a WAL an owner that died left) before SQLite reads it,
// so a corrupt file, another application's database or a store from a
// newer Interlock is reported and left untouched. One owner at
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
// and COMMIT anew for each transaction and wrapped each statement), through
// the SQLite driver within one (*sql.Conn).Raw call per Update: database/sql's
// Exec copied and converted every argument and wrapped every result, most
// of what a transaction allocated.
//
// With synchronous=NORMAL a commit appends the transaction's pages to the
// WAL without fsync: it survives the process being killed at any point
// (the OS has the pages), while a power failure or kernel crash can lose
// the commits since the last checkpoint (the file stays consistent). A
// commit of a transition writes 2-4 pages: two pwrite calls per page and
// nothing else, 15-25 µs at p50 on the 2-core machine the benchmarks run
// on. Each page a transition touches is one more in its commit, so the
// tables are laid out for the transitions on the reported path:
//   - a session's row holds only its state and counters (a few dozen
//     bytes); its options, which for a script session hold the whole
//     script, are in session_options, written once at its creation;
//   - a pause's raise writes the pause's row and its audit entry, and its
//     answer empties and marks that row ended and appends its audit entry:
//     neither writes the session's row (the number of the session's last
//     pause goes with its other counters and the run's end, which deletes
//     the ended rows; Load takes it from the pauses' rows until then);
//   - the audit log has no index (each raise, answer and approval by a
//     grant wrote a page of one): it is only appended to, and read whole
//     or by session by a scan.
//
// The connection is in exclusive locking mode: SQLite takes the file's
// lock once and keeps the WAL's index in its own memory (no -shm file), so
// a commit makes no lock calls (it made ~6 fcntl). The cost: no other
// connection can read the file while the store is open (sqlite3 on a live
// store says "database is locked"); what a kill would leave is what the
// files hold, which the tests read from a copy taken at each event.
//
// Checkpoints. SQLite checkpoints (syncs the WAL, copies it into the
// database file, syncs that) inside the commit that takes the WAL past
// wal_autocheckpoint pages: that commit took 0.6-5 ms, and it fell on
// whatever transition came then; in the pause round trip the WAL restarts
// in step with the round trips, so it fell on the pause's raise every
// time and made the whole p99 of the notification. The store now
// checkpoints after the first transaction marked with Tx.MayCheckpoint
// once 256 commits were made since its last one: the engine marks the tool
// results it appends just before the next model request, where nobody
// waits on a reply and a millisecond is small beside the model's latency.
// SQLite's own checkpoint stays, at 2,000 pages, for stores whose
// transactions are never marked (runs without tools). Tried before and
// not kept: a goroutine syncing the WAL every 32 commits so that the
// checkpoint inside a commit had less to write (its fdatasync made the
// commits made meanwhile slower: notify p99 365 vs 218 µs without it, 8
// runs each), and checkpoints on a second connection (a PASSIVE
// checkpoint never catches up with a writer that commits without pause, so
// the WAL never restarted and grew by 100 MB in 2,000 pause round trips).
// Measured cost: see BENCHMARKS.md (store_* metrics and the store-on pause
// round trips).
package store
