package bash

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
)

// The gate keeps the project files it read in the session (fileCache). A
// package.json rewritten after `npm test` was judged, to the same size and
// with its old mtime put back (same inode: written in place), must be read
// again: judged from the text cached, `npm test` would run `rm -rf ~`
// unasked. A cache keyed on the path, or on size and mtime, fails this; the
// file's ctime (which no utimes can set back) tells.
func TestFileCacheSeesAFileRewrittenWithItsSizeAndMtime(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pkg := filepath.Join(dir, "package.json")
	const harmless, attack = `{"scripts": {"test": "echo hello"}}`, `{"scripts": {"test": "rm -rf ~  "}}`
	require.Len(t, attack, len(harmless))
	require.NoError(t, os.WriteFile(pkg, []byte(harmless), 0o644))
	before, err := os.Stat(pkg)
	require.NoError(t, err)

	tool := New()
	e := engine.New(engine.WithTool("Bash", tool))
	t.Cleanup(func() { e.Close() })
	s, err := e.NewSession(engine.SessionOptions{Dir: dir})
	require.NoError(t, err)
	// The session's cache, taking files changed more than 20 ms ago (not
	// one second): the test waits less for package.json to be cacheable.
	fc := s.Local(fileCacheKey{tool}, func() any { c := newFileCache(); c.fresh = 20 * time.Millisecond; return c }).(*fileCache)

	real, err := filepath.EvalSymlinks(pkg)
	require.NoError(t, err)
	deadline := time.Now().Add(5 * time.Second)
	for !fc.cached(real) { // judged until package.json is old enough to be kept
		require.Equal(t, ActionAllow, tool.Judge(s.Env(), "npm test").Decision)
		require.True(t, time.Now().Before(deadline), "package.json not cached after 5 s")
	}
	require.Equal(t, ActionAllow, tool.Judge(s.Env(), "npm test").Decision, "judged from the cache")

	require.NoError(t, os.WriteFile(pkg, []byte(attack), 0o644))
	require.NoError(t, os.Chtimes(pkg, before.ModTime(), before.ModTime()))
	after, err := os.Stat(pkg)
	require.NoError(t, err)
	require.Equal(t, before.Size(), after.Size())
	require.Equal(t, before.ModTime(), after.ModTime())
	require.Equal(t, before.Sys().(*syscall.Stat_t).Ino, after.Sys().(*syscall.Stat_t).Ino)

	d := tool.Judge(s.Env(), "npm test")
	require.Equal(t, ActionConfirm, d.Decision, "the rewritten package.json must be judged: %q", d.Reasons)
	require.Contains(t, d.Reasons[0], "rm -rf ~")
}

// A file changed less than fresh ago is read each time, not kept: a second
// write within the same timestamp tick would carry the same times.
func TestFileCacheKeepsNoFileChangedJustNow(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "s.sh")
	require.NoError(t, os.WriteFile(p, []byte("echo hi\n"), 0o644))
	fc := newFileCache()
	text, ok := fc.read(p, os.Stat)
	require.True(t, ok)
	require.Equal(t, "echo hi\n", text)
	fi, err := os.Stat(p)
	require.NoError(t, err)
	if ctime := fi.Sys().(*syscall.Stat_t).Ctim; time.Since(time.Unix(ctime.Unix())) < fc.fresh {
		require.False(t, fc.cached(p), "a file changed %v ago is kept", time.Since(time.Unix(ctime.Unix())))
	}
	_, ok = fc.read(filepath.Join(t.TempDir(), "absent.sh"), os.Stat)
	require.False(t, ok)
}

// The cache holds at most maxCachedFiles files.
func TestFileCacheIsBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fc := newFileCache()
	fc.fresh = -time.Hour // every file is old enough
	for i := range maxCachedFiles + 20 {
		p := filepath.Join(dir, strconv.Itoa(i))
		require.NoError(t, os.WriteFile(p, []byte("echo "+strconv.Itoa(i)), 0o644))
		text, ok := fc.read(p, os.Stat)
		require.True(t, ok)
		require.Equal(t, "echo "+strconv.Itoa(i), text)
		require.True(t, fc.cached(p))
	}
	fc.mu.Lock()
	defer fc.mu.Unlock()
	require.Len(t, fc.entries, maxCachedFiles)
	n := 0
	for _, e := range fc.entries {
		n += len(e.text)
	}
	require.Equal(t, n, fc.bytes)
}

