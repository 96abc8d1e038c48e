package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
	sqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Memory is the path of a store that lives in memory and ends with it.
const Memory = ":memory:"

// Store is one open store file, owned by this process until Close.
type Store struct {
	path string
	db   *sql.DB
	c    *sql.Conn // db's one connection, held from Open to Close
	lock *os.File  // flock held for the Store's lifetime; nil in memory
	file fileID    // the file's identity while this Store holds it (see held)

	mu sync.Mutex // guards closed
	// conn is held while the store's one connection is in use: by each
	// Update from BEGIN to COMMIT, and by each read.
	conn   sync.Mutex
	closed bool
	stmts  map[string]*stmt
	// commits counts the commits since the last checkpoint made after a
	// transaction marked with MayCheckpoint (guarded by conn).
	commits int
}

// The store checkpoints after the first transaction marked MayCheckpoint
// once checkpointEvery commits were made (a commit writes ~3 pages: ~800
// pages); SQLite's own checkpoint, inside whatever commit crosses
// autocheckpointMax pages, is left for stores whose transactions are never
// marked (see the package doc).
const (
	checkpointEvery   = 256
	autocheckpointMax = 2000 // pages
)

// Open opens the store at path (Memory for one in memory), creating it and
// its schema when it does not exist and migrating an older schema. It takes
// an exclusive lock held until Close: a second opener gets ErrLocked. A file
// that is corrupt, foreign or of a newer schema, or a location that cannot
// be written, is reported (ErrCorrupt, ErrForeign, ErrNewerSchema,
// ErrReadOnly) and left untouched.
func Open(ctx context.Context, path string) (*Store, error) {
	if path == "" {
		return nil, fmt.Errorf("store: empty path: give a file path or %q", Memory)
	}
	st := &Store{path: path}
	if path != Memory {
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, fmt.Errorf("store %s: %w", path, err)
		}
		st.path = realPath(abs)
		if err := held.check(st.path); err != nil {
			return nil, err
		}
		if err := checkFile(st.path); err != nil {
			return nil, err
		}
		if st.lock, err = takeLock(st.path); err != nil {
			return nil, err
		}
	}
	if err := st.open(ctx); err != nil {
		st.release()
		return nil, err
	}
	if st.path != Memory {
		st.file = held.add(st.path)
	}
	return st, nil
}

// fileID is a file's identity: its device and inode.
type fileID struct{ dev, ino uint64 }

// heldFiles are the store files this process has open, whatever the name
// they were opened by. They are the process's, not a Store's: POSIX locks,
// SQLite's among them, belong to a process and a file, and closing any
// descriptor of the file drops them all. So a second opener in the same
// process must not open the file even to read its header: it is refused
// from the file's identity alone.
type heldFiles struct {
	mu    sync.Mutex
	files map[fileID]string // the path each was opened by
}

var held = heldFiles{files: map[fileID]string{}}

