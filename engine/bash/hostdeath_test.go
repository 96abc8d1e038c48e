package bash

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine/bash/contain"
)

// hostModeVar makes the test binary a host (see runAsHost): its value is
// "ns" or "subreaper", and INTERLOCK_TEST_PIDS names the pid file.
const hostModeVar = "INTERLOCK_TEST_HOST"

// runAsHost runs a command with a child and a grandchild that record their
// host pids, prints "started" once they run, and waits to be killed.
func runAsHost() {
	switch os.Getenv(hostModeVar) {
	case "tty":
		runAsTerminalHost()
	case "nproc":
		runAsProcessLimitedHost()
	}
	r := runner{shell: "bash", grace: DefaultGrace, supervisor: defaultSupervisor(), kernel: &kernel{}}
	if os.Getenv(hostModeVar) == "subreaper" {
		r.kernel.refuseNamespaces()
	}
	pids := os.Getenv("INTERLOCK_TEST_PIDS")
	cmd := `cut -d" " -f4 /proc/self/stat >> $F; sh -c 'cut -d" " -f4 /proc/self/stat >> $F; sleep 30 & cut -d" " -f4 /proc/self/stat >> $F; wait' &
until [ "$(wc -l < $F)" -ge 3 ]; do sleep 0.01; done; echo started; wait`
	r.run(context.Background(), cmd, "", append(os.Environ(), "F="+pids), time.Hour, contain.Policy{}, func(s string) { fmt.Print(s) })
	os.Exit(0)
}

// TestHostDeath kills a host (this test binary, re-run) by SIGKILL,
// SIGTERM, SIGINT and SIGHUP while its command runs a child and a
// grandchild, with the tree kept by a PID namespace and by a subreaper:
// nothing of the command survives 1 s later.
func TestHostDeath(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"ns", "subreaper"} {
		for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
			t.Run(fmt.Sprintf("%s/%v", mode, sig), func(t *testing.T) {
				t.Parallel()
				pidFile := filepath.Join(t.TempDir(), "pids")
				require.NoError(t, os.WriteFile(pidFile, nil, 0o644))
				host := exec.Command(os.Args[0], "-test.run=^$")
				host.Env = append(os.Environ(), hostModeVar+"="+mode, "INTERLOCK_TEST_PIDS="+pidFile)
				out, err := host.StdoutPipe()
				require.NoError(t, err)
				require.NoError(t, host.Start())
				started := make(chan struct{})
				go func() {
					sc := bufio.NewScanner(out)
					for sc.Scan() {
						if strings.Contains(sc.Text(), "started") {
							close(started)
						}
					}
				}()
				select {
				case <-started:
				case <-time.After(20 * time.Second):
					host.Process.Kill()
					host.Wait()
					t.Fatal("the host's command did not start")
				}
				b, err := os.ReadFile(pidFile)
				require.NoError(t, err)
				var pids []int
				for _, f := range strings.Fields(string(b)) {
					pid, err := strconv.Atoi(f)
					require.NoError(t, err)
					pids = append(pids, pid)
				}
				require.Len(t, pids, 3)
				for _, pid := range pids {
					require.True(t, alive(pid), "process %d runs before the host dies", pid)
				}
				require.NoError(t, host.Process.Signal(sig))
				host.Wait()
				deadline := time.Now().Add(time.Second)
				for time.Now().Before(deadline) && anyAlive(pids) {
					time.Sleep(5 * time.Millisecond)
				}
				for _, pid := range pids {
					if alive(pid) {
						syscall.Kill(pid, syscall.SIGKILL)
						assert.Fail(t, "survivor", "process %d outlived its host killed by %v", pid, sig)
					}
				}
			})
		}
	}
}

func anyAlive(pids []int) bool {
	for _, pid := range pids {
		if alive(pid) {
			return true
		}
	}
	return false
}
