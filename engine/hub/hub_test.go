package hub_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/hub"
)

// asking is a model that asks to confirm a command, then says it is done.
func asking(details string) engine.Provider {
	args, _ := json.Marshal(map[string]string{"kind": "confirm", "message": "Potentially dangerous command", "details": details})
	return engine.NewScriptedProvider([]engine.ScriptTurn{
		{Text: "Cleaning up.", ToolCalls: []engine.ScriptCall{{Name: "ask", Args: args}}},
		{Text: "Done."},
	})
}

type testHost struct {
	name string
	eng  *engine.Engine
	hub  *hub.Host
}

// startHost opens an engine attached to the hub at url as host name.
func startHost(t *testing.T, url, name string, p engine.Provider, opts ...engine.Option) *testHost {
	t.Helper()
	var h *hub.Host
	eng, err := engine.Open(t.Context(), append([]engine.Option{engine.WithProvider(p), engine.WithStore(t.TempDir() + "/store.db"),
		engine.WithAttachment(func(ctx context.Context, e *engine.Engine) (io.Closer, error) {
			var err error
			h, err = hub.Attach(e, hub.Config{URL: url, Host: name})
			return h, err
		})}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	waitCtx(t, func(ctx context.Context) error { return h.WaitConnected(ctx, true) })
	return &testHost{name: name, eng: eng, hub: h}
}

func waitCtx(t *testing.T, fn func(ctx context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if err := fn(ctx); err != nil {
		t.Fatal(err)
	}
}

func openFleet(t *testing.T, url string) *hub.Fleet {
	t.Helper()
	f, err := hub.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f
}

// eventually polls cond until it holds (20 s at most).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	eventuallyWithin(t, 20*time.Second, what, cond)
}

// eventuallyWithin polls cond until it holds, d at most.
func eventuallyWithin(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// mirrored returns the fleet's row of host's session id, once cond holds.
func mirrored(t *testing.T, f *hub.Fleet, host, id string, cond func(hub.SessionState) bool) hub.SessionState {
	t.Helper()
	var got hub.SessionState
	var lastErr error
	eventually(t, "session "+host+"/"+id+" mirrored as wanted", func() bool {
		all, err := f.Sessions(t.Context())
		if err != nil { // a connection the hub's restart broke: the next is new
			if lastErr != nil {
				t.Fatal(err)
			}
			lastErr = err
			return false
		}
		for _, st := range all {
			if st.Host == host && st.Session == id && cond(st) {
				got = st
				return true
			}
		}
		return false
	})
	return got
}

func paused(st hub.SessionState) bool { return st.Pause != nil && st.Status == "paused" }

// startAsking starts a run on a new session of h that waits at a confirm.
func startAsking(t *testing.T, h *testHost, opts engine.SessionOptions) (*engine.Session, <-chan engine.Outcome) {
	t.Helper()
	s, err := h.eng.NewSession(opts)
	if err != nil {
		t.Fatal(err)
	}
	_, done, err := s.Start(context.WithoutCancel(t.Context()), "clean up")
	if err != nil {
		t.Fatal(err)
	}
	return s, done
}

// The hub shows every host's sessions with their pauses as shown, each
// host connected, the transitions and audit entries; the URL's password and
// the sessions' environment values are nowhere in it.
func TestMirrorShowsEveryHostsSessions(t *testing.T) {
	t.Parallel()
	url := newDB(t)
	withPassword := strings.Replace(url, "postgres@", "postgres:hub-pass-s3cret@", 1)
	a := startHost(t, withPassword, "host-a", asking("rm -rf ./build"))
	b := startHost(t, withPassword, "host-b", asking("git push --force"))
	f := openFleet(t, url)
	sa, _ := startAsking(t, a, engine.SessionOptions{ID: "build", Environ: []string{"API_KEY=env-value-s3cret"}})
	startAsking(t, b, engine.SessionOptions{ID: "deploy"})

	stA := mirrored(t, f, "host-a", "build", paused)
	stB := mirrored(t, f, "host-b", "deploy", paused)
	if stA.Pause.Details != "rm -rf ./build" || stB.Pause.Details != "git push --force" {
		t.Fatalf("pauses as shown: %+v, %+v", stA.Pause, stB.Pause)
	}
	p, _ := sa.Pause()
	if stA.PauseDigest != hub.Digest(p) || stA.Pause.ID != p.ID || !stA.HostConnected || stA.RunState != "blocked" {
		t.Fatalf("host-a's session as mirrored: %+v; want pause %s with digest %s, host connected", stA, p.ID, hub.Digest(p))
	}
	hosts, err := f.Hosts(t.Context())
	if err != nil || len(hosts) != 2 || !hosts[0].Connected || !hosts[1].Connected {
		t.Fatalf("hosts: %+v, %v", hosts, err)
	}

	// A local answer is mirrored with its audit entry.
	if err := sa.Confirm(p.ID, false, engine.WithReason("not now"), engine.AnsweredBy("tui")); err != nil {
		t.Fatal(err)
	}
	mirrored(t, f, "host-a", "build", func(st hub.SessionState) bool { return st.Status == "idle" })
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var types string
	if err := conn.QueryRow(t.Context(), `SELECT string_agg(type, ' ' ORDER BY id) FROM interlock_events WHERE host = 'host-a'`).Scan(&types); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"run_started", "tool_started", "paused", "pause_answered", "tool_finished", "run_finished"} {
		if !strings.Contains(types, want) {
			t.Errorf("host-a's mirrored events %q lack %s", types, want)
		}
	}
	var audit string
	if err := conn.QueryRow(t.Context(), `SELECT string_agg(event || ':' || answer || ':' || by || ':' || reason, ' ' ORDER BY id) FROM interlock_audit WHERE host = 'host-a'`).Scan(&audit); err != nil {
		t.Fatal(err)
	}
	if audit != "raised::: answered:denied:tui:not now" {
		t.Errorf("host-a's mirrored audit: %q", audit)
	}

	// No credential anywhere in the hub's tables.
	var dump string
	if err := conn.QueryRow(t.Context(), `SELECT string_agg(t::text, ' ') FROM (
		SELECT to_jsonb(x)::text AS t FROM interlock_hosts x UNION ALL SELECT to_jsonb(x)::text FROM interlock_sessions x
		UNION ALL SELECT to_jsonb(x)::text FROM interlock_events x UNION ALL SELECT to_jsonb(x)::text FROM interlock_audit x) all_rows`).Scan(&dump); err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"hub-pass-s3cret", "env-value-s3cret"} {
		if strings.Contains(dump, secret) {
			t.Errorf("the hub's tables hold the secret %q", secret)
		}
	}
	if !strings.Contains(dump, "Potentially dangerous command") {
		t.Errorf("the dump of the hub's tables misses what it should hold: %.300s", dump)
	}
}

// An approval from the hub reaches the right host's tool, once: of two
// clients answering at once, one is applied and the other is told.
func TestAnswerFromHubAppliedOnce(t *testing.T) {
	t.Parallel()
	url := newDB(t)
	a := startHost(t, url, "host-a", asking("rm -rf ./build"))
	b := startHost(t, url, "host-b", asking("rm -rf ./build"))
	f := openFleet(t, url)
	_, doneA := startAsking(t, a, engine.SessionOptions{ID: "s"})
	sb, _ := startAsking(t, b, engine.SessionOptions{ID: "s"})
	st := mirrored(t, f, "host-a", "s", paused)
	mirrored(t, f, "host-b", "s", paused)

	var wg sync.WaitGroup
	ids := make([]int64, 2)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Go(func() { ids[i], errs[i] = f.Answer(t.Context(), hub.AnswerOf(st, true, []string{"alice", "bob"}[i])) })
	}
	wg.Wait()
	won := 0
	if errors.Is(errs[1], hub.ErrAlreadyAnswered) {
		won = 0
	} else if errors.Is(errs[0], hub.ErrAlreadyAnswered) {
		won = 1
	} else {
		t.Fatalf("two answers to one pause: %v, %v; want one told ErrAlreadyAnswered", errs[0], errs[1])
	}
	if errs[won] != nil {
		t.Fatal(errs[won])
	}
	res, err := f.Wait(t.Context(), ids[won])
	if err != nil || res.State != hub.StateApplied {
		t.Fatalf("the winning answer: %+v, %v", res, err)
	}
	select {
	case out := <-doneA:
		if out.Err != nil {
			t.Fatal(out.Err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("host-a's run did not continue after the hub's approval")
	}
	h := a.eng.Sessions()[0].History()
	if got := h[2].Text; got != "approved" {
		t.Fatalf("host-a's tool got %q, want approved", got)
	}
	if sb.Status() != engine.StatusPaused {
		t.Fatalf("host-b's session with the same id was answered too: %s", sb.Status())
	}
	log, _ := a.eng.AuditLog(t.Context(), "s")
	if last := log[len(log)-1]; last.Event != "answered" || last.By != []string{"alice", "bob"}[won] {
		t.Fatalf("host-a's audit log ends with %+v", last)
	}
}

// An answer to a pause answered meanwhile (stale), one changed from what
// was shown (altered), and one whose host did not take it in time
// (expired) are refused with a reason, in the hub's audit log and the
// host's.
func TestStaleAlteredExpiredAnswersRefused(t *testing.T) {
	t.Parallel()
	url := newDB(t)
	a := startHost(t, url, "host-a", asking("rm -rf ./build"))
	f := openFleet(t, url)

	s1, _ := startAsking(t, a, engine.SessionOptions{ID: "stale"})
	st := mirrored(t, f, "host-a", "stale", paused)
	if err := s1.Confirm(st.Pause.ID, false); err != nil { // answered locally first
		t.Fatal(err)
	}
	refusedWith(t, f, hub.AnswerOf(st, true, "alice"), hub.CodeStale)

	s2, _ := startAsking(t, a, engine.SessionOptions{ID: "altered"})
	st = mirrored(t, f, "host-a", "altered", paused)
	altered := hub.AnswerOf(st, true, "alice")
	altered.Digest = hub.Digest(engine.Pause{ID: st.Pause.ID, Kind: engine.PauseConfirm, Details: "rm -rf ./src"})
	refusedWith(t, f, altered, hub.CodeAltered)
	if s2.Status() != engine.StatusPaused {
		t.Fatalf("the altered answer released the pause: %s", s2.Status())
	}

	offline := hub.AnswerOf(st, true, "alice")
	offline.Host, offline.TTL = "host-gone", 100*time.Millisecond
	refusedWith(t, f, offline, hub.CodeExpired)
	// An expired answer nobody asked about does not hold its pause: the
	// next answer to it is taken.
	offline.Pause = "p-next"
	if _, err := f.Answer(t.Context(), offline); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	eventually(t, "the untaken answer expired", func() bool {
		var expired bool
		conn.QueryRow(t.Context(), `SELECT bool_and(expires_at <= clock_timestamp()) FROM interlock_commands WHERE pause = 'p-next'`).Scan(&expired)
		return expired
	})
	if _, err := f.Answer(t.Context(), offline); err != nil {
		t.Fatalf("an answer after an untaken one expired: %v", err)
	}

	local, err := a.eng.AuditLog(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	var refusals []string
	for _, e := range local {
		if e.Event == "refused" {
			refusals = append(refusals, strings.SplitN(e.Reason, ":", 2)[0])
		}
	}
	if strings.Join(refusals, " ") != "stale altered" {
		t.Fatalf("host-a's audit log refusals: %v", refusals)
	}
}

func refusedWith(t *testing.T, f *hub.Fleet, a hub.Answer, code string) {
	t.Helper()
	id, err := f.Answer(t.Context(), a)
	if err != nil {
		t.Fatal(err)
	}
	res, err := f.Wait(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if res.State != hub.StateRefused || res.Code != code || res.Message == "" {
		t.Fatalf("answer %+v: %+v; want refused %s with a reason", a, res, code)
	}
	t.Logf("refused %s: %s", code, res.Message)
}

// An approval from the hub that remembers (scope session) is applied with
// its scope; the grant it adds is in the hub's audit log, and the next
// confirm of the same key is approved by it without asking.
func TestRememberedApprovalFromHubMirrored(t *testing.T) {
	t.Parallel()
	url := newDB(t)
	deploy := engine.ToolFunc(func(ctx context.Context, c engine.ToolCall, env *engine.Env) (engine.Result, error) {
		ans, err := env.Pause(ctx, engine.PauseRequest{Kind: engine.PauseConfirm, Message: "Deploy api?", RememberKey: "deploy api to production"})
		if err != nil || !ans.Approved() {
			return engine.Result{Output: "not deployed", IsError: true}, err
		}
		return engine.Result{Output: "deployed by " + ans.By}, nil
	})
	var h *hub.Host
	eng, err := engine.Open(t.Context(), engine.WithTool("deploy", deploy), engine.WithStore(t.TempDir()+"/s.db"),
		engine.WithProvider(engine.NewScriptedProvider([]engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{{Name: "deploy"}}}, {ToolCalls: []engine.ScriptCall{{Name: "deploy"}}}, {Text: "Done."}})),
		engine.WithAttachment(func(ctx context.Context, e *engine.Engine) (io.Closer, error) {
			var err error
			h, err = hub.Attach(e, hub.Config{URL: url, Host: "host-a"})
			return h, err
		}))
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	f := openFleet(t, url)
	s, _ := eng.NewSession(engine.SessionOptions{ID: "s"})
	_, done, err := s.Start(context.WithoutCancel(t.Context()), "deploy twice")
	if err != nil {
		t.Fatal(err)
	}
	st := mirrored(t, f, "host-a", "s", paused)
	a := hub.AnswerOf(st, true, "alice")
	a.Remember = engine.RememberSession
	id, err := f.Answer(t.Context(), a)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := f.Wait(t.Context(), id); err != nil || res.State != hub.StateApplied {
		t.Fatalf("the remembering approval: %+v, %v", res, err)
	}
	select {
	case out := <-done:
		if out.Err != nil {
			t.Fatal(out.Err)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("the run did not end: %s, pauses %v", s.Status(), s.Pauses())
	}
	var results []string
	for _, m := range s.History() {
		if m.Role == engine.RoleTool {
			results = append(results, m.Text)
		}
	}
	if strings.Join(results, ", ") != "deployed by alice, deployed by grant" {
		t.Fatalf("the two deploys: %v", results)
	}
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var audit string
	eventually(t, "the grant in the hub's audit log", func() bool {
		conn.QueryRow(t.Context(), `SELECT string_agg(event || ':' || kind || ':' || message || ':' || by, ' ' ORDER BY id) FROM interlock_audit`).Scan(&audit)
		return strings.Contains(audit, "granted")
	})
	for _, want := range []string{"answered:confirm:Deploy api?:alice", "grant added:session:deploy api to production:", "granted:confirm:deploy api to production:grant"} {
		if !strings.Contains(audit, want) {
			t.Errorf("the hub's audit log %q lacks %q", audit, want)
		}
	}
}