// check refuses path when this process holds its file (by any name).
func (h *heldFiles) check(path string) error {
	var fi unix.Stat_t
	if unix.Stat(path, &fi) != nil {
		return nil // not there yet: the lock file decides
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if by, ok := h.files[fileID{fi.Dev, fi.Ino}]; ok {
		return fmt.Errorf("store %s: %w (process %d holds it: this process, which opened it as %s): close the other Interlock engine using it, or give this one another store path", path, ErrLocked, os.Getpid(), by)
	}
	return nil
}

// add records that this process holds the file at path and returns its id.
func (h *heldFiles) add(path string) fileID {
	var fi unix.Stat_t
	if unix.Stat(path, &fi) != nil {
		return fileID{}
	}
	id := fileID{fi.Dev, fi.Ino}
	h.mu.Lock()
	h.files[id] = path
	h.mu.Unlock()
	return id
}

// remove forgets id, once its Store has closed the file.
func (h *heldFiles) remove(id fileID) {
	if id == (fileID{}) {
		return
	}
	h.mu.Lock()
	delete(h.files, id)
	h.mu.Unlock()
}

// realPath is abs with its symbolic links resolved (the file's, else its
// directory's): a store reached through a link is locked, and named, as
// the file the link leads to.
func realPath(abs string) string {
	if p, err := filepath.EvalSymlinks(abs); err == nil {
		return p
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(dir, filepath.Base(abs))
	}
	return abs
}

// Path returns the store's absolute path, links resolved (or Memory).
func (st *Store) Path() string { return st.path }

// checkFile rejects, from its header alone (before SQLite touches it), a
// file that is not ours to open; and a location we could not write.
func checkFile(path string) error {
	dir := filepath.Dir(path)
	if err := unix.Access(dir, unix.W_OK); errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("store %s: %w: directory %s does not exist: create it or choose a store path elsewhere", path, ErrReadOnly, dir)
	} else if err != nil {
		return fmt.Errorf("store %s: %w: directory %s: %v (SQLite writes its journal beside the file): make it writable or choose a store path elsewhere", path, ErrReadOnly, dir, err)
	}
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() { // before opening: a FIFO's open would block
		return fmt.Errorf("store %s: %w: it is a %s, not a file: give the path of a file (such as %s) or choose another store path", path, ErrForeign, kindOf(fi.Mode()), filepath.Join(path, "sessions.db"))
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil // a new store
	}
	if err != nil {
		return fmt.Errorf("store %s: cannot read it: %w", path, err)
	}
	defer f.Close()
	if err := unix.Access(path, unix.W_OK); err != nil {
		return fmt.Errorf("store %s: %w: %v: make the file writable or choose another store path", path, ErrReadOnly, err)
	}
	var h [100]byte
	n, err := io.ReadFull(f, h[:])
	switch {
	case n == 0:
		return nil // an empty file is an empty database
	case err != nil || string(h[:16]) != "SQLite format 3\x00":
		return fmt.Errorf("store %s: %w: it does not start with an SQLite header (%d bytes read): move it away (it is left as it is) or choose another store path", path, ErrCorrupt, n)
	}
	appID := binary.BigEndian.Uint32(h[68:72])
	version := binary.BigEndian.Uint32(h[60:64])
	if appID != applicationID {
		return fmt.Errorf("store %s: %w: an SQLite database of another application (application_id %#x): choose another store path; the file is left as it is", path, ErrForeign, appID)
	}
	if v, ok := walUserVersion(path + "-wal"); ok && v > version {
		version = v // an owner that died left it in the WAL (see walUserVersion)
	}
	if int(version) > SchemaVersion {
		return fmt.Errorf("store %s: %w: schema version %d, this Interlock knows up to %d: open it with a newer Interlock or choose another store path; the file is left as it is", path, ErrNewerSchema, version, SchemaVersion)
	}
	return nil
}

// walUserVersion reads the schema version (PRAGMA user_version) that the
// WAL at walPath, left by an owner that died, holds for the file: the last
// committed image of page 1 in it, read as SQLite recovers a WAL (frames
// count while their salts and running checksum hold). It must be read
// before SQLite opens the file: the last connection to close checkpoints
// the WAL into the file and deletes it, so even a refused open would
// change the file. ok is false when the WAL has no committed page 1.
func walUserVersion(walPath string) (version uint32, ok bool) {
	wal, err := os.ReadFile(walPath)
	if err != nil || len(wal) < 32 {
		return 0, false
	}
	magic := binary.BigEndian.Uint32(wal[0:4])
	if magic&^1 != 0x377f0682 {
		return 0, false
	}
	order := binary.ByteOrder(binary.LittleEndian)
	if magic&1 == 1 {
		order = binary.BigEndian
	}
	// The running checksum of SQLite's WAL: over 32-bit words in order,
	// seeded by the previous one.
	sum := func(s0, s1 uint32, b []byte) (uint32, uint32) {
		for i := 0; i+8 <= len(b); i += 8 {
			s0 += order.Uint32(b[i:]) + s1
			s1 += order.Uint32(b[i+4:]) + s0
		}
		return s0, s1
	}
	pageSize := int(binary.BigEndian.Uint32(wal[8:12]))
	if pageSize == 1 {
		pageSize = 65536
	}
	if pageSize < 512 || pageSize&(pageSize-1) != 0 {
		return 0, false
	}
	s0, s1 := sum(0, 0, wal[:24])
	if s0 != binary.BigEndian.Uint32(wal[24:28]) || s1 != binary.BigEndian.Uint32(wal[28:32]) {
		return 0, false
	}
	var page1 []byte // the last image of page 1, committed or not
	for off := 32; off+24+pageSize <= len(wal); off += 24 + pageSize {
		h, data := wal[off:off+24], wal[off+24:off+24+pageSize]
		if !bytes.Equal(h[8:16], wal[16:24]) {
			break // a frame of an earlier generation of the WAL
		}
		s0, s1 = sum(s0, s1, h[:8])
		s0, s1 = sum(s0, s1, data)
		if s0 != binary.BigEndian.Uint32(h[16:20]) || s1 != binary.BigEndian.Uint32(h[20:24]) {
			break // torn: not committed
		}
		if binary.BigEndian.Uint32(h[0:4]) == 1 {
			page1 = data
		}
		if binary.BigEndian.Uint32(h[4:8]) != 0 && page1 != nil { // a commit
			version, ok = binary.BigEndian.Uint32(page1[60:64]), true
		}
	}
	return version, ok
}

