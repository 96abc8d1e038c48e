package pgtest_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/interlock-dev/interlock/engine/hub/pgtest"
	"github.com/jackc/pgx/v5"
)

// A cluster starts, answers queries, survives a stop and restart with its
// data, and leaves neither a process nor a directory behind.
func TestClusterStartsRestartsAndLeavesNothing(t *testing.T) {
	ctx := t.Context()
	t0 := time.Now()
	c, err := pgtest.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cluster started in %v", time.Since(t0))
	defer c.Stop()
	query := func() int {
		conn, err := pgx.Connect(ctx, c.URL("postgres"))
		if err != nil {
			t.Fatalf("connect: %v\n%s", err, c.Log())
		}
		defer conn.Close(context.Background())
		var n int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM kept").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE kept (x int); INSERT INTO kept VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	pid := readPID(t, c)
	c.StopServer()
	if alive(pid) {
		t.Fatalf("postgres %d still runs after StopServer", pid)
	}
	if err := c.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if n := query(); n != 1 {
		t.Fatalf("rows after restart: %d, want 1", n)
	}
	pid = readPID(t, c)
	c.Stop()
	c.Stop() // idempotent
	if alive(pid) {
		t.Fatalf("postgres %d still runs after Stop", pid)
	}
	if _, err := os.Stat(c.Dir); !os.IsNotExist(err) {
		t.Fatalf("cluster directory %s left behind (%v)", c.Dir, err)
	}
}

func readPID(t *testing.T, c *pgtest.Cluster) int {
	b, err := os.ReadFile(filepath.Join(c.Dir, "data", "postmaster.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.SplitN(string(b), "\n", 2)[0])
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// alive reports whether process pid runs, or any process of the cluster
// (its backends name the data directory's parent in their command line
// only through the postmaster: they are its children, so look for those).
func alive(pid int) bool {
	if _, err := os.Stat(filepath.Join("/proc", strconv.Itoa(pid))); err == nil {
		return true
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			return true
		}
	}
	return false
}
