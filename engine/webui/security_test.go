package webui_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/webui"
)

// profiles holds every browser profile the tests create, so TestMain can
// tell our Chromium processes from anybody else's.
var profiles string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "interlock-webui-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	profiles = dir
	code := m.Run()
	stopHubCluster()
	if code == 0 {
		// A refused body left unread makes net/http wait 500 ms before it closes the connection.
		if err := goleak.Find(goleak.IgnoreAnyFunction("net/http.(*conn).closeWriteAndWait")); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
		if pids := chromiumUsing(dir); len(pids) > 0 {
			fmt.Fprintf(os.Stderr, "chromium processes left running with a profile in %s: %v\n", dir, pids)
			code = 1
		}
	}
	for _, pid := range chromiumUsing(dir) { // a failed run must not leave browsers behind
		syscall.Kill(pid, syscall.SIGKILL)
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// chromiumUsing lists the processes whose command line names a profile in dir.
func chromiumUsing(dir string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmd, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && bytes.Contains(cmd, []byte("--user-data-dir="+dir+"/")) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func TestEveryRequestNeedsTheToken(t *testing.T) {
	t.Parallel()
	e := newEngine(t)
	srv := serve(t, e)
	base := strings.Split(srv.URL(), "/?")[0]
	get := func(path string, headers map[string]string) *http.Response {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+path, nil)
		require.NoError(t, err)
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		res.Body.Close()
		return res
	}
	for _, path := range []string{"/api/state", "/api/events", "/api/history?session=s1", "/api/state?token=" + tokenOf(t, srv)[:10], "/?token=wrong-token-0000000000"} {
		assert.Equal(t, http.StatusUnauthorized, get(path, nil).StatusCode, path)
	}
	assert.Equal(t, http.StatusUnauthorized, get("/api/state", map[string]string{"Authorization": "Bearer nope"}).StatusCode)

	// The page holds no data: it loads without the token, and with the
	// printed URL, which sets no cookie (cookies ignore ports: one would go
	// to every server on 127.0.0.1) and says to send no Referer.
	for _, path := range []string{"/", "/app.js"} {
		assert.Equal(t, http.StatusOK, get(path, nil).StatusCode, path)
	}
	res := get(strings.TrimPrefix(srv.URL(), base), nil)
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.Empty(t, res.Cookies())
	assert.Equal(t, "no-referrer", res.Header.Get("Referrer-Policy"))

	// The API takes the token as a bearer header (the page, scripts) or, on
	// a GET, in the query (the page's event stream).
	assert.Equal(t, http.StatusOK, get("/api/state", map[string]string{"Authorization": "Bearer " + tokenOf(t, srv)}).StatusCode)
	assert.Equal(t, http.StatusOK, get("/api/state?token="+tokenOf(t, srv), nil).StatusCode)
	bare := &client{t: t, http: &http.Client{}, base: base}
	assert.Equal(t, http.StatusForbidden, bare.do(http.MethodPost, "/api/emergency-stop", map[string]any{}, map[string]string{"Origin": ""}).Status)
	assert.Equal(t, http.StatusUnauthorized, bare.do(http.MethodPost, "/api/emergency-stop", map[string]any{}, nil).Status, "a POST from the page's origin without the token")
}

func TestForeignHostOrOriginIsRefused(t *testing.T) {
	t.Parallel()
	e := newEngine(t)
	s := newSession(t, e, "busy", engine.ScriptTurn{ToolCalls: []engine.ScriptCall{sleepFor(600000)}})
	sub := s.Subscribe()
	defer sub.Close()
	_, _, err := s.Start(t.Context(), "go")
	require.NoError(t, err)
	waitEvent(t, sub, isType(engine.EventToolStarted))
	srv := serve(t, e)
	c := newClient(t, srv)
	port := srv.Addr().String()[strings.LastIndex(srv.Addr().String(), ":"):]

	tests := []struct {
		name    string
		method  string
		headers map[string]string
	}{
		{"DNS rebinding: a foreign Host", http.MethodGet, map[string]string{"Host": "evil.example" + port}},
		{"foreign Host on a POST", http.MethodPost, map[string]string{"Host": "evil.example" + port}},
		{"right name, other port", http.MethodGet, map[string]string{"Host": "127.0.0.1:1"}},
		{"foreign Origin", http.MethodPost, map[string]string{"Origin": "http://evil.example"}},
		{"foreign Origin on a GET", http.MethodGet, map[string]string{"Origin": "https://evil.example"}},
		{"null Origin", http.MethodPost, map[string]string{"Origin": "null"}},
		{"cross-site fetch metadata", http.MethodPost, map[string]string{"Sec-Fetch-Site": "cross-site"}},
		{"POST without Origin or bearer token", http.MethodPost, map[string]string{"Origin": "", "Authorization": ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := "/api/state"
			if tt.method == http.MethodPost {
				path = "/api/emergency-stop"
			}
			r := c.do(tt.method, path, map[string]any{}, tt.headers)
			assert.Equal(t, http.StatusForbidden, r.Status, "%v", r.Body)
		})
	}
	assert.Equal(t, engine.RunProceeding, s.RunState(), "no refused request stopped anything")
	r := c.do(http.MethodGet, "/api/state", nil, map[string]string{"Host": "localhost" + port, "Authorization": "Bearer " + tokenOf(t, srv)})
	assert.Equal(t, http.StatusOK, r.Status, "localhost is this server too: %v", r.Body)
}

func TestNonLoopbackNeedsAnExplicitOptionAndWarns(t *testing.T) {
	t.Parallel()
	e := newEngine(t)
	_, err := webui.Serve(t.Context(), e, webui.WithAddr("0.0.0.0:0"))
	require.ErrorIs(t, err, webui.ErrNonLoopback)
	_, err = webui.Serve(t.Context(), e, webui.WithToken("short"))
	require.ErrorIs(t, err, webui.ErrWeakToken)

	var mu sync.Mutex
	var logged []string
	srv := serve(t, e, webui.WithAddr("0.0.0.0:0"), webui.AllowRemote(), webui.WithLogf(func(f string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		logged = append(logged, f)
	}))
	mu.Lock()
	require.Len(t, logged, 1)
	assert.Contains(t, logged[0], "WARNING")
	mu.Unlock()
	assert.Equal(t, http.StatusOK, newClient(t, srv).do(http.MethodGet, "/api/state", nil, nil).Status)
}

func TestAnswerFromTwoClientsAtOnceIsAppliedOnce(t *testing.T) {
	t.Parallel()
	e := newEngine(t)
	s := newSession(t, e, "s", engine.ScriptTurn{ToolCalls: []engine.ScriptCall{ask(engine.PauseConfirm, "Run it?", "rm -rf build")}}, engine.ScriptTurn{Text: "ok"})
	sub := s.Subscribe()
	defer sub.Close()
	_, out, err := s.Start(t.Context(), "go")
	require.NoError(t, err)
	ev := waitEvent(t, sub, isType(engine.EventPaused))
	srv := serve(t, e)
	a, b := newClient(t, srv), newClient(t, srv)
	epoch := a.state().Epoch
	body := map[string]any{"epoch": epoch, "version": ev.Version, "pause_id": ev.Pause.ID, "answer": "approved"}

	var wg sync.WaitGroup
	replies := make([]reply, 2)
	for i, c := range []*client{a, b} {
		wg.Go(func() { replies[i] = c.do(http.MethodPost, "/api/answer?session=s", body, nil) })
	}
	wg.Wait()
	statuses := []int{replies[0].Status, replies[1].Status}
	assert.ElementsMatch(t, []int{http.StatusOK, http.StatusConflict}, statuses)
	for _, r := range replies {
		if r.Status == http.StatusConflict {
			assert.Equal(t, webui.CodeAlreadyAnswered, r.Body["code"])
			assert.Contains(t, r.Body["error"], "Already answered")
		}
	}
	o := <-out
	require.NoError(t, o.Err)
	answered := 0
	for _, m := range s.History() {
		if m.Role == engine.RoleTool && strings.Contains(m.Text, "approved") {
			answered++
		}
	}
	assert.Equal(t, 1, answered, "the tool got exactly one answer: %v", s.History())
}

func TestStaleTabCannotAnswerANewerPause(t *testing.T) {
	t.Parallel()
	e := newEngine(t)
	s := newSession(t, e, "s",
		engine.ScriptTurn{ToolCalls: []engine.ScriptCall{ask(engine.PauseConfirm, "first", "echo 1")}},
		engine.ScriptTurn{ToolCalls: []engine.ScriptCall{ask(engine.PauseConfirm, "second", "rm -rf /")}},
		engine.ScriptTurn{Text: "done"})
	sub := s.Subscribe()
	defer sub.Close()
	_, out, err := s.Start(t.Context(), "go")
	require.NoError(t, err)
	first := waitEvent(t, sub, isType(engine.EventPaused))
	srv := serve(t, e)
	c := newClient(t, srv)
	epoch := c.state().Epoch
	answer := func(version uint64, pauseID, epoch string) reply {
		return c.do(http.MethodPost, "/api/answer?session=s", map[string]any{"epoch": epoch, "version": version, "pause_id": pauseID, "answer": "approved"}, nil)
	}
	require.Equal(t, http.StatusOK, answer(first.Version, first.Pause.ID, epoch).Status)
	second := waitEvent(t, sub, isType(engine.EventPaused))

	tests := []struct {
		name    string
		version uint64
		pauseID string
		epoch   string
		code    string
	}{
		{"the old pause id again", second.Version, first.Pause.ID, epoch, webui.CodeAlreadyAnswered},
		{"a tab that has not seen the new pause", first.Version, second.Pause.ID, epoch, webui.CodeStale},
		{"a tab from before a server restart", second.Version, second.Pause.ID, "old-epoch", webui.CodeStale},
		{"no pause id", second.Version, "", epoch, webui.CodeBadRequest},
	}
	for _, tt := range tests {
		r := answer(tt.version, tt.pauseID, tt.epoch)
		assert.NotEqual(t, http.StatusOK, r.Status, tt.name)
		assert.Equal(t, tt.code, r.Body["code"], "%s: %v", tt.name, r.Body)
	}
	p, ok := s.Pause()
	require.True(t, ok, "the newer pause is still pending")
	assert.Equal(t, second.Pause.ID, p.ID)
	require.Equal(t, http.StatusOK, answer(second.Version, second.Pause.ID, epoch).Status)
	require.NoError(t, (<-out).Err)
}

func TestContinueNeedsTheVersionTheTabSaw(t *testing.T) {
	t.Parallel()
	e := newEngine(t)
	s := newSession(t, e, "s", engine.ScriptTurn{ToolCalls: []engine.ScriptCall{sleepFor(600000)}}, engine.ScriptTurn{Text: "resumed"})
	sub := s.Subscribe()
	defer sub.Close()
	srv := serve(t, e)
	c := newClient(t, srv)
	epoch := c.state().Epoch
	assert.Equal(t, webui.CodeNotRunning, c.do(http.MethodPost, "/api/stop?session=s", nil, nil).Body["code"])
	require.Equal(t, http.StatusOK, c.do(http.MethodPost, "/api/prompt?session=s", map[string]any{"text": "go"}, nil).Status)
	waitEvent(t, sub, isType(engine.EventToolStarted))
	require.Equal(t, http.StatusOK, c.do(http.MethodPost, "/api/stop?session=s", nil, nil).Status)
	ev := waitEvent(t, sub, isType(engine.EventInterrupted))
	assert.Equal(t, engine.ReasonUserStop, ev.Reason)

	r := c.do(http.MethodPost, "/api/continue?session=s", map[string]any{"epoch": epoch, "version": ev.Version - 1}, nil)
	assert.Equal(t, webui.CodeStale, r.Body["code"], "%v", r.Body)
	r = c.do(http.MethodPost, "/api/continue?session=s", map[string]any{"epoch": epoch, "version": ev.Version}, nil)
	require.Equal(t, http.StatusOK, r.Status, "%v", r.Body)
	waitEvent(t, sub, isType(engine.EventRunFinished))
	r = c.do(http.MethodPost, "/api/continue?session=s", map[string]any{"epoch": epoch, "version": s.Version()}, nil)
	assert.Equal(t, webui.CodeNotEligible, r.Body["code"], "continue twice: %v", r.Body)
	assert.Equal(t, webui.CodeUnknownSession, c.do(http.MethodPost, "/api/stop?session=nope", nil, nil).Body["code"])
	r = c.do(http.MethodPost, "/api/stop", nil, nil)
	assert.Equal(t, http.StatusBadRequest, r.Status)
	assert.Contains(t, r.Body["error"], "name the session as ?session=ID")
	r = c.do(http.MethodPost, "/api/sessions/s/stop", nil, nil)
	assert.Equal(t, http.StatusNotFound, r.Status)
	assert.Contains(t, r.Body["error"], "no such API")
}

// The token reaches no other server on 127.0.0.1: a dev server the agent
// runs on another port gets neither a cookie nor a Referer holding it when
// the browser that has the UI open visits it (a cookie would: cookies
// ignore ports), so it cannot answer its own pauses through the API.
func TestTokenReachesNoOtherLocalServer(t *testing.T) {
	t.Parallel()
	srv := serve(t, newEngine(t))
	seen := make(chan http.Header, 8)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- r.Header.Clone()
		io.WriteString(w, "<html><body>dev server</body></html>")
	}))
	defer other.Close()
	require.Contains(t, other.URL, "127.0.0.1")

	browser := startBrowser(t)
	tb := openTab(t, browser, srv.URL())
	assert.NotContains(t, tb.eval(`location.href`), "token", "the token is out of the address bar")
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.Navigate(other.URL+"/from-the-ui-tab")))
	other2, cancel := chromedp.NewContext(browser)
	defer cancel()
	require.NoError(t, chromedp.Do(other2, chromedp.Navigate(other.URL+"/new-tab")))
	token := tokenOf(t, srv)
	for range 2 {
		h := <-seen
		assert.NotContains(t, h.Get("Cookie"), token)
		assert.NotContains(t, h.Get("Referer"), token)
	}
}
