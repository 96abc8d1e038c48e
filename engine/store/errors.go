package store

import "errors"

// Errors Open returns, wrapped with the path and what to do. In every case
// the file is left untouched. ErrFull, ErrLocked and ErrReadOnly can also
// come from Update.
var (
	// ErrLocked: another process (or another Store in this one) has the
	// store open. Only one owner at a time.
	ErrLocked = errors.New("store is in use by another process")
	// ErrCorrupt: the file is not a readable SQLite database.
	ErrCorrupt = errors.New("store file is corrupt")
	// ErrForeign: the file is an SQLite database of another application.
	ErrForeign = errors.New("file is not an Interlock store")
	// ErrNewerSchema: the store was written by a newer Interlock.
	ErrNewerSchema = errors.New("store schema is newer than this Interlock")
	// ErrReadOnly: the store's directory or file cannot be written.
	ErrReadOnly = errors.New("store location is not writable")
	// ErrFull: the store's disk is full. A write that failed is not
	// made (Update is all or nothing); what was written before is kept.
	ErrFull = errors.New("store's disk is full")
	// ErrNotFound: ReadAuditLog was given a path where no store is.
	ErrNotFound = errors.New("no store file at this path")
	// ErrClosed: the store has been closed.
	ErrClosed = errors.New("store is closed")
)
