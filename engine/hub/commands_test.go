package hub_test

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/bash"
	"github.com/interlock-dev/interlock/engine/hub"
	"github.com/interlock-dev/interlock/engine/store"
)

// grantHost is a host whose "deploy" tool asks to confirm, rememberable
// for the project; remember approves it so in a new session under root.
type grantHost struct {
	name string
	eng  *engine.Engine
	hub  *hub.Host
	url  string
}

func startGrantHost(t *testing.T, url, name string) *grantHost {
	t.Helper()
	deploy := engine.ToolFunc(func(ctx context.Context, _ engine.ToolCall, env *engine.Env) (engine.Result, error) {
		res, err := env.Pause(ctx, engine.PauseRequest{Kind: engine.PauseConfirm, Tool: "deploy", Message: "Deploy?", Details: "deploy api",
			RememberKey: "deploy api", RememberScopes: []string{engine.RememberProject}})
		return engine.Result{Output: string(res.Answer)}, err
	})
	turns := []engine.ScriptTurn{}
	for range 4 {
		turns = append(turns, engine.ScriptTurn{ToolCalls: []engine.ScriptCall{{Name: "deploy"}}}, engine.ScriptTurn{Text: "deployed"})
	}
	h := startHost(t, url, name, engine.NewScriptedProvider(turns), engine.WithTool("deploy", deploy))
	return &grantHost{name: name, url: url, eng: h.eng, hub: h.hub}
}

// remember approves deploy for the project root, on the host itself.
func (g *grantHost) remember(t *testing.T, root string) {
	t.Helper()
	s, err := g.eng.NewSession(engine.SessionOptions{Dir: root})
	if err != nil {
		t.Fatal(err)
	}
	_, done, err := s.Start(context.WithoutCancel(t.Context()), "ship it")
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "the deploy confirm", func() bool { _, ok := s.Pause(); return ok })
	p, _ := s.Pause()
	if err := s.Confirm(p.ID, true, engine.Remember(engine.RememberProject)); err != nil {
		t.Fatal(err)
	}
	if out := <-done; out.Err != nil {
		t.Fatal(out.Err)
	}
}

