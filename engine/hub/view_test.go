package hub_test

import (
	"context"
	"encoding/json"
	"io"
	"testing"
	"time"

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

// An approval from the hub remembered for the project is listed by the
// fleet as the host's project grant, until the host revokes it.
func TestFleetListsProjectGrants(t *testing.T) {
	t.Parallel()
	url := newDB(t)
	deploy := engine.ToolFunc(func(ctx context.Context, _ engine.ToolCall, env *engine.Env) (engine.Result, error) {
		res, err := env.Pause(ctx, engine.PauseRequest{Kind: engine.PauseConfirm, Tool: "deploy", Message: "Deploy?", Details: "deploy api to production",
			RememberKey: "deploy api to production", RememberScopes: []string{engine.RememberProject}})
		return engine.Result{Output: string(res.Answer)}, err
	})
	var hh *hub.Host
	eng, err := engine.Open(t.Context(), engine.WithTool("deploy", deploy), engine.WithStore(t.TempDir()+"/store.db"),
		engine.WithProvider(engine.NewScriptedProvider([]engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{{Name: "deploy"}}}, {Text: "deployed"}})),
		engine.WithAttachment(func(_ context.Context, e *engine.Engine) (io.Closer, error) {
			var err error
			hh, err = hub.Attach(e, hub.Config{URL: url, Host: "host-a"})
			return hh, err
		}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	waitCtx(t, func(ctx context.Context) error { return hh.WaitConnected(ctx, true) })
	f := openFleet(t, url)
	project := t.TempDir()
	s, err := eng.NewSession(engine.SessionOptions{ID: "ship", Dir: project})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Start(context.WithoutCancel(t.Context()), "ship it"); err != nil {
		t.Fatal(err)
	}
	a := hub.AnswerOf(mirrored(t, f, "host-a", "ship", paused), true, "alice")
	a.Remember = engine.RememberProject
	id, err := f.Answer(t.Context(), a)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := f.Wait(t.Context(), id); err != nil || res.State != hub.StateApplied {
		t.Fatalf("a remembered approval: %+v, %v", res, err)
	}
	var grants []hub.HostGrant
	eventually(t, "the project grant listed by the fleet", func() bool {
		grants, err = f.Grants(t.Context())
		return err == nil && len(grants) == 1
	})
	if g := grants[0]; g.Host != "host-a" || g.Tool != "deploy" || g.Key != "deploy api to production" || g.Scope != engine.RememberProject || g.Root == "" {
		t.Fatalf("the fleet lists %+v", g)
	}
	if err := eng.RevokeGrant(t.Context(), grants[0].Grant); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the revoked grant no longer listed", func() bool {
		grants, err = f.Grants(t.Context())
		return err == nil && len(grants) == 0
	})
	audit, err := f.Audit(t.Context(), 10)
	if err != nil || len(audit) == 0 || audit[0].Event != "grant revoked" || audit[0].Host != "host-a" {
		t.Fatalf("the fleet's audit, newest first: %+v, %v", audit, err)
	}
}

// A session is listed by the fleet as soon as its host creates it, before
// it runs (it has no transition yet), idle.
func TestNewSessionMirroredBeforeItRuns(t *testing.T) {
	t.Parallel()
	url := newDB(t)
	h := startHost(t, url, "host-a", asking("ls"))
	f := openFleet(t, url)
	if _, err := h.eng.NewSession(engine.SessionOptions{ID: "fresh"}); err != nil {
		t.Fatal(err)
	}
	var st hub.SessionState
	eventuallyWithin(t, 3*time.Second, "the new session listed", func() bool {
		all, err := f.Sessions(t.Context())
		for _, s := range all {
			if s.Session == "fresh" {
				st = s
			}
		}
		return err == nil && st.Session == "fresh"
	})
	if st.Host != "host-a" || st.RunState != string(engine.RunIdle) || !st.HostConnected {
		t.Fatalf("the new session as the fleet lists it: %+v", st)
	}
}
