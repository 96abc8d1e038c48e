package hub_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/bash"
	"github.com/interlock-dev/interlock/engine/hub"
)

// A fleet emergency stop stops every proceeding session on every
// connected host, with a receipt per session once its command's process
// tree is gone; a host offline at the time is listed unconfirmed and stops
// its sessions when it reconnects while the stop is in force. No command
// is left running.
func TestFleetEmergencyStopWithReceipts(t *testing.T) {
	t.Parallel()
	url := newDB(t)
	const perHost = 10
	const marker = "3017.25"
	turns := sleepingBash(marker)
	open := func(name string) (*engine.Engine, *hub.Host) {
		h := startHost(t, url, name, engine.NewScriptedProvider(turns), engine.WithTool("bash", bash.New()))
		return h.eng, h.hub
	}
	start := func(eng *engine.Engine, n int) {
		for range n {
			s, err := eng.NewSession(engine.SessionOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := s.Start(context.WithoutCancel(t.Context()), "sleep"); err != nil {
				t.Fatal(err)
			}
		}
	}
	f := openFleet(t, url)
	var want []string
	var engines []*engine.Engine
	for _, name := range []string{"host-a", "host-b"} {
		eng, _ := open(name)
		start(eng, perHost)
		engines = append(engines, eng)
		for _, s := range eng.Sessions() {
			want = append(want, name+"/"+s.ID())
		}
	}
	// A third host that is offline when the stop is made.
	late, lateHub := open("host-c")
	lateHub.Close()
	start(late, 2)
	eventually(t, "every command running", func() bool { return len(running(marker)) == 2*perHost+2 })

	id, err := f.EmergencyStop(t.Context(), "alice", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
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
	for _, eng := range engines {
		interruptedByTheStop(t, eng)
	}
	if left := running(marker); len(left) != 2 {
		t.Fatalf("after the receipts, commands running: %v; want only the offline host's 2", left)
	}

	// host-c comes back while the stop is in force: it stops its sessions.
	h2, err := hub.Attach(late, hub.Config{URL: url, Host: "host-c"})
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
	interruptedByTheStop(t, late)
	if left := running(marker); len(left) != 0 {
		t.Fatalf("commands left after every host confirmed: %v", left)
	}
}

// interruptedByTheStop waits until every session of eng is interrupted by
// the emergency stop. A receipt says the session's process trees are gone;
// its run ends (stopping, then interrupted) as its tool calls return.
func interruptedByTheStop(t *testing.T, eng *engine.Engine) {
	t.Helper()
	for _, s := range eng.Sessions() {
		eventually(t, s.ID()+" interrupted by the emergency stop", func() bool {
			snap := s.Snapshot()
			return snap.Status == engine.StatusInterrupted && snap.Interruption != nil && snap.Interruption.Reason == engine.ReasonEmergencyStop
		})
	}
}
