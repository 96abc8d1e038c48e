package bash

import (
	"sync"
	"time"
)

// fileCache keeps the text of the files a session's checks read (scripts,
// package.json, makefiles), so that a check of `npm test` or `make test`
// does not open and read them again: one stat tells whether the file is
// still the one read. It belongs to one session (or one scope), never to
// the process.
//
// A cached text is used only while the file's identity and version are
// those it was read with: device, inode, size, mode, and modification and
// change times to the nanosecond. The change time (ctime) cannot be set
// by the file's owner (utimes sets it to now), so a file rewritten with its
// old size and mtime restored is still seen as changed. A file whose ctime
// is less than fresh before the read is not cached: timestamps advance by
// a kernel tick, and a second write within the tick of the one read, of
// the same size, would carry the same times. (A network filesystem whose
// server clock lags this machine's by more than fresh weakens that rule.)
// On systems where the identity is not known (see fileIdentity), nothing
// is cached.
type fileCache struct {
	mu      sync.Mutex
	entries map[string]cachedFile // by the path read
	bytes   int
	fresh   time.Duration
}

// Bounds of a fileCache: past them, entries are dropped to make room.
const (
	maxCachedFiles = 256
	maxCachedBytes = 8 << 20
	// cacheFresh is how old a file's last change must be to be cached.
	cacheFresh = time.Second
)

type cachedFile struct {
	id   fileID
	text string
}

func newFileCache() *fileCache { return &fileCache{fresh: cacheFresh} }

func newFileCacheAny() any { return newFileCache() }

// read is readSmall through the cache: the text of the regular file p as
// it is now (at most maxScriptBytes), or false when it is absent, not a
// regular file, too large or unreadable. A nil cache reads the file.
func (fc *fileCache) read(p string) (string, bool) {
	if fc == nil {
		return readSmall(p)
	}
	id, regular, err := statID(p)
	if err != nil || !regular {
		return "", false // absent, unreachable or not a regular file now: nothing to read
	}
	if id.known {
		fc.mu.Lock()
		e, hit := fc.entries[p]
		fc.mu.Unlock()
		if hit && e.id == id {
			return e.text, true
		}
	}
	start := time.Now()
	text, id, ok := readSmallID(p)
	if !ok || !id.known || id.ctime > start.Add(-fc.fresh).UnixNano() {
		return text, ok
	}
	fc.put(p, cachedFile{id: id, text: text})
	return text, true
}

func (fc *fileCache) put(p string, e cachedFile) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if fc.entries == nil {
		fc.entries = map[string]cachedFile{}
	}
	if old, ok := fc.entries[p]; ok {
		fc.bytes -= len(old.text)
		delete(fc.entries, p)
	}
	for k, old := range fc.entries { // room for e: drop any entries
		if len(fc.entries) < maxCachedFiles && fc.bytes+len(e.text) <= maxCachedBytes {
			break
		}
		fc.bytes -= len(old.text)
		delete(fc.entries, k)
	}
	fc.entries[p] = e
	fc.bytes += len(e.text)
}

// cached reports whether p's text is held (for tests).
func (fc *fileCache) cached(p string) bool {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	_, ok := fc.entries[p]
	return ok
}
