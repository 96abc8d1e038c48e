package hub_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/interlock-dev/interlock/engine/hub"
	"github.com/interlock-dev/interlock/engine/hub/pgtest"
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

// send writes cmd to the host's stdin as a line (testdata/host.mjs).
func (h *nodeHost) send(t *testing.T, cmd map[string]any) {
	t.Helper()
	b, _ := json.Marshal(cmd)
	if _, err := h.stdin.Write(append(b, '\n')); err != nil {
		t.Fatalf("host %s: %v", h.name, err)
	}
}

// descendants returns the pids of the processes below pid (zombies left
// out: they run nothing).
func descendants(pid int) []int {
	parent := map[int]int{}
	procs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// "pid (comm) state ppid ...", comm may hold spaces and ')'.
		i := strings.LastIndexByte(string(b), ')')
		var state string
		var ppid int
		if i < 0 || fmtSscan(string(b[i+1:]), &state, &ppid) != nil || state == "Z" {
			continue
		}
		child, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		parent[child] = ppid
	}
	var out []int
	for child := range parent {
		for p := parent[child]; p > 1; p = parent[p] {
			if p == pid {
				out = append(out, child)
				break
			}
		}
	}
	return out
}

func fmtSscan(s string, state *string, ppid *int) error {
	_, err := fmt.Sscan(s, state, ppid)
	return err
}

