package bash

import (
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/interlock-dev/interlock/internal/testsupervisor"
)

// TestMain builds the supervisor the tool runs commands under, and checks,
// after all tests, that no goroutine leaked and that no process group a
// test started has a live member left.
func TestMain(m *testing.M) {
	if os.Getenv(hostModeVar) != "" {
		runAsHost() // a child of TestHostDeath: never returns
	}
	cleanup, err := testsupervisor.Install()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	cleanup()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutine leak:", err)
			code = 1
		}
		for _, pgid := range startedGroups.list() {
			if live, err := liveMembers(pgid); err != nil || len(live) > 0 {
				fmt.Fprintf(os.Stderr, "process leak: group %d still has live processes %v (err %v)\n", pgid, live, err)
				code = 1
			}
		}
	}
	os.Exit(code)
}

// startedGroups records every process group the tests' tools started.
var startedGroups groupLog

type groupLog struct {
	mu    sync.Mutex
	pgids []int
}

func (g *groupLog) add(pgid int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pgids = append(g.pgids, pgid)
}

func (g *groupLog) list() []int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]int(nil), g.pgids...)
}

// tracked records the tool's process groups; each one is also sent to
// notify when it is not nil.
func tracked(notify func(pgid int)) Option {
	return func(c *toolConfig) {
		c.startedGroup = func(pgid int) {
			startedGroups.add(pgid)
			if notify != nil {
				notify(pgid)
			}
		}
	}
}

// testRunner is a runner whose groups are tracked.
func testRunner(grace time.Duration, limit int) runner {
	return runner{shell: "bash", grace: grace, limit: limit, supervisor: defaultSupervisor(), kernel: &kernel{}, started: startedGroups.add}
}

// withoutNamespaces makes the tool act as if the kernel refused user
// namespaces: its supervisors keep the tree as subreapers.
func withoutNamespaces() Option { return func(c *toolConfig) { c.noNamespaces = true } }
