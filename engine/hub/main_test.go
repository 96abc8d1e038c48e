package hub_test

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"

	"github.com/interlock-dev/interlock/engine/hub/pgtest"
	"github.com/interlock-dev/interlock/internal/testsupervisor"
)

// cluster is the throwaway PostgreSQL server of this package's tests; each
// test gets a database of its own (newDB).
var cluster *pgtest.Cluster

func TestMain(m *testing.M) {
	c, err := pgtest.Start(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cluster = c
	cleanup, err := testsupervisor.Install() // the bash tool's supervisor, for the fleet stop
	if err != nil {
		c.Stop()
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	cleanup()
	c.Stop()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutines left:", err)
			code = 1
		}
	}
	os.Exit(code)
}

var dbSeq atomic.Int64

// newDB creates an empty database and returns its URL.
func newDB(t *testing.T) string {
	t.Helper()
	name := fmt.Sprintf("fleet%d", dbSeq.Add(1))
	if err := cluster.CreateDB(t.Context(), name); err != nil {
		t.Fatal(err)
	}
	return cluster.URL(name)
}
