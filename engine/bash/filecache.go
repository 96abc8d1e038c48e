package bash

import (
	"io/fs"
	"os"
	"sync"
	"time"

	"mvdan.cc/sh/v3/syntax"
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
//
// It also keeps what was made of those texts (derive): a makefile's rules,
// package.json's scripts, a script's syntax tree. Those are keyed by the
// text itself, so they need no check; they are shared and never changed.
type fileCache struct {
	mu      sync.Mutex
	entries map[string]cachedFile // by the path read
	bytes   int
	fresh   time.Duration
	derived map[derivedKey]any
	dbytes  int // the texts keying derived
	dirs    map[string]cachedDir
	// parsers are the session's checks' shell parsers, free for the next
	// check (a parser is 2.7 KB to make: 2.4 us, 15% of a typical check).
	parsers sync.Pool
}

// parser is a shell parser for one check, to release when it is done.
func (fc *fileCache) parser() *syntax.Parser {
	if fc != nil {
		if p, ok := fc.parsers.Get().(*syntax.Parser); ok {
			return p
		}
	}
	return syntax.NewParser(syntax.Variant(syntax.LangBash))
}

// release gives p back for the session's next check.
func (fc *fileCache) release(p *syntax.Parser) {
	if fc != nil && p != nil {
		fc.parsers.Put(p)
	}
}

// cachedDir is the names in a directory and their types (fs.FileMode's
// type bits), as read when it was id. A directory's mtime and ctime change
// whenever an entry is made, removed or renamed in it (a file replaced by a
// symlink too), so while the directory is still id a name it does not list
// is not there, and one it lists is of the type listed.
type cachedDir struct {
	id    fileID
	names map[string]fs.FileMode
}

// maxListed bounds the names of a directory listed.
const maxListed = 4096

// derivedKey is what derived holds: the kind of thing made of text.
type derivedKey struct{ kind, text string }

// Bounds of a fileCache: past them, entries are dropped to make room.
const (
	maxCachedFiles = 256
	maxCachedBytes = 8 << 20
	// cacheFresh is how old a file's last change must be to be cached.
	cacheFresh = time.Second
)

// fileID is what a file is and which version of it: two reads of a file
// with the same fileID read the same text. known is false where the
// system does not tell (fileIDOf).
type fileID struct {
	known        bool
	dev, ino     uint64
	mode         uint32
	size         int64
	mtime, ctime int64 // ns
}

type cachedFile struct {
	id   fileID
	text string
}

func newFileCache() *fileCache { return &fileCache{fresh: cacheFresh} }

func newFileCacheAny() any { return newFileCache() }

// read is readSmall through the cache: the text of the regular file p as
// it is now (at most maxScriptBytes), or false when it is absent, not a
// regular file, too large or unreadable. stat is os.Stat (the checker's,
// which remembers what it saw during the check). A nil cache reads the
// file.
func (fc *fileCache) read(p string, stat func(string) (os.FileInfo, error)) (string, bool) {
	if fc == nil {
		return readSmall(p)
	}
	fi, err := stat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return "", false // absent, unreachable or not a regular file now: nothing to read
	}
	if text, ok := fc.held(p, fi); ok {
		return text, true
	}
	start := time.Now()
	text, id, ok := readSmallID(p)
	if !ok || !id.known || id.ctime > start.Add(-fc.fresh).UnixNano() {
		return text, ok
	}
	fc.put(p, cachedFile{id: id, text: text})
	return text, true
}

// held is p's text if the cache holds it as the file is now (fi: its stat).
func (fc *fileCache) held(p string, fi os.FileInfo) (string, bool) {
	id := fileIDOf(fi)
	if fc == nil || !id.known {
		return "", false
	}
	fc.mu.Lock()
	e, hit := fc.entries[p]
	fc.mu.Unlock()
	return e.text, hit && e.id == id
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

// absent reports whether the directory dir, which is now fi (its stat),
// holds no entry name, by its listing (names): known is false when that is
// not known from it (then lstat the name).
func (fc *fileCache) absent(dir string, fi os.FileInfo, name string) (absent, known bool) {
	names, ok := fc.names(dir, fi)
	_, there := names[name]
	return ok && !there, ok
}

// names are the names in the directory dir, which is now fi (its stat), or
// false. The listing is read at most once per version of the directory,
// and only for a directory whose last change is older than fresh, whose
// names are compared byte for byte (listDir). The map is shared: read only.
func (fc *fileCache) names(dir string, fi os.FileInfo) (map[string]fs.FileMode, bool) {
	id := fileIDOf(fi)
	if fc == nil || !id.known || !fi.IsDir() || id.ctime > time.Now().Add(-fc.fresh).UnixNano() {
		return nil, false
	}
	fc.mu.Lock()
	d, ok := fc.dirs[dir]
	fc.mu.Unlock()
	if !ok || d.id != id {
		names, listedID, ok := listDir(dir)
		if !ok || listedID != id {
			return nil, false // changed meanwhile
		}
		d = cachedDir{id: id, names: names}
		fc.mu.Lock()
		if fc.dirs == nil {
			fc.dirs = map[string]cachedDir{}
		}
		for k := range fc.dirs { // a few directories: the sessions' working directories
			if len(fc.dirs) < 8 {
				break
			}
			delete(fc.dirs, k)
		}
		fc.dirs[dir] = d
		fc.mu.Unlock()
	}
	return d.names, true
}

// derive is build(text) as kind ("makefile", "package.json", "sh"),
// remembered. A nil cache builds it each time.
func (fc *fileCache) derive(kind, text string, build func(string) any) any {
	if fc == nil {
		return build(text)
	}
	k := derivedKey{kind, text}
	fc.mu.Lock()
	v, ok := fc.derived[k]
	fc.mu.Unlock()
	if ok {
		return v
	}
	v = build(text)
	if len(text) > maxCachedBytes/4 {
		return v
	}
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if fc.derived == nil {
		fc.derived = map[derivedKey]any{}
	}
	if _, ok := fc.derived[k]; !ok {
		for old := range fc.derived { // room for k: drop any entries
			if len(fc.derived) < maxCachedFiles && fc.dbytes+len(text) <= maxCachedBytes {
				break
			}
			fc.dbytes -= len(old.text)
			delete(fc.derived, old)
		}
		fc.derived[k] = v
		fc.dbytes += len(text)
	}
	return v
}

// listed reports whether dir's names are held (for tests).
func (fc *fileCache) listed(dir string) bool {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	_, ok := fc.dirs[dir]
	return ok
}

// cached reports whether p's text is held (for tests).
func (fc *fileCache) cached(p string) bool {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	_, ok := fc.entries[p]
	return ok
}
