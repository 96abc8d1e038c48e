package hub_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/hub"
	"github.com/interlock-dev/interlock/engine/hub/pgtest"
)

// A fleet emergency stop stops every proceeding session on every
// connected host, with a receipt per session; a host offline at the time
// is listed unconfirmed and stops its sessions when it reconnects while
// the stop is in force.
func TestFleetEmergencyStopWithReceipts(t *testing.T) {
	t.Parallel()
	url := newDB(t)
	const perHost = 5
	hosts := []*testHost{startHost(t, url, "host-a", sleeping), startHost(t, url, "host-b", sleeping)}
	f := openFleet(t, url)
	var want []string
	for _, h := range hosts {
		for i := range perHost {
			s, err := h.eng.NewSession(engine.SessionOptions{ID: fmt.Sprintf("s%d", i)})
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := s.Start(context.WithoutCancel(t.Context()), "sleep"); err != nil {
				t.Fatal(err)
			}
			want = append(want, h.name+"/"+s.ID())
		}
	}
	// A third host that is offline when the stop is made.
	late := startHost(t, url, "host-c", sleeping)
	lateS, _ := late.eng.NewSession(engine.SessionOptions{ID: "late"})
	late.hub.Close()
	if _, _, err := lateS.Start(context.WithoutCancel(t.Context()), "sleep"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "every session mirrored running", func() bool {
		all, _ := f.Sessions(t.Context())
		n := 0
		for _, st := range all {
			if st.Status == "running" && st.Host != "host-c" {
				n++
			}
		}
		return n == len(want)
	})

	id, err := f.EmergencyStop(t.Context(), "alice", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	st, err := f.WaitStop(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range st.Hosts {
		for _, s := range h.Stopped {
			got = append(got, h.Host+"/"+s)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("receipts %v, want %v", got, want)
	}
	if u := st.Unconfirmed(); len(u) != 1 || u[0].Host != "host-c" || u[0].Connected {
		t.Fatalf("unconfirmed hosts: %+v; want host-c, offline", u)
	}
	for _, h := range hosts {
		for _, s := range h.eng.Sessions() {
			if s.Status() != engine.StatusInterrupted || s.Snapshot().Interruption.Reason != engine.ReasonEmergencyStop {
				t.Fatalf("%s/%s after the fleet stop: %s", h.name, s.ID(), s.Status())
			}
		}
	}
	if lateS.Status() != engine.StatusRunning {
		t.Fatalf("the offline host's session: %s", lateS.Status())
	}

	// host-c comes back while the stop is in force: it stops its session.
	h2, err := hub.Attach(late.eng, hub.Config{URL: url, Host: "host-c"})
	if err != nil {
		t.Fatal(err)
	}
	defer h2.Close()
	if err := h2.WaitConnected(ctx, true); err != nil {
		t.Fatal(err)
	}
	st, err = f.WaitStop(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if u := st.Unconfirmed(); len(u) != 0 {
		t.Fatalf("unconfirmed after host-c reconnected: %+v", u)
	}
	if lateS.Status() != engine.StatusInterrupted {
		t.Fatalf("host-c's session after it reconnected: %s", lateS.Status())
	}
}

// With the hub down, hosts go on and their pauses are answered locally;
// the hub shows them offline, and once it is back they reconnect and the
// mirror converges.
func TestHubDownHostsGoOnAndResync(t *testing.T) {
	// Its own cluster: it stops the server.
	c, err := pgtest.Start(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	url := c.URL("postgres")
	a := startHost(t, url, "host-a", asking("rm -rf ./build"))
	f := openFleet(t, url)
	s, done := startAsking(t, a, engine.SessionOptions{ID: "s"})
	mirrored(t, f, "host-a", "s", paused)

	c.StopServer()
	waitCtx(t, func(ctx context.Context) error { return a.hub.WaitConnected(ctx, false) })
	p, _ := s.Pause()
	if err := s.Confirm(p.ID, true, engine.AnsweredBy("tui")); err != nil {
		t.Fatal(err)
	}
	if out := <-done; out.Err != nil || s.Status() != engine.StatusIdle {
		t.Fatalf("the run with the hub down: %v, %s", out.Err, s.Status())
	}
	s2, _ := startAsking(t, a, engine.SessionOptions{ID: "made-offline"})
	eventually(t, "the new session paused", func() bool { return s2.Status() == engine.StatusPaused })

	if err := c.Restart(t.Context()); err != nil {
		t.Fatal(err)
	}
	waitCtx(t, func(ctx context.Context) error { return a.hub.WaitConnected(ctx, true) })
	mirrored(t, f, "host-a", "s", func(st hub.SessionState) bool { return st.Status == "idle" && st.HostConnected })
	mirrored(t, f, "host-a", "made-offline", paused)
}
