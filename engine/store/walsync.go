package store

import (
	"os"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// syncEvery is how many commits the writer makes between two background
// syncs of the WAL (a transition's commit appends 2-5 pages to it).
const syncEvery = 32

// walSyncer writes the WAL's new pages to disk off the transition path.
//
// The writer's commits never fsync (synchronous=NORMAL); the checkpoint
// that SQLite runs inside the commit crossing wal_autocheckpoint (1,000
// pages) does: it syncs the WAL before copying it into the database file
// and the file after. Measured, that one commit in ~300 took 2.5-4 ms on
// an idle machine, nearly all of it writing the WAL's 4 MB of dirty pages
// to disk in its first fsync. A goroutine owned by the store syncs the
// WAL every syncEvery commits (fdatasync on a descriptor of its own: it
// takes no SQLite lock, so it never blocks a commit), so the checkpoint
// finds almost nothing left to write.
type walSyncer struct {
	path    string
	commits atomic.Uint64
	kick    chan struct{}
	stop    chan struct{}
	done    sync.WaitGroup
	wal     *os.File // opened when it first exists
	// syncs counts the syncs made (for tests).
	syncs atomic.Uint64
}

func newWALSyncer(dbPath string) *walSyncer {
	w := &walSyncer{path: dbPath + "-wal", kick: make(chan struct{}, 1), stop: make(chan struct{})}
	w.done.Add(1)
	go w.loop()
	return w
}

// committed is called by the writer after each commit; every syncEvery
// commits it wakes the syncer, never blocking.
func (w *walSyncer) committed() {
	if w.commits.Add(1)%syncEvery != 0 {
		return
	}
	select {
	case w.kick <- struct{}{}:
	default: // one is pending already
	}
}

func (w *walSyncer) loop() {
	defer w.done.Done()
	for {
		select {
		case <-w.stop:
			return
		case <-w.kick:
		}
		w.sync()
	}
}

// sync writes the WAL's dirty pages to disk. A failure (the WAL was
// removed, a disk error) is left to SQLite's own checkpoint, which syncs
// and reports it: this is only ahead of it.
func (w *walSyncer) sync() {
	if w.wal == nil {
		f, err := os.OpenFile(w.path, os.O_RDONLY, 0)
		if err != nil {
			return
		}
		w.wal = f
	}
	if unix.Fdatasync(int(w.wal.Fd())) == nil {
		w.syncs.Add(1)
	}
}

// close stops the goroutine and waits for it.
func (w *walSyncer) close() error {
	close(w.stop)
	w.done.Wait()
	if w.wal != nil {
		return w.wal.Close()
	}
	return nil
}