// kindOf names what a path that is not a regular file is.
func kindOf(m os.FileMode) string {
	if m.IsDir() {
		return "directory"
	}
	return "special file (" + m.Type().String() + ")"
}

// takeLock takes the store's exclusive lock: a lock file beside it, locked
// with flock. The kernel drops the lock when its owner dies, so a crashed
// owner never blocks the next one.
func takeLock(path string) (*os.File, error) {
	lockPath := path + ".lock"
	f, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		if errors.Is(err, os.ErrPermission) || errors.Is(err, unix.EROFS) {
			return nil, fmt.Errorf("store %s: %w: cannot create the lock file %s: %v: make the directory writable or choose another store path", path, ErrReadOnly, lockPath, err)
		}
		return nil, fmt.Errorf("store %s: lock file %s: %w", path, lockPath, err)
	}
	// A lock whose owner is dead may still be held for a moment by a child
	// the owner was starting (between fork and exec it shares the lock), so
	// a host restarted at once waits for that child; a live owner is an
	// error at once.
	deadline := time.Now().Add(orphanLockWait)
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("store %s: lock %s: %w", path, lockPath, err)
		}
		var fi unix.Stat_t
		owner := 0
		if unix.Fstat(int(f.Fd()), &fi) == nil {
			owner = lockOwner(fi, "FLOCK")
		}
		if owner > 0 || time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("store %s: %w (%s holds %s): close the other Interlock engine using it, or give this one another store path", path, ErrLocked, processName(owner), lockPath)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// orphanLockWait bounds how long takeLock waits for a lock whose owner is
// dead to be let go by the owner's children.
const orphanLockWait = 2 * time.Second

// processName names the process pid ("another process" for 0).
func processName(pid int) string {
	if pid > 0 {
		return fmt.Sprintf("process %d", pid)
	}
	return "another process"
}

// lockOwner returns the live process that took a lock of kind ("FLOCK",
// or "POSIX": SQLite's) on the file st describes, from /proc/locks: 0 when
// that process is dead (the kernel shows pid 0 then) or the lock is not
// listed.
func lockOwner(st unix.Stat_t, kind string) int {
	locks, err := os.ReadFile("/proc/locks")
	if err != nil {
		return 0
	}
	id := fmt.Sprintf("%02x:%02x:%d", unix.Major(st.Dev), unix.Minor(st.Dev), st.Ino)
	for _, line := range strings.Split(string(locks), "\n") {
		// "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"
		fields := strings.Fields(line)
		if len(fields) >= 6 && fields[1] == kind && fields[5] == id {
			pid, _ := strconv.Atoi(fields[4])
			if pid > 0 && unix.Kill(pid, 0) == nil {
				return pid
			}
			return 0
		}
	}
	return 0
}

// open opens the database on one connection, sets it up and migrates it.
func (st *Store) open(ctx context.Context) error {
	dsn := "file:" + st.path + "?_txlock=immediate"
	if st.path == Memory {
		dsn = ":memory:"
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return fmt.Errorf("store %s: %w", st.path, err)
	}
	// One connection: writes are serialized in the order they are made,
	// and a memory store is one database.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	st.db = db
	// Exclusive locking, set before the first read: SQLite takes the
	// file's lock once and keeps it, and keeps the WAL's index in the
	// connection's memory instead of a shared -shm file, so a commit makes
	// no lock calls (it made about 6 fcntl). No other connection can read
	// the file while it is open; the flock above refuses one anyway.
	if _, err := db.ExecContext(ctx, "PRAGMA locking_mode = EXCLUSIVE"); err != nil {
		return st.fail("set up (PRAGMA locking_mode = EXCLUSIVE)", err)
	}
	version, err := st.userVersion(ctx)
	if errors.Is(err, ErrLocked) {
		// SQLite's own lock: another owner reached the file by another
		// name (a hard link, another mount), so the lock file differed.
		var fi unix.Stat_t // by its path: closing a descriptor of the file would drop this process's locks of it
		owner := 0
		if unix.Stat(st.path, &fi) == nil {
			owner = lockOwner(fi, "POSIX")
		}
		return fmt.Errorf("store %s: %w (%s has the file open, by another name: a hard link or another mount of it): close the other Interlock engine using it, or give this one another store path", st.path, ErrLocked, processName(owner))
	}
	if err != nil {
		return err
	}
	if version > SchemaVersion { // only in the WAL, not yet in the header
		return fmt.Errorf("store %s: %w: schema version %d, this Interlock knows up to %d: open it with a newer Interlock or choose another store path", st.path, ErrNewerSchema, version, SchemaVersion)
	}
	for _, p := range []string{"PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL", "PRAGMA foreign_keys = OFF", "PRAGMA busy_timeout = 0",
		fmt.Sprintf("PRAGMA wal_autocheckpoint = %d", autocheckpointMax)} {
		if _, err := db.ExecContext(ctx, p); err != nil {
			return st.fail("set up ("+p+")", err)
		}
	}
	if version < SchemaVersion {
		if err := st.migrate(ctx, version); err != nil {
			return err
		}
	}
	if st.c, err = db.Conn(ctx); err != nil {
		return st.fail("hold the connection", err)
	}
	return st.prepare(ctx)
}

