package webui_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/hub"
	"github.com/interlock-dev/interlock/engine/hub/pgtest"
	"github.com/interlock-dev/interlock/engine/webui"
)

// The fleet view's tests share one throwaway PostgreSQL server, started by
// the first that needs it and stopped by TestMain.
var (
	pgOnce    sync.Once
	pgCluster *pgtest.Cluster
	pgErr     error
	pgDBs     int
	pgMu      sync.Mutex
)

// newHubDB returns the URL of an empty database of the test cluster.
func newHubDB(t *testing.T) string {
	t.Helper()
	pgOnce.Do(func() { pgCluster, pgErr = pgtest.Start(context.Background()) })
	require.NoError(t, pgErr, "start PostgreSQL (make test installs it)")
	pgMu.Lock()
	pgDBs++
	name := fmt.Sprintf("fleetview%d", pgDBs)
	pgMu.Unlock()
	require.NoError(t, pgCluster.CreateDB(t.Context(), name))
	return pgCluster.URL(name)
}

func stopHubCluster() {
	if pgCluster != nil {
		pgCluster.Stop()
	}
}

// goHost is an engine attached to the hub as a fleet's host.
func goHost(t *testing.T, url, name string, opts ...engine.Option) *engine.Engine {
	t.Helper()
	var h *hub.Host
	e, err := engine.Open(t.Context(), append(opts, engine.WithAttachment(func(_ context.Context, e *engine.Engine) (io.Closer, error) {
		var err error
		h, err = hub.Attach(e, hub.Config{URL: url, Host: name, Heartbeat: 200 * time.Millisecond})
		return h, err
	}))...)
	require.NoError(t, err)
	t.Cleanup(func() { e.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	require.NoError(t, h.WaitConnected(ctx, true))
	return e
}

// rememberDeploy approves deploy (deployTool) on e for the project root, remembered.
func rememberDeploy(t *testing.T, e *engine.Engine, root string) {
	t.Helper()
	s, err := e.NewSession(engine.SessionOptions{ID: "ship", Dir: root, Provider: engine.NewScriptedProvider([]engine.ScriptTurn{
		{ToolCalls: []engine.ScriptCall{{Name: "deploy"}}}, {Text: "deployed"}})})
	require.NoError(t, err)
	_, done, err := s.Start(context.WithoutCancel(t.Context()), "ship it")
	require.NoError(t, err)
	require.Eventually(t, func() bool { _, ok := s.Pause(); return ok }, 10*time.Second, 5*time.Millisecond)
	p, _ := s.Pause()
	require.NoError(t, s.Confirm(p.ID, true, engine.Remember(engine.RememberProject)))
	require.NoError(t, (<-done).Err)
}

// nodeHost is a host process: Node running the engine through the addon
// (engine/hub/testdata/host.mjs), with one session asking to confirm
// "deploy <name> s0". Its stdout lines are kept.
type nodeHost struct {
	cmd    *exec.Cmd
	mu     sync.Mutex
	lines  []string
	exited chan struct{}
}

func startNodeHost(t *testing.T, url, name string, extra ...string) *nodeHost {
	t.Helper()
	addon, _ := filepath.Abs("../../build/Release/interlock.node")
	_, err := os.Stat(addon)
	require.NoError(t, err, "the addon is not built (make build)")
	cmd := exec.Command("node", append([]string{"../hub/testdata/host.mjs", url, name, filepath.Join(t.TempDir(), "store.db"), "1"}, extra...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	_, err = cmd.StdinPipe() // kept open: the host runs until killed
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	h := &nodeHost{cmd: cmd, exited: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			h.mu.Lock()
			h.lines = append(h.lines, sc.Text())
			h.mu.Unlock()
		}
		cmd.Wait()
		close(h.exited)
	}()
	t.Cleanup(h.kill)
	return h
}

func (h *nodeHost) said(sub string) bool { return h.line(sub) != "" }

// line returns the first line the host printed that holds sub, or "".
func (h *nodeHost) line(sub string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, l := range h.lines {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

func (h *nodeHost) kill() {
	h.cmd.Process.Signal(syscall.SIGKILL)
	<-h.exited
}

func row(host, session string) string {
	return fmt.Sprintf(`document.querySelector('#sessions li[data-host=%q][data-session=%q]')`, host, session)
}

// The fleet view in Chromium: the sessions of every host (Go engines and a
// Node host through the addon) with a host column, followed live; an
// approval clicked in the page reaches the right host's tool; an answer the
// host refuses shows its reason; the emergency stop stops every host's
// proceeding sessions and names the host that has not confirmed; a host
// that goes away is shown disconnected, its sessions not as current. Revoke
// takes back a host's remembered approval on that host, and Stop stops one
// session. The Node host serves the fleet view too, from JS
// (engine.serve({fleet: true})).
func TestFleetViewInChromium(t *testing.T) {
	t.Parallel()
	url := newHubDB(t)
	a := goHost(t, url, "host-a", engine.WithTool("deploy", deployTool))
	rememberDeploy(t, a, t.TempDir())
	b := goHost(t, url, "host-b")
	n := startNodeHost(t, url, "host-n", "serve")
	deploy := newSession(t, b, "deploy", engine.ScriptTurn{ToolCalls: []engine.ScriptCall{ask(engine.PauseConfirm, "Potentially dangerous command", "git push --force\nin /srv/app")}}, engine.ScriptTurn{Text: "pushed"})
	_, _, err := deploy.Start(context.WithoutCancel(t.Context()), "push")
	require.NoError(t, err)

	// From JS: every host's sessions, not only the Node host's own.
	deadline := time.Now().Add(20 * time.Second)
	for n.line(`"fleet":`) == "" {
		require.True(t, time.Now().Before(deadline), "the Node host did not print its fleet view's URL")
		time.Sleep(10 * time.Millisecond)
	}
	var served struct{ Fleet string }
	require.NoError(t, json.Unmarshal([]byte(n.line(`"fleet":`)), &served))
	st := fleetState(t, served.Fleet, func(st webui.FleetState) bool {
		return hasSession("host-b", "deploy")(st) && hasSession("host-n", "s0")(st)
	})
	assert.True(t, st.Fleet)

	srv, err := webui.Serve(t.Context(), nil, webui.WithFleet(url), webui.WithOfflineAfter(time.Second))
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	require.True(t, strings.HasPrefix(srv.URL(), "http://127.0.0.1:"), srv.URL())

	// The same guard as the local web UI: the token, the Host header.
	c := newClient(t, srv)
	c.token = ""
	assert.Equal(t, http.StatusUnauthorized, c.do("GET", "/api/state", nil, nil).Status)
	c.token = tokenOf(t, srv)
	assert.Equal(t, http.StatusForbidden, c.do("GET", "/api/state", nil, map[string]string{"Host": "evil.example:80"}).Status)

	browser := startBrowser(t)
	tb := openTab(t, browser, srv.URL())
	tb.waitFor(`document.querySelector('h1').textContent === 'Interlock — fleet'`)
	tb.waitFor(row("host-b", "deploy") + `?.querySelector('.badge').textContent === 'Needs input'`)
	tb.waitFor(row("host-n", "s0") + `?.querySelector('.badge').textContent === 'Needs input'`)
	tb.waitFor(`document.querySelector('#hosts [data-host="host-a"]')?.textContent === 'host-a: connected'`)
	assert.Equal(t, "host-n", tb.eval(row("host-n", "s0")+`.querySelector('.host').textContent`), "the host column")

	// Live: a session that starts on host-a after the page loaded appears, proceeding.
	var done []<-chan engine.Outcome
	for _, id := range []string{"long", "long2"} {
		// Continued, its next turn sleeps again: it is proceeding until the engine closes.
		sleep := engine.ScriptTurn{ToolCalls: []engine.ScriptCall{sleepFor(60_000)}}
		s := newSession(t, a, id, sleep, sleep, engine.ScriptTurn{Text: "slept"})
		_, out, err := s.Start(context.WithoutCancel(t.Context()), "sleep")
		require.NoError(t, err)
		done = append(done, out)
		tb.waitFor(row("host-a", id) + `?.querySelector('.badge').textContent === 'Proceeding'`)
	}

	// Revoke in the page takes back host-a's remembered approval, on host-a.
	tb.waitFor(`document.querySelector('#grants-list tr[data-host="host-a"] [data-revoke]')?.disabled === false`)
	listedGrants := tb.eval(`JSON.stringify(state.grants)`)
	tb.click(`#grants-list tr[data-host="host-a"] [data-revoke]`)
	tb.waitFor(`document.querySelectorAll('#grants-list tr').length === 0 && document.getElementById('grants-summary').textContent === 'Remembered approvals (0)'`)
	gs, err := a.Grants(t.Context())
	require.NoError(t, err)
	assert.Empty(t, gs, "host-a revoked it")
	tb.waitFor(`[...document.querySelectorAll('#audit-list tr[data-event="grant revoked"]')].some(r => r.textContent.includes('webui (fleet)'))`)
	// A tab that still lists it (it was revoked meanwhile): its host refuses, and the page says why.
	tb.eval(`(() => { onGrants(` + listedGrants + `); return ''; })()`)
	tb.click(`#grants-list tr[data-host="host-a"] [data-revoke]`)
	tb.waitFor(`document.getElementById('notice').textContent.startsWith('Refused (unknown_grant) by host host-a: host host-a remembers no approval of deploy')`)

	// Stop in the page stops that session of host-a, and no other.
	stopMe := newSession(t, a, "stop-me", engine.ScriptTurn{ToolCalls: []engine.ScriptCall{sleepFor(60_000)}}, engine.ScriptTurn{Text: "slept"})
	_, stopped, err := stopMe.Start(context.WithoutCancel(t.Context()), "sleep")
	require.NoError(t, err)
	tb.waitFor(row("host-a", "stop-me") + `?.querySelector('.badge').textContent === 'Proceeding'`)
	tb.click(`#sessions li[data-host="host-a"][data-session="stop-me"]`)
	tb.waitFor(`document.getElementById('primary').textContent === 'Stop' && !document.getElementById('primary').disabled`)
	tb.click(`#primary`)
	select {
	case o := <-stopped:
		require.NotNil(t, o.Result.Interruption)
		assert.Equal(t, engine.ReasonUserStop, o.Result.Interruption.Reason)
	case <-time.After(10 * time.Second):
		t.Fatal("the session Stop in the page did not stop")
	}
	tb.waitFor(row("host-a", "stop-me") + `.querySelector('.badge').textContent === 'Interrupted'`)
	tb.waitFor(row("host-a", "long") + `.querySelector('.badge').textContent === 'Proceeding'`)

	// Send in the page: a prompt to host-b's session that has not run yet
	// (listed at once), bound to the version the tab saw: a tab that saw
	// another version is refused.
	chat := newSession(t, b, "chat", engine.ScriptTurn{Text: "hello back"})
	tb.waitFor(row("host-b", "chat") + `?.querySelector('.badge').textContent === 'Idle'`)
	tb.click(`#sessions li[data-host="host-b"][data-session="chat"]`)
	tb.waitFor(`!document.getElementById('input').hidden && document.getElementById('primary').textContent === 'Send' && !document.getElementById('primary').disabled`)
	// The version the tab saw is kept aside: the refusal's audit entry
	// rewrites the session's row, and the tab may get it anew. The Send
	// button is clicked once it is enabled again (a tab reconnecting its
	// stream disables the controls for a moment).
	sendable := `document.getElementById('primary').dataset.action === 'send' && !document.getElementById('primary').disabled`
	tb.eval(`(() => { const s = state.sessions.get(JSON.stringify(['host-b', 'chat'])); window.chatSeen = s.version; s.version++; document.getElementById('prompt').value = 'stale hello'; return ''; })()`)
	tb.click(`#primary`)
	tb.waitFor(`document.getElementById('notice').textContent.startsWith('Refused (stale) by host host-b: session chat on host host-b changed since the client saw it')`)
	tb.eval(`(() => { state.sessions.get(JSON.stringify(['host-b', 'chat'])).version = window.chatSeen; document.getElementById('prompt').value = 'hello'; return ''; })()`)
	tb.waitFor(sendable)
	tb.click(`#primary`)
	tb.waitFor(`document.getElementById('prompt').value === ''`)
	require.Eventually(t, func() bool {
		h := chat.History()
		return len(h) == 2 && h[0].Text == "hello" && h[1].Text == "hello back"
	}, 10*time.Second, 5*time.Millisecond, "host-b's session got the prompt sent in the page, and not the stale one")

	// An approval clicked in the page reaches host-n's tool (a Node host), and no other.
	tb.click(`#sessions li[data-host="host-n"][data-session="s0"]`)
	tb.waitFor(`document.querySelector('#pause .pause-details')?.textContent === 'deploy host-n s0'`)
	tb.answer(`#pause [data-answer=approved]:not([data-remember])`)
	deadline = time.Now().Add(10 * time.Second)
	for !n.said(`"done":"s0"`) {
		require.True(t, time.Now().Before(deadline), "host-n's tool did not continue after the approval in the page")
		time.Sleep(10 * time.Millisecond)
	}
	assert.True(t, n.said(`"tool":"approved"`), "host-n's tool got the approval")
	tb.waitFor(row("host-n", "s0") + `.querySelector('.badge').textContent === 'Idle'`)
	assert.Equal(t, engine.StatusPaused, deploy.Status(), "host-b's session was not answered")

	// An answer bound to a version before the pause was raised (a tab that
	// had not seen it) is refused by the host, and the page says why.
	tb.click(`#sessions li[data-host="host-b"][data-session="deploy"]`)
	tb.waitFor(`document.querySelector('#pause .pause-details')?.textContent === 'git push --force\nin /srv/app'`)
	tb.eval(`(() => { const s = state.sessions.get(JSON.stringify(['host-b', 'deploy'])); s.version = s.pause.version - 1; return ''; })()`)
	tb.answer(`#pause [data-answer=approved]:not([data-remember])`)
	tb.waitFor(`document.getElementById('notice').textContent.startsWith('Refused (stale) by host host-b: the client saw session deploy at version')`)
	assert.Equal(t, engine.StatusPaused, deploy.Status(), "a refused answer applies nothing")
	tb.waitFor(`[...document.querySelectorAll('#audit-list tr[data-event=refused]')].some(r => r.textContent.includes('host-b'))`)

	// host-n goes away: shown disconnected, its session not as current.
	n.kill()
	tb.waitFor(`document.querySelector('#hosts [data-host="host-n"]')?.textContent.startsWith('host-n: disconnected, last seen')`)
	tb.waitFor(row("host-n", "s0") + `.querySelector('.badge').textContent === 'Unknown'`)
	assert.Contains(t, tb.eval(row("host-n", "s0")+`.querySelector('.detail').textContent`), "Host disconnected, last seen")

	// Emergency stop: host-a's proceeding sessions stop, with their
	// receipts; host-n, disconnected, has not confirmed and is named.
	tb.click(`#emergency-stop`)
	tb.waitFor(`document.getElementById('notice').textContent === 'Emergency stop: stopped host-a/long, host-a/long2; not confirmed by host-n (disconnected: it stops its sessions when it reconnects)'`)
	for _, out := range done {
		select {
		case o := <-out:
			require.NotNil(t, o.Result.Interruption)
			assert.Equal(t, engine.ReasonEmergencyStop, o.Result.Interruption.Reason)
		case <-time.After(10 * time.Second):
			t.Fatal("host-a's proceeding session did not stop")
		}
	}
	tb.waitFor(row("host-a", "long") + `.querySelector('.badge').textContent === 'Interrupted' && ` + row("host-a", "long2") + `.querySelector('.badge').textContent === 'Interrupted'`)

	// Continue one of them, then Resume all: the other (host-n's, not current, is not offered).
	tb.click(`#sessions li[data-host="host-a"][data-session="long"]`)
	tb.click(`#continue`)
	tb.waitFor(row("host-a", "long") + `.querySelector('.badge').textContent === 'Proceeding'`)
	tb.waitFor(text("resume-all") + ` === 'Resume all (2 eligible)'`)
	tb.click(`#resume-all`)
	tb.waitFor(text("resume-confirm-text") + ` === 'Resume all will continue 2 sessions: host-a/long2, host-a/stop-me'`)
	tb.click(`#resume-confirm-yes`)
	tb.waitFor(`document.getElementById('notice').textContent === 'Resume all: resumed host-a/long2, host-a/stop-me'`)
	tb.waitFor(row("host-a", "long2") + `.querySelector('.badge').textContent === 'Proceeding'`)
	var audit []map[string]any
	require.NoError(t, json.Unmarshal([]byte(tb.eval(`JSON.stringify(state.audit)`)), &audit))
	assert.NotEmpty(t, audit)
}

// fleetState reads the fleet view at pageURL as a tab does (its token as
// a bearer) once cond holds.
func fleetState(t *testing.T, pageURL string, cond func(webui.FleetState) bool) webui.FleetState {
	t.Helper()
	base, token, ok := strings.Cut(pageURL, "/?token=")
	require.True(t, ok, pageURL)
	require.True(t, strings.HasPrefix(base, "http://127.0.0.1:"), "served on loopback: %s", pageURL)
	var st webui.FleetState
	deadline := time.Now().Add(10 * time.Second)
	for {
		req, err := http.NewRequestWithContext(t.Context(), "GET", base+"/api/state", nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		st = webui.FleetState{}
		err = json.NewDecoder(res.Body).Decode(&st)
		res.Body.Close()
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, res.StatusCode)
		if cond(st) {
			return st
		}
		require.True(t, time.Now().Before(deadline), "the fleet view never showed what was wanted: %+v", st)
		time.Sleep(20 * time.Millisecond)
	}
}

func hasSession(host, id string) func(webui.FleetState) bool {
	return func(st webui.FleetState) bool {
		for _, s := range st.Sessions {
			if s.Host == host && s.ID == id {
				return true
			}
		}
		return false
	}
}

// The fleet view controls every host: it is served on loopback only, even
// with AllowRemote.
func TestFleetViewOnLoopbackOnly(t *testing.T) {
	t.Parallel()
	_, err := webui.Serve(t.Context(), nil, webui.WithFleet("postgres://interlock@127.0.0.1:1/fleet"), webui.WithAddr("0.0.0.0:0"), webui.AllowRemote())
	require.ErrorIs(t, err, webui.ErrNonLoopback)
	assert.Contains(t, err.Error(), "SSH tunnel")
}

// The command agent-interlock hub, a real process with no engine, serves
// the fleet view on 127.0.0.1: it prints its URL, stops on SIGINT, and
// refuses a bad --url naming it and saying what to do.
func TestHubCommand(t *testing.T) {
	t.Parallel()
	url := newHubDB(t)
	a := goHost(t, url, "host-a")
	build := newSession(t, a, "build", engine.ScriptTurn{ToolCalls: []engine.ScriptCall{ask(engine.PauseConfirm, "Potentially dangerous command", "rm -rf ./build")}}, engine.ScriptTurn{Text: "done"})
	_, _, err := build.Start(context.WithoutCancel(t.Context()), "clean")
	require.NoError(t, err)

	cmd := exec.Command("node", "../../node/cli.js", "hub", "--url", url)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	var exitErr error
	exited := make(chan struct{}) // closed once it exited, exitErr set
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default: // only the first is read
			}
		}
		exitErr = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGKILL)
		<-exited
	})
	var first string
	select {
	case first = <-lines:
	case <-exited:
		t.Fatalf("agent-interlock hub exited: %v", exitErr)
	case <-time.After(20 * time.Second):
		t.Fatal("agent-interlock hub printed nothing")
	}
	_, pageURL, ok := strings.Cut(first, ": open ")
	require.True(t, ok, "agent-interlock hub printed %q", first)
	assert.True(t, fleetState(t, pageURL, hasSession("host-a", "build")).Fleet)
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	select {
	case <-exited:
		require.NoError(t, exitErr, "agent-interlock hub on SIGINT")
	case <-time.After(10 * time.Second):
		t.Fatal("agent-interlock hub did not stop on SIGINT")
	}

	for _, bad := range []struct{ url, says string }{
		{"not-a-url", "give the hub's PostgreSQL URL"},
		{"postgres://bob:s3cret@127.0.0.1:1/fleet?connect_timeout=1", "is PostgreSQL running there"},
	} {
		var stderr strings.Builder
		cmd := exec.Command("node", "../../node/cli.js", "hub", "--url", bad.url)
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit, "agent-interlock hub --url %s", bad.url)
		assert.Equal(t, 1, exit.ExitCode())
		named := strings.Replace(bad.url, "s3cret", "xxxxx", 1)
		assert.Contains(t, stderr.String(), `agent-interlock hub: --url "`+named+`": `, "names the input as written")
		assert.Contains(t, stderr.String(), bad.says, "says what to do")
		assert.NotContains(t, stderr.String(), "s3cret", "the password is not printed")
	}
}
