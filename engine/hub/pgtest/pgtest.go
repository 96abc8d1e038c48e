// Package pgtest starts a throwaway PostgreSQL cluster for tests: initdb in
// a temporary directory, run as an unprivileged user (PostgreSQL refuses
// root), listening only on a unix socket in that directory, with fsync off.
// Stop ends the server and removes the directory; no process is left.
//
//	c, err := pgtest.Start(ctx)
//	if err != nil { ... }
//	defer c.Stop()
//	url := c.URL("postgres")
//
// The server binaries are looked up in /usr/lib/postgresql/<version>/bin
// (Debian's package postgresql), newest first, or in $PATH; PGTEST_BIN names
// the folder explicitly. The first cluster made by initdb is kept as a
// template in the user's cache folder, so later ones start in well under a
// second.
package pgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ErrNoPostgres is returned when no PostgreSQL server binaries are found.
var ErrNoPostgres = errors.New("pgtest: no PostgreSQL server binaries (initdb, postgres) found")

// Cluster is a running throwaway PostgreSQL server.
type Cluster struct {
	// Dir holds the data directory and the server's socket.
	Dir string
	// Bin is the folder of the server binaries used.
	Bin string

	cred    *syscall.Credential // the unprivileged user the server runs as; nil when not root
	mu      sync.Mutex
	cmd     *exec.Cmd
	exited  chan struct{}
	log     logBuffer
	stopped bool
}

// logBuffer is the server's output, written by exec's copying goroutine.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *logBuffer) Reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Reset()
}

