package store

// Migrations exposes the migrations to the tests.
var Migrations = migrations

// WALSyncs returns how many background syncs of the WAL were made (0
// for a store in memory, which has none).
func (st *Store) WALSyncs() uint64 {
	if st.walSync == nil {
		return 0
	}
	return st.walSync.syncs.Load()
}
