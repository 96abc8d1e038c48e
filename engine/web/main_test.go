package web

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// testTempDir holds every browser profile the tests create, so that TestMain
// can tell our Chromium processes from anybody else's.
var testTempDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "interlock-web-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testTempDir = dir
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
		if pids := chromiumProcessesIn(dir); len(pids) > 0 {
			fmt.Fprintf(os.Stderr, "chromium processes left running with a profile in %s: %v\n", dir, pids)
			code = 1
		}
		if entries, _ := os.ReadDir(dir); len(entries) > 0 {
			names := make([]string, len(entries))
			for i, e := range entries {
				names[i] = e.Name()
			}
			fmt.Fprintf(os.Stderr, "left in %s: %v\n", dir, names)
			code = 1
		}
	}
	killProcessesIn(dir)
	os.RemoveAll(dir)
	os.Exit(code)
}

// chromiumProcessesIn lists the processes whose --user-data-dir is inside dir.
func chromiumProcessesIn(dir string) []int {
	prefix := []byte("--user-data-dir=" + dir + string(os.PathSeparator))
	return processesWithArg(func(a []byte) bool { return len(a) >= len(prefix) && string(a[:len(prefix)]) == string(prefix) })
}

// killProcessesIn is the last resort after a failed run, so that one broken
// test does not leave browsers behind for the next.
func killProcessesIn(dir string) {
	for _, pid := range chromiumProcessesIn(dir) {
		if p, err := os.FindProcess(pid); err == nil {
			p.Kill()
		}
	}
}

// contextWithTimeout bounds a wait in a test, so that a missing event fails
// the test instead of hanging it.
func contextWithTimeout(t testing.TB, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(t.Context(), d)
}