// BinDir returns the folder of the newest PostgreSQL server binaries found.
func BinDir() (string, error) {
	if d := os.Getenv("PGTEST_BIN"); d != "" {
		return d, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int { return version(b) - version(a) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", fmt.Errorf("%w: looked in /usr/lib/postgresql/*/bin and $PATH; install it (Debian: apt-get install postgresql) or set PGTEST_BIN", ErrNoPostgres)
}

func version(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

// Start initialises and starts a cluster. Stop it when done.
func Start(ctx context.Context) (*Cluster, error) {
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	cred, err := unprivileged()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		return nil, err
	}
	c := &Cluster{Dir: dir, Bin: bin, cred: cred}
	if err := c.chown(dir); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := c.initdb(ctx); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := c.Restart(ctx); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return c, nil
}

// unprivileged returns the credentials to run the server with: none when
// not root, else those of the user postgres (made by the Debian package)
// or nobody.
func unprivileged() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}, nil
	}
	return nil, errors.New("pgtest: running as root and neither user postgres nor nobody exists: PostgreSQL refuses to run as root; add an unprivileged user")
}

func (c *Cluster) chown(path string) error {
	if c.cred == nil {
		return nil
	}
	return os.Chown(path, int(c.cred.Uid), int(c.cred.Gid))
}

func (c *Cluster) data() string { return filepath.Join(c.Dir, "data") }

// initdb makes the data directory: a copy of the cached template, made
// first when missing.
func (c *Cluster) initdb(ctx context.Context) error {
	tmpl, err := c.template(ctx)
	if err != nil {
		return err
	}
	cp := exec.CommandContext(ctx, "cp", "-a", tmpl, c.data())
	if out, err := cp.CombinedOutput(); err != nil {
		return fmt.Errorf("pgtest: copying the template cluster %s: %v: %s", tmpl, err, out)
	}
	if c.cred == nil {
		return nil
	}
	return filepath.Walk(c.data(), func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, int(c.cred.Uid), int(c.cred.Gid))
	})
}

// template returns a data directory made by initdb for these binaries,
// kept in the cache folder and made once.
func (c *Cluster) template(ctx context.Context) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	tmpl := filepath.Join(cache, "interlock-pgtest", strings.ReplaceAll(strings.Trim(c.Bin, "/"), "/", "_"))
	if _, err := os.Stat(filepath.Join(tmpl, "PG_VERSION")); err == nil {
		return tmpl, nil
	}
	if err := os.MkdirAll(filepath.Dir(tmpl), 0o755); err != nil {
		return "", err
	}
	work, err := os.MkdirTemp(c.Dir, "initdb-")
	if err != nil {
		return "", err
	}
	if err := c.chown(work); err != nil {
		return "", err
	}
	made := filepath.Join(work, "data")
	cmd := c.command(ctx, "initdb", "-D", made, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("pgtest: initdb: %v: %s", err, out)
	}
	// Copied in beside the template (initdb's user may not reach the cache
	// folder), then renamed: another test process may have made it
	// meanwhile, and either copy serves.
	kept, err := os.MkdirTemp(filepath.Dir(tmpl), "new-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(kept)
	if out, err := exec.CommandContext(ctx, "cp", "-a", made, filepath.Join(kept, "data")).CombinedOutput(); err != nil {
		return "", fmt.Errorf("pgtest: keeping the template cluster in %s: %v: %s", tmpl, err, out)
	}
	if err := os.Rename(filepath.Join(kept, "data"), tmpl); err != nil {
		if _, statErr := os.Stat(filepath.Join(tmpl, "PG_VERSION")); statErr != nil {
			return "", fmt.Errorf("pgtest: keeping the template cluster in %s: %w", tmpl, err)
		}
	}
	os.RemoveAll(work)
	return tmpl, nil
}

func (c *Cluster) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(c.Bin, name), args...)
	cmd.Dir = c.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred, Pdeathsig: syscall.SIGKILL}
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	return cmd
}

// Restart starts the server again after StopServer (Start starts it once).
func (c *Cluster) Restart(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cmd != nil {
		return errors.New("pgtest: the server is already running")
	}
	os.Remove(filepath.Join(c.data(), "postmaster.pid")) // left by a server killed in a test
	cmd := c.command(context.Background(), "postgres", "-D", c.data(), "-k", c.Dir,
		"-c", "listen_addresses=", "-c", "fsync=off", "-c", "synchronous_commit=off",
		"-c", "full_page_writes=off", "-c", "max_connections=200", "-c", "shared_buffers=32MB")
	c.log.Reset()
	cmd.Stdout, cmd.Stderr = &c.log, &c.log
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("pgtest: starting postgres: %w", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	c.cmd, c.exited = cmd, exited
	deadline := time.Now().Add(30 * time.Second)
	for {
		if c.ready() {
			return nil
		}
		select {
		case <-exited:
			c.cmd = nil
			return fmt.Errorf("pgtest: postgres exited at start: %s", c.log.String())
		case <-ctx.Done():
			c.stopLocked()
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			c.stopLocked()
			return fmt.Errorf("pgtest: postgres did not listen within 30 s: %s", c.log.String())
		}
	}
}

// ready reports whether the server accepts connections: the status line
// of postmaster.pid (its eighth) says "ready" once it does.
func (c *Cluster) ready() bool {
	b, err := os.ReadFile(filepath.Join(c.data(), "postmaster.pid"))
	if err != nil {
		return false
	}
	lines := strings.Split(string(b), "\n")
	return len(lines) > 7 && strings.TrimSpace(lines[7]) == "ready"
}

// StopServer stops the server (a fast shutdown: clients are disconnected)
// and waits for it to exit; the data stays for Restart.
func (c *Cluster) StopServer() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopLocked()
}

func (c *Cluster) stopLocked() {
	if c.cmd == nil {
		return
	}
	c.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-c.exited:
	case <-time.After(10 * time.Second):
		c.cmd.Process.Kill()
		<-c.exited
	}
	c.cmd = nil
}

// Stop stops the server and removes the cluster. It is idempotent.
func (c *Cluster) Stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return
	}
	c.stopped = true
	c.stopLocked()
	os.RemoveAll(c.Dir)
}

// URL returns the URL of database db on the cluster (user postgres, over
// the unix socket). Database postgres exists; make others with CreateDB.
func (c *Cluster) URL(db string) string {
	return "postgres://postgres@/" + url.PathEscape(db) + "?host=" + url.QueryEscape(c.Dir) + "&sslmode=disable"
}

// CreateDB creates database db (an error when it exists).
func (c *Cluster) CreateDB(ctx context.Context, db string) error {
	cmd := exec.CommandContext(ctx, filepath.Join(c.Bin, "createdb"), "-h", c.Dir, "-U", "postgres", db)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("pgtest: createdb %s: %v: %s", db, err, out)
	}
	return nil
}

// Log returns what the server printed since it last started.
func (c *Cluster) Log() string { return c.log.String() }