func (st *Store) userVersion(ctx context.Context) (int, error) {
	var v int
	if err := st.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return 0, st.fail("read the schema version", err)
	}
	return v, nil
}

// migrate runs the migrations after version, each in its own transaction
// with its new user_version, then checkpoints so that the file's header
// (which Open checks before SQLite reads the file) carries them.
func (st *Store) migrate(ctx context.Context, version int) error {
	for v := version; v < SchemaVersion; v++ {
		tx, err := st.db.BeginTx(ctx, nil)
		if err != nil {
			return st.fail("begin migration", err)
		}
		stmts := migrations[v]
		if v == 0 {
			stmts += fmt.Sprintf(";PRAGMA application_id = %d", applicationID)
		}
		stmts += fmt.Sprintf(";PRAGMA user_version = %d", v+1)
		if _, err := tx.ExecContext(ctx, stmts); err != nil {
			tx.Rollback()
			return st.fail(fmt.Sprintf("migrate the schema to version %d", v+1), err)
		}
		if err := tx.Commit(); err != nil {
			return st.fail(fmt.Sprintf("commit the migration to version %d", v+1), err)
		}
	}
	if _, err := st.db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		return st.fail("checkpoint after migrating", err)
	}
	return nil
}

// fail wraps a database error with the store's path and what to do.
func (st *Store) fail(what string, err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
			return fmt.Errorf("store %s: %w: %s: %v: move it away (it is left as it is) or choose another store path", st.path, ErrCorrupt, what, err)
		case sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM:
			return fmt.Errorf("store %s: %w: %s: %v: make it writable or choose another store path", st.path, ErrReadOnly, what, err)
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return fmt.Errorf("store %s: %w: %s: %v", st.path, ErrLocked, what, err)
		case sqlite3.SQLITE_FULL:
			return fmt.Errorf("store %s: %w: %s: %v: free space on its disk (what was stored before is kept) or choose a store path on another disk", st.path, ErrFull, what, err)
		}
	}
	return fmt.Errorf("store %s: %s: %w", st.path, what, err)
}

// Close closes the store and releases its lock. It is idempotent.
func (st *Store) Close() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return nil
	}
	st.closed = true
	st.conn.Lock() // after an Update in progress
	defer st.conn.Unlock()
	return st.release()
}

func (st *Store) release() error {
	var errs []error
	if st.c != nil {
		errs = append(errs, st.c.Raw(func(any) error {
			for _, s := range st.stmts {
				errs = append(errs, s.s.Close())
			}
			return nil
		}), st.c.Close())
	}
	if st.db != nil {
		errs = append(errs, st.db.Close())
	}
	held.remove(st.file)
	if st.lock != nil {
		// Unlock first: a child forked elsewhere in the process shares the
		// open file until it execs, and closing alone would leave the lock
		// held with it for that moment (a reopen then saw "in use").
		errs = append(errs, unix.Flock(int(st.lock.Fd()), unix.LOCK_UN), st.lock.Close())
	}
	return errors.Join(errs...)
}

// IntegrityCheck runs PRAGMA integrity_check and returns its report ("ok"
// when the file is sound).
func (st *Store) IntegrityCheck(ctx context.Context) (string, error) {
	st.conn.Lock()
	defer st.conn.Unlock()
	rows, err := st.c.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		return "", st.fail("integrity check", err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			return "", st.fail("integrity check", err)
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n"), rows.Err()
}

func ms(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func fromMS(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.UnixMilli(v)
}

func nullJSON(b json.RawMessage) any {
	if len(b) == 0 {
		return nil
	}
	return string(b)
}
