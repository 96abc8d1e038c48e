package bash

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/interlock-dev/interlock/engine/policy"
)

// scope is what a check knows about where a command will run: the session's
// working directory (the workspace a command may change without asking),
// the home directory, the processes it must not touch and the files the tool
// wrote earlier in the session.
type scope struct {
	dir       string       // absolute working directory; "" when unknown (every path is then outside)
	home      string       // the home directory ~ and $HOME stand for
	temp      []string     // temporary directories writes may go to
	protected map[int]bool // the engine's process and its ancestors
	files     *FileLog     // files written by earlier calls in this session; may be nil
	policy    *policy.Set  // the policy rules in force; nil: none
	policyErr error        // a policy file that does not load: every command is denied with it
	sandbox   sandboxView  // what confines the command when it runs
	cache     *fileCache   // the texts of files read by the session's checks; nil: none kept
}

// newScope is the scope of a command run in dir, by this process.
func newScope(dir string) *scope {
	home, _ := os.UserHomeDir()
	if dir != "" {
		if abs, err := filepath.Abs(dir); err == nil {
			dir = realPath(abs) // paths are compared resolved: a workspace reached through a symlink is still inside
		}
	}
	temp := []string{"/tmp", "/var/tmp", "/dev/shm"}
	if t := os.TempDir(); !strings.HasPrefix(t, "/tmp") {
		temp = append(temp, t)
	}
	return &scope{dir: dir, home: home, temp: temp, protected: hostPIDs(), cache: newFileCache()}
}

// check classifies cmd in this scope.
func (s *scope) check(cmd string) Decision { return check(cmd, s) }

// inside reports whether the absolute, cleaned path p may be changed
// without asking: it is in the working directory, or it is a new file in a
// temporary directory (what is already there may be another's).
func (s *scope) inside(p string, lstat func(string) (os.FileInfo, error)) bool {
	if s.dir != "" && under(p, s.dir) {
		return true
	}
	for _, t := range s.temp {
		if under(p, t) && p != t {
			_, err := lstat(p)
			return os.IsNotExist(err)
		}
	}
	return false
}

// realPath follows the symlinks already on disk along the absolute path p,
// component by component, also when the last ones do not exist yet (a
// link to a directory that is about to be written to). It stops after 40
// links, like the kernel.
func realPath(p string) string { return realPathFrom("/", p, lstatType) }

// lstatType is the type bits of p's lstat.
func lstatType(p string) (fs.FileMode, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return 0, err
	}
	return fi.Mode().Type(), nil
}

// realPathFrom is realPath when the directory done is known to hold no
// symlink (a resolved path: neither do its ancestors): only the part of p
// below what it shares with done is looked at. kind tells the type of each
// component (lstatType; the checker's remembers what it saw, for the rest
// of the check); a symlink's target is then read.
func realPathFrom(done, p string, kind func(string) (fs.FileMode, error)) string {
	p = filepath.Clean(p)
	if !strings.HasPrefix(p, "/") {
		return p
	}
	if done == "" {
		done = "/"
	}
	for !under(p, done) {
		done = filepath.Dir(done)
	}
	rel := strings.TrimPrefix(strings.TrimPrefix(p, done), "/")
	if rel == "" {
		return done
	}
	rest := strings.Split(rel, "/")
	// own: done and rest are still p's own text (no link followed), so
	// done/part is a prefix of p, and done/rest... is p.
	own := true
	for links := 0; len(rest) > 0; {
		part := rest[0]
		rest = rest[1:]
		if part == "" || part == "." {
			continue
		}
		if part == ".." {
			done, own = filepath.Dir(done), false
			continue
		}
		var next string
		switch {
		case own:
			next = p[:len(strings.TrimSuffix(done, "/"))+1+len(part)]
		case done == "/":
			next = "/" + part
		default:
			next = done + "/" + part // done is clean (resolved), part a name: filepath.Join without its Clean
		}
		typ, err := kind(next)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			// Nothing is below what does not exist: no link to follow. (No
			// .. is left in rest: p and link targets are cleaned absolute.)
			if own {
				return p
			}
			return filepath.Join(append([]string{next}, rest...)...)
		}
		if err != nil || typ&fs.ModeSymlink == 0 {
			done = next
			continue
		}
		target, err := os.Readlink(next)
		if err != nil {
			done = next
			continue
		}
		if links++; links > 40 {
			return filepath.Join(append([]string{next}, rest...)...)
		}
		if !strings.HasPrefix(target, "/") {
			target = filepath.Join(done, target)
		}
		rest, own = append(strings.Split(strings.TrimPrefix(filepath.Clean(target), "/"), "/"), rest...), false
		done = "/"
	}
	return done
}

// sandboxView is what the gate knows of the sandbox a command will run
// under: writes confined to the workspace and the temp dirs
// (workspace-write with Landlock in force), and the network denied.
type sandboxView struct {
	confined  bool
	noNetwork bool
}
