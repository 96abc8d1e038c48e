package hub_test

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/interlock-dev/interlock/engine/hub"
)

// nodeHost is a host process: Node running the engine through the addon
// (testdata/host.mjs).
type nodeHost struct {
	name    string
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	mu      sync.Mutex
	lines   []map[string]any
	exited  chan struct{} // closed when the process has exited (exitErr set)
	exitErr error
}

func startNodeHost(t *testing.T, url, name, store string, sessions int) *nodeHost {
	t.Helper()
	addon, _ := filepath.Abs("../../build/Release/interlock.node")
	if _, err := os.Stat(addon); err != nil {
		t.Fatalf("the addon %s is not built (make build): %v", addon, err)
	}
	cmd := exec.Command("node", "testdata/host.mjs", url, name, store, itoa(sessions))
	cmd.Stderr = os.Stderr
	h := &nodeHost{name: name, cmd: cmd, exited: make(chan struct{})}
	var err error
	if h.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				h.mu.Lock()
				h.lines = append(h.lines, m)
				h.mu.Unlock()
			}
		}
		h.exitErr = cmd.Wait()
		close(h.exited)
	}()
	t.Cleanup(func() { h.kill() })
	return h
}

// said returns the lines the host printed with key.
func (h *nodeHost) said(key string) []map[string]any {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []map[string]any
	for _, l := range h.lines {
		if _, ok := l[key]; ok {
			out = append(out, l)
		}
	}
	return out
}

// stop closes its stdin: the host closes its engine and exits.
func (h *nodeHost) stop(t *testing.T) {
	t.Helper()
	h.stdin.Close()
	select {
	case <-h.exited:
		if h.exitErr != nil {
			t.Fatalf("host %s exited: %v", h.name, h.exitErr)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("host %s did not exit after its stdin closed", h.name)
	}
}

func (h *nodeHost) kill() {
	h.cmd.Process.Signal(syscall.SIGKILL)
	<-h.exited
}

func itoa(n int) string { return strconv.Itoa(n) }

// Three Node host processes and the hub: an approval from the hub reaches
// the right host's tool and no other; a host SIGKILLed is shown offline,
// comes back through its store's recovery and resyncs.
func TestNodeHostsThroughTheAddon(t *testing.T) {
	t.Parallel()
	url := newDB(t)
	f := openFleet(t, url)
	f.OfflineAfter = 1500 * time.Millisecond
	dir := t.TempDir()
	var hosts []*nodeHost
	for _, name := range []string{"host-1", "host-2", "host-3"} {
		hosts = append(hosts, startNodeHost(t, url, name, filepath.Join(dir, name+".db"), 2))
	}
	eventually(t, "six sessions of three connected hosts paused in the hub", func() bool {
		all, err := f.Sessions(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, st := range all {
			if paused(st) && st.HostConnected {
				n++
			}
		}
		return n == 6
	})

	st := mirrored(t, f, "host-2", "s1", paused)
	if st.Pause.Details != "deploy host-2 s1" {
		t.Fatalf("host-2/s1's pause as shown: %+v", st.Pause)
	}
	id, err := f.Answer(t.Context(), hub.AnswerOf(st, true, "alice"))
	if err != nil {
		t.Fatal(err)
	}
	if res, err := f.Wait(t.Context(), id); err != nil || res.State != hub.StateApplied {
		t.Fatalf("approval: %+v, %v", res, err)
	}
	eventually(t, "host-2's s1 tool continued", func() bool { return len(hosts[1].said("done")) == 1 })
	if d := hosts[1].said("done")[0]; d["done"] != "s1" || d["outcome"] != "finished" || d["tool"] != "approved" {
		t.Fatalf("host-2 printed %v", d)
	}
	mirrored(t, f, "host-2", "s1", func(st hub.SessionState) bool { return st.Status == "idle" })
	for _, h := range []*nodeHost{hosts[0], hosts[2]} {
		if d := h.said("done"); len(d) != 0 {
			t.Fatalf("%s's runs ended too: %v", h.name, d)
		}
	}

	// host-3 is killed: listed offline, then back through its store.
	hosts[2].kill()
	eventually(t, "host-3 shown offline", func() bool {
		hs, _ := f.Hosts(t.Context())
		for _, h := range hs {
			if h.Host == "host-3" {
				return !h.Connected
			}
		}
		return false
	})
	all, _ := f.Sessions(t.Context())
	for _, st := range all {
		if st.Host == "host-3" && st.HostConnected {
			t.Fatalf("a session of the killed host-3 shown as current: %+v", st)
		}
	}
	back := startNodeHost(t, url, "host-3", filepath.Join(dir, "host-3.db"), 2)
	eventually(t, "host-3 back", func() bool { return len(back.said("ready")) == 1 })
	if got := back.said("ready")[0]["sessions"]; len(got.([]any)) != 2 {
		t.Fatalf("host-3's store brought back %v", got)
	}
	for _, id := range []string{"s0", "s1"} {
		mirrored(t, f, "host-3", id, func(st hub.SessionState) bool {
			return st.HostConnected && st.Status == "interrupted" && st.RunState == "blocked"
		})
	}
	for _, h := range []*nodeHost{hosts[0], hosts[1], back} {
		h.stop(t)
	}
	eventually(t, "every host shown offline after its engine closed", func() bool {
		hs, _ := f.Hosts(t.Context())
		for _, h := range hs {
			if h.Connected {
				return false
			}
		}
		return len(hs) == 3
	})
}
