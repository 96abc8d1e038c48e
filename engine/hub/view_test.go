package hub_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/hub"
)

// A continue from the hub resumes an interrupted session only as its
// client saw it: at another version it is refused as stale, and the
// session stays interrupted.
func TestContinueFromHubBoundToTheVersionSeen(t *testing.T) {
	t.Parallel()
	url := newDB(t)
	args, _ := json.Marshal(map[string]int{"ms": 60_000})
	sleep := engine.ScriptTurn{ToolCalls: []engine.ScriptCall{{Name: "sleep", Args: args}}}
	h := startHost(t, url, "host-a", engine.NewScriptedProvider([]engine.ScriptTurn{sleep, sleep, {Text: "slept"}}))
	f := openFleet(t, url)
	s, err := h.eng.NewSession(engine.SessionOptions{ID: "long"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Start(context.WithoutCancel(t.Context()), "sleep"); err != nil {
		t.Fatal(err)
	}
	mirrored(t, f, "host-a", "long", func(st hub.SessionState) bool { return st.RunState == "proceeding" })
	if err := s.Interrupt(engine.ReasonUserStop); err != nil {
		t.Fatal(err)
	}
	st := mirrored(t, f, "host-a", "long", func(st hub.SessionState) bool { return st.RunState == "interrupted" && st.Version == s.Version() })

	id, err := f.Continue(t.Context(), hub.Continue{Host: "host-a", Session: "long", Seen: st.Version - 1, By: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := f.Wait(t.Context(), id); err != nil || res.State != hub.StateRefused || res.Code != hub.CodeStale {
		t.Fatalf("a continue at an older version: %+v, %v; want refused, stale", res, err)
	}
	if got := s.Snapshot().RunState; got != engine.RunInterrupted {
		t.Fatalf("after a refused continue the session is %s", got)
	}
	id, err = f.Continue(t.Context(), hub.Continue{Host: "host-a", Session: "long", Seen: st.Version, By: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := f.Wait(t.Context(), id); err != nil || res.State != hub.StateApplied {
		t.Fatalf("a continue as seen: %+v, %v; want applied", res, err)
	}
	mirrored(t, f, "host-a", "long", func(st hub.SessionState) bool { return st.RunState == "proceeding" })
	if _, err := f.Continue(t.Context(), hub.Continue{Host: "host-a"}); err == nil {
		t.Fatal("a continue naming no session was sent")
	}
}