// The makefile parsed once is shared by the session's checks: a variable
// set on one make's command line must not stay in it. Judged from the
// changed copy, `make` would run `true` in place of the makefile's rm.
func TestMakeVariableOnTheLineStaysOnTheLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Makefile"), []byte("CMD = rm -rf ~/victim\nall:\n\t$(CMD)\n"), 0o644))
	sc := newScope(dir)
	require.Equal(t, ActionConfirm, sc.check("make").Decision)
	require.Equal(t, ActionAllow, sc.check("make CMD=true").Decision)
	d := sc.check("make")
	require.Equal(t, ActionConfirm, d.Decision, "make judged with the CMD of an earlier line: %q", d.Reasons)
}

// The session keeps the names in its working directory and their types,
// to know without a lstat each that a word names no file there, or names
// no symlink. A symlink made there after a check, with the directory's
// mtime put back, must still be seen: `echo hi > data/note` writes in the
// workspace while data is missing or a directory, outside it once data is
// a link to a directory outside. A listing keyed on the directory's path,
// or its size and mtime, fails this; its ctime tells.
func TestWorkingDirectoryListingSeesALinkMadeLater(t *testing.T) {
	t.Parallel()
	for _, before := range []string{"missing", "a directory"} {
		t.Run(before, func(t *testing.T) {
			t.Parallel()
			listingSeesALinkMadeLater(t, before == "a directory")
		})
	}
}

func listingSeesALinkMadeLater(t *testing.T, wasDir bool) {
	root := t.TempDir()
	dir, outside := filepath.Join(root, "ws"), filepath.Join(root, "outside")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "src"), 0o755))
	require.NoError(t, os.MkdirAll(outside, 0o755))
	if wasDir {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "data"), 0o755))
	}
	sc := newScope(dir)
	sc.temp = nil
	sc.cache.fresh = 20 * time.Millisecond
	real, err := filepath.EvalSymlinks(dir)
	require.NoError(t, err)
	const rm = "echo hi > data/note"
	deadline := time.Now().Add(5 * time.Second)
	for !sc.cache.listed(real) { // judged until the directory is old enough to be listed
		require.Equal(t, ActionAllow, sc.check(rm).Decision)
		require.True(t, time.Now().Before(deadline), "the working directory not listed after 5 s")
	}
	require.Equal(t, ActionAllow, sc.check(rm).Decision, "judged from the listing")

	before, err := os.Stat(dir)
	require.NoError(t, err)
	require.NoError(t, os.RemoveAll(filepath.Join(dir, "data")))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "data")))
	require.NoError(t, os.Chtimes(dir, before.ModTime(), before.ModTime()))
	after, err := os.Stat(dir)
	require.NoError(t, err)
	require.Equal(t, before.ModTime(), after.ModTime())
	require.Equal(t, before.Size(), after.Size())
	// Past fresh, a changed directory may be listed again (or, keyed
	// wrongly, be taken for the one listed).
	changed := time.Unix(after.Sys().(*syscall.Stat_t).Ctim.Unix())
	for time.Since(changed) < 2*sc.cache.fresh {
		time.Sleep(sc.cache.fresh)
	}

	d := sc.check(rm)
	require.Equal(t, ActionConfirm, d.Decision, "data is now a link outside the workspace: %q", d.Reasons)
}

// The home directory is listed too (~/x). A link made there after a check,
// with the directory's mtime put back, is seen: ~/data made a link into
// the workspace turns `echo hi > ~/data/note` from a write outside into
// one inside.
func TestHomeListingSeesALinkMadeLater(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir, home := filepath.Join(root, "ws"), filepath.Join(root, "home")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(home, "src"), 0o755))
	sc := newScope(dir)
	sc.temp = nil
	sc.home = realPath(home)
	sc.cache.fresh = 20 * time.Millisecond
	const write = "echo hi > ~/data/note"
	deadline := time.Now().Add(5 * time.Second)
	for !sc.cache.listed(sc.home) {
		require.Equal(t, ActionConfirm, sc.check(write).Decision)
		require.True(t, time.Now().Before(deadline), "the home directory not listed after 5 s")
	}
	before, err := os.Stat(home)
	require.NoError(t, err)
	require.NoError(t, os.Symlink(dir, filepath.Join(home, "data")))
	require.NoError(t, os.Chtimes(home, before.ModTime(), before.ModTime()))
	after, err := os.Stat(home)
	require.NoError(t, err)
	changed := time.Unix(after.Sys().(*syscall.Stat_t).Ctim.Unix())
	for time.Since(changed) < 2*sc.cache.fresh {
		time.Sleep(sc.cache.fresh)
	}
	d := sc.check(write)
	require.Equal(t, ActionAllow, d.Decision, "~/data is now a link into the workspace: %q", d.Reasons)
}