// Three Node host processes (the engine through the addon) and the hub,
// at the scale:
//   - an approval from the hub reaches the right host's tool and no other;
//   - the hub (the PostgreSQL server) stopped for 10 s: the hosts go on,
//     their pauses answered locally, a session made and 50 commands started
//     meanwhile; once it is back the hub never shows a stale state as
//     current, and converges;
//   - a host SIGKILLed mid-question (while the hub is down) is listed
//     offline, an answer sent to it expires visibly, and it comes back
//     through its store's recovery and resyncs;
//   - a fleet emergency stop of 3 hosts x 50 running bash commands: a
//     receipt per session, and no process of theirs left (by command line
//     and by descent from the hosts).
func TestNodeHostsThroughTheAddon(t *testing.T) {
	t.Parallel()
	// Its own cluster: the server is stopped mid-run.
	c, err := pgtest.Start(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	url := c.URL("postgres")
	f := openFleet(t, url)
	f.OfflineAfter = 3 * time.Second // 10 beats of the hosts
	dir := t.TempDir()
	const perHost = 50
	const marker = "3017.125"
	var hosts []*nodeHost
	for _, name := range []string{"host-1", "host-2", "host-3"} {
		hosts = append(hosts, startNodeHost(t, url, name, filepath.Join(dir, name+".db"), 2))
	}
	eventually(t, "6 sessions paused on three connected hosts", func() bool {
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
	for _, h := range []*nodeHost{hosts[0], hosts[2]} {
		if d := h.said("done"); len(d) != 0 {
			t.Fatalf("%s's runs ended too: %v", h.name, d)
		}
	}

	// The hub down for 10 s: host-1 and host-2 go on (a pause answered
	// locally, a session asking, 50 commands started each); host-3 is
	// killed at its questions.
	c.StopServer()
	down := time.Now()
	hosts[2].kill()
	for _, h := range hosts[:2] {
		h.send(t, map[string]any{"answer": "s0"})
		h.send(t, map[string]any{"ask": "made-offline"})
		h.send(t, map[string]any{"bash": perHost, "marker": marker})
	}
	eventuallyWithin(t, time.Minute, "host-1 and host-2 answered locally, asking in a new session, running 100 commands", func() bool {
		for _, h := range hosts[:2] {
			s0 := slices.ContainsFunc(h.said("done"), func(d map[string]any) bool { return d["done"] == "s0" && d["outcome"] == "finished" })
			if !s0 || len(h.said("asking")) == 0 {
				return false
			}
		}
		return len(running(marker)) == 2*perHost
	})
	time.Sleep(time.Until(down.Add(10 * time.Second))) // the outage's length, not an order
	if err := c.Restart(t.Context()); err != nil {
		t.Fatal(err)
	}

	// An answer to the killed host waits for it, and expires visibly.
	var offline hub.SessionState
	eventually(t, "host-3/s1 readable again", func() bool {
		all, err := f.Sessions(t.Context())
		for _, st := range all {
			if st.Host == "host-3" && st.Session == "s1" {
				offline = st
			}
		}
		return err == nil && offline.Session != ""
	})
	if offline.HostConnected || !paused(offline) {
		t.Fatalf("the killed host-3's s1: %+v; want paused as last heard, the host not connected", offline)
	}
	toKilled := hub.AnswerOf(offline, true, "alice")
	toKilled.TTL = time.Second
	expiring, err := f.Answer(t.Context(), toKilled)
	if err != nil {
		t.Fatal(err)
	}

	// Until the hub converges, no read shows a stale state as current: s0
	// was answered on host-1 and host-2 while the hub was down.
	converged := func(all []hub.SessionState) bool {
		got := map[string]hub.SessionState{}
		for _, st := range all {
			got[st.Host+"/"+st.Session] = st
		}
		for _, h := range []string{"host-1", "host-2"} {
			if s0, ask := got[h+"/s0"], got[h+"/made-offline"]; !s0.HostConnected || s0.Status != "idle" || !ask.HostConnected || !paused(ask) {
				return false
			}
		}
		return !got["host-3/s0"].HostConnected && got["host-3/s0"].Session != ""
	}
	eventuallyWithin(t, 30*time.Second, "the hub converged", func() bool {
		all, err := f.Sessions(t.Context())
		if err != nil { // a connection of the pool from before the restart
			return false
		}
		for _, st := range all {
			switch {
			case st.Host == "host-3" && st.HostConnected:
				t.Fatalf("the killed host-3 shown connected: %+v", st)
			case st.HostConnected && st.Session == "s0" && st.Status != "idle":
				t.Fatalf("%s's s0, answered while the hub was down, shown as current: %s (version %d, mirrored at %v)", st.Host, st.Status, st.Version, st.UpdatedAt)
			}
		}
		return converged(all)
	})
	if res, err := f.Wait(t.Context(), expiring); err != nil || res.State != hub.StateRefused || res.Code != hub.CodeExpired {
		t.Fatalf("the answer to the killed host: %+v, %v; want refused, expired", res, err)
	}

	// host-3 comes back through its store, and resyncs.
	back := startNodeHost(t, url, "host-3", filepath.Join(dir, "host-3.db"), 2)
	eventually(t, "host-3 back", func() bool { return len(back.said("ready")) == 1 })
	if got := back.said("ready")[0]["sessions"]; len(got.([]any)) != 2 {
		t.Fatalf("host-3's store brought back %v", got)
	}
	back.send(t, map[string]any{"bash": perHost, "marker": marker})
	for _, id := range []string{"s0", "s1"} {
		mirrored(t, f, "host-3", id, func(st hub.SessionState) bool {
			return st.HostConnected && st.Status == "interrupted" && st.RunState == "blocked"
		})
	}
	// The fleet emergency stop: the 150 commands, not the questions.
	hosts[2] = back
	eventuallyWithin(t, time.Minute, "150 commands running", func() bool { return len(running(marker)) == 3*perHost })
	stop, err := f.EmergencyStop(t.Context(), "alice", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	receipts, err := f.WaitStop(ctx, stop)
	if err != nil {
		t.Fatal(err)
	}
	// A host busy enough to miss its heartbeats for a moment is not waited
	// for by WaitStop (it is listed unconfirmed): every host confirms.
	eventuallyWithin(t, 30*time.Second, "every host confirmed the stop", func() bool {
		if receipts, err = f.Stop(ctx, stop); err != nil {
			t.Fatal(err)
		}
		return len(receipts.Unconfirmed()) == 0
	})
	var want []string
	for i := range perHost {
		want = append(want, "b"+itoa(i))
	}
	slices.Sort(want)
	for _, h := range receipts.Hosts {
		if !h.Confirmed || !slices.Equal(h.Stopped, want) {
			t.Fatalf("%s's receipts: confirmed %v, %d sessions %v; want b0..b%d", h.Host, h.Confirmed, len(h.Stopped), h.Stopped, perHost-1)
		}
	}
	if left := running(marker); len(left) != 0 {
		t.Fatalf("after every receipt, commands running: %v", left)
	}
	eventually(t, "no process below any host (the supervisors exit after their report)", func() bool {
		for _, h := range hosts {
			if len(descendants(h.cmd.Process.Pid)) > 0 {
				return false
			}
		}
		return true
	})

	for _, h := range hosts {
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