// holds reports whether the host's engine remembers deploy for root.
func (g *grantHost) holds(t *testing.T, root string) bool {
	t.Helper()
	gs, err := g.eng.Grants(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return slices.ContainsFunc(gs, func(x engine.Grant) bool {
		return x.Tool == "deploy" && x.Root == root && x.Scope == engine.RememberProject
	})
}

// listed reports whether the fleet lists host's deploy grant for root.
func listed(t *testing.T, f *hub.Fleet, host, root string) bool {
	t.Helper()
	gs, err := f.Grants(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return slices.ContainsFunc(gs, func(x hub.HostGrant) bool { return x.Host == host && x.Tool == "deploy" && x.Root == root })
}

func result(t *testing.T, f *hub.Fleet, id int64, err error) hub.Result {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	res, err := f.Wait(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// expiredWhileOffline waits until command id, sent to a host that is
// offline with a short TTL, is refused as expired.
func expiredWhileOffline(t *testing.T, f *hub.Fleet, id int64, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	var res hub.Result
	eventually(t, "the command expired", func() bool {
		res, err = f.Result(t.Context(), id)
		return err != nil || res.State != hub.StatePending
	})
	if err != nil || res.State != hub.StateRefused || res.Code != hub.CodeExpired {
		t.Fatalf("a command whose host was offline past its expiry: %+v, %v; want refused, expired", res, err)
	}
}

// A revoke from the hub takes back the approval its host remembers for a
// project, and nothing of another host's: two hosts hold the same grant
// (the same tool, key and project root, as two checkouts at one path do);
// the revoke sent to host-b leaves host-a's in its engine and in the
// fleet's list. Of two revokes at once one is applied and the other told
// unknown_grant; one that expired while its host was offline is never
// applied. The audit logs (the host's, the hub's) say who revoked it.
func TestRevokeFromHub(t *testing.T) {
	t.Parallel()
	url := newDB(t)
	a := startGrantHost(t, url, "host-a")
	b := startGrantHost(t, url, "host-b")
	f := openFleet(t, url)
	root, other := t.TempDir(), t.TempDir()
	a.remember(t, root)
	b.remember(t, root)
	b.remember(t, other)
	eventually(t, "the three grants listed", func() bool {
		return listed(t, f, "host-a", root) && listed(t, f, "host-b", root) && listed(t, f, "host-b", other)
	})

	// Two revokes of host-b's grant at once, sent while it is offline: it
	// takes both together when it is back; one is applied, the other told.
	b.hub.Close()
	var wg sync.WaitGroup
	ids := map[string]int64{}
	var mu sync.Mutex
	for _, by := range []string{"alice", "bob"} {
		wg.Go(func() {
			id, err := f.Revoke(t.Context(), hub.Revoke{Host: "host-b", Tool: "deploy", Key: "deploy api", Root: root, By: by})
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			ids[by] = id
			mu.Unlock()
		})
	}
	wg.Wait()
	hb, err := hub.Attach(b.eng, hub.Config{URL: url, Host: "host-b"})
	if err != nil {
		t.Fatal(err)
	}
	defer hb.Close()
	won, lost := "alice", "bob"
	if r := result(t, f, ids["bob"], nil); r.State == hub.StateApplied {
		won, lost = lost, won
	}
	if r := result(t, f, ids[won], nil); r.State != hub.StateApplied {
		t.Fatalf("of two revokes at once, none applied: %s's is %+v", won, r)
	}
	if r := result(t, f, ids[lost], nil); r.State != hub.StateRefused || r.Code != hub.CodeUnknownGrant {
		t.Fatalf("two revokes at once: %s's applied, %s's %+v; want refused unknown_grant", won, lost, r)
	}
	if b.holds(t, root) || !b.holds(t, other) {
		t.Fatal("host-b: the revoked grant is held, or the other project's is not")
	}
	if !a.holds(t, root) {
		t.Fatal("a revoke sent to host-b took host-a's grant")
	}
	eventually(t, "host-b's revoked grant no longer listed", func() bool { return !listed(t, f, "host-b", root) })
	if !listed(t, f, "host-a", root) || !listed(t, f, "host-b", other) {
		t.Fatal("the fleet no longer lists host-a's grant or host-b's other one")
	}
	audit, err := f.Audit(t.Context(), 50)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(audit, func(e hub.AuditEntry) bool { return e.Event == "grant revoked" })
	if i < 0 || audit[i].Host != "host-b" || audit[i].Reason != root || audit[i].By != won {
		t.Fatalf("the hub's audit log: %+v; want host-b's grant revoked, by %s", audit, won)
	}
	log, err := b.eng.AuditLog(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(log, func(e store.AuditEntry) bool { return e.Event == "grant revoked" && e.By == won && e.Reason == root }) ||
		!slices.ContainsFunc(log, func(e store.AuditEntry) bool { return e.Event == "refused" && e.Kind == "revoke" && e.By == lost }) {
		t.Fatalf("host-b's own audit log: %+v; want the revoke by %s, and %s's refused", log, won, lost)
	}

	// host-a offline: a revoke that expires before it is back is never applied.
	a.hub.Close()
	id, err := f.Revoke(t.Context(), hub.Revoke{Host: "host-a", Tool: "deploy", Key: "deploy api", Root: root, By: "alice", TTL: 100 * time.Millisecond})
	expiredWhileOffline(t, f, id, err)
	h2, err := hub.Attach(a.eng, hub.Config{URL: url, Host: "host-a"})
	if err != nil {
		t.Fatal(err)
	}
	defer h2.Close()
	id, err = f.Revoke(t.Context(), hub.Revoke{Host: "host-a", Tool: "deploy", Key: "deploy api", Root: other, By: "alice"})
	if r := result(t, f, id, err); r.Code != hub.CodeUnknownGrant { // taken after any earlier one
		t.Fatalf("a revoke of a grant host-a never had (host-b's): %+v; want unknown_grant", r)
	}
	if !b.holds(t, other) {
		t.Fatal("a revoke sent to host-a took host-b's grant")
	}
	if !a.holds(t, root) {
		t.Fatal("host-a applied a revoke that had expired while it was offline")
	}
	if _, err := f.Revoke(t.Context(), hub.Revoke{Host: "host-a", Tool: "deploy"}); err == nil {
		t.Fatal("a revoke naming no key nor root was sent")
	}
}

// A stop from the hub stops the session it names on its host, as a user's
// Stop does, and is applied once the session's process trees are gone;
// the session of the same id on another host runs on. A session that runs
// nothing, one the host does not have, and a stop that expired while its
// host was offline are refused.
func TestStopFromHub(t *testing.T) {
	t.Parallel()
	url := newDB(t)
	open := func(name, marker string) (*engine.Engine, *hub.Host, *engine.Session) {
		// The command ignores SIGTERM: its tree is gone only at the SIGKILL
		// after the bash tool's grace, which the stop waits for.
		script, _ := json.Marshal([]engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{{Name: "bash", Args: json.RawMessage(`{"command": "trap '' TERM; sleep ` + marker + `"}`)}}}, {Text: "Done."}})
		turns, _ := engine.ParseScript(script)
		h := startHost(t, url, name, engine.NewScriptedProvider(turns), engine.WithTool("bash", bash.New()))
		eng := h.eng
		s, err := eng.NewSession(engine.SessionOptions{ID: "job"})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.Start(context.WithoutCancel(t.Context()), "sleep"); err != nil {
			t.Fatal(err)
		}
		return eng, h.hub, s
	}
	const markerA, markerB = "3017.41", "3017.42"
	engA, _, sa := open("host-a", markerA)
	engB, hubB, sb := open("host-b", markerB)
	f := openFleet(t, url)
	eventually(t, "both commands running", func() bool { return len(running(markerA)) == 1 && len(running(markerB)) == 1 })

	id, err := f.Interrupt(t.Context(), hub.Interrupt{Host: "host-a", Session: "job", By: "alice"})
	if r := result(t, f, id, err); r.State != hub.StateApplied {
		t.Fatalf("a stop of a running session: %+v; want applied", r)
	}
	if left := running(markerA); len(left) != 0 {
		t.Fatalf("applied, but host-a's command still runs: %v", left)
	}
	if r := sa.Snapshot(); r.Interruption == nil || r.Interruption.Reason != engine.ReasonUserStop {
		t.Fatalf("host-a's session after the stop: %+v", r)
	}
	if len(running(markerB)) != 1 || sb.Status() != engine.StatusRunning {
		t.Fatalf("a stop sent to host-a stopped host-b's session of the same id: %s", sb.Status())
	}
	mirrored(t, f, "host-a", "job", func(st hub.SessionState) bool { return st.RunState == "interrupted" })
	// Who stopped it is in the hub's audit log and in the host's.
	audit, err := f.Audit(t.Context(), 50)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(audit, func(e hub.AuditEntry) bool {
		return e.Event == hub.StateApplied && e.Kind == "stop" && e.Host == "host-a" && e.Session == "job" && e.By == "alice"
	}) {
		t.Fatalf("the hub's audit log: %+v; want host-a's stop of job, by alice", audit)
	}
	log, err := engA.AuditLog(t.Context(), "job")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(log, func(e store.AuditEntry) bool {
		return e.Event == hub.StateApplied && e.Kind == "stop" && e.By == "alice"
	}) {
		t.Fatalf("host-a's own audit log: %+v; want the stop by alice", log)
	}
	for _, c := range []struct {
		i    hub.Interrupt
		code string
	}{
		{hub.Interrupt{Host: "host-a", Session: "job"}, hub.CodeNotRunning},
		{hub.Interrupt{Host: "host-a", Session: "nope"}, hub.CodeUnknownSession},
	} {
		id, err := f.Interrupt(t.Context(), c.i)
		if r := result(t, f, id, err); r.State != hub.StateRefused || r.Code != c.code {
			t.Fatalf("stop %+v: %+v; want refused, %s", c.i, r, c.code)
		}
	}

	// host-b offline: a stop that expires before it is back is never applied.
	hubB.Close()
	id, err = f.Interrupt(t.Context(), hub.Interrupt{Host: "host-b", Session: "job", TTL: 100 * time.Millisecond})
	expiredWhileOffline(t, f, id, err)
	h2, err := hub.Attach(engB, hub.Config{URL: url, Host: "host-b"})
	if err != nil {
		t.Fatal(err)
	}
	defer h2.Close()
	id, err = f.Interrupt(t.Context(), hub.Interrupt{Host: "host-b", Session: "nope"})
	if r := result(t, f, id, err); r.Code != hub.CodeUnknownSession { // taken after any earlier one
		t.Fatalf("stop of an unknown session: %+v", r)
	}
	if sb.Status() != engine.StatusRunning || len(running(markerB)) != 1 {
		t.Fatalf("host-b applied a stop that had expired while it was offline: %s", sb.Status())
	}
	id, err = f.Interrupt(t.Context(), hub.Interrupt{Host: "host-b", Session: "job"})
	if r := result(t, f, id, err); r.State != hub.StateApplied || len(running(markerB)) != 0 {
		t.Fatalf("the stop of host-b's session: %+v, commands left %v", r, running(markerB))
	}
}

// A prompt from the hub starts a run of the session it names, only at the
// version its client saw (else stale) and when the session can take one
// (else not_eligible); one that expired while its host was offline is
// never applied.
func TestPromptFromHub(t *testing.T) {
	t.Parallel()
	url := newDB(t)
	args, _ := json.Marshal(map[string]int{"ms": 60_000})
	sleep := engine.ScriptTurn{ToolCalls: []engine.ScriptCall{{Name: "sleep", Args: args}}}
	h := startHost(t, url, "host-a", engine.NewScriptedProvider([]engine.ScriptTurn{sleep, {Text: "slept"}}))
	f := openFleet(t, url)
	s, err := h.eng.NewSession(engine.SessionOptions{ID: "chat"})
	if err != nil {
		t.Fatal(err)
	}
	v := s.Version()
	send := func(seen uint64, text string) hub.Result {
		id, err := f.Prompt(t.Context(), hub.Prompt{Host: "host-a", Session: "chat", Text: text, Seen: seen, By: "alice"})
		return result(t, f, id, err)
	}
	if r := send(v+1, "hello"); r.Code != hub.CodeStale {
		t.Fatalf("a prompt at another version: %+v; want stale", r)
	}
	if r := send(v, "sleep"); r.State != hub.StateApplied {
		t.Fatalf("a prompt as seen: %+v; want applied", r)
	}
	mirrored(t, f, "host-a", "chat", func(st hub.SessionState) bool { return st.RunState == "proceeding" })
	if r := send(s.Version(), "again"); r.Code != hub.CodeNotEligible {
		t.Fatalf("a prompt to a running session: %+v; want not_eligible", r)
	}
	if err := s.InterruptWait(t.Context(), ""); err != nil {
		t.Fatal(err)
	}
	h.hub.Close()
	id, err := f.Prompt(t.Context(), hub.Prompt{Host: "host-a", Session: "chat", Text: "late", Seen: s.Version(), TTL: 100 * time.Millisecond})
	expiredWhileOffline(t, f, id, err)
	h2, err := hub.Attach(h.eng, hub.Config{URL: url, Host: "host-a"})
	if err != nil {
		t.Fatal(err)
	}
	defer h2.Close()
	id, err = f.Prompt(t.Context(), hub.Prompt{Host: "host-a", Session: "nope", Text: "hi"})
	if r := result(t, f, id, err); r.Code != hub.CodeUnknownSession { // taken after any earlier one
		t.Fatalf("a prompt to an unknown session: %+v", r)
	}
	if got := s.History(); slices.ContainsFunc(got, func(m engine.Message) bool { return m.Text == "late" }) {
		t.Fatal("host-a applied a prompt that had expired while it was offline")
	}
	if _, err := f.Prompt(t.Context(), hub.Prompt{Host: "host-a", Session: "chat"}); err == nil {
		t.Fatal("a prompt with no text was sent")
	}
}
