package web

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
)

// newSession returns a session of an engine whose scripted model calls the
// web tool (registered as "web") once with args, then says "done". The
// engine is closed when the test ends.
func newSession(t testing.TB, args Args, opts ...Option) (*engine.Session, *Tool) {
	t.Helper()
	raw, err := json.Marshal(args)
	require.NoError(t, err)
	tool := New(append([]Option{WithTempDir(testTempDir)}, opts...)...)
	e := engine.New(
		engine.WithTool("web", tool),
		engine.WithProvider(engine.NewScriptedProvider([]engine.ScriptTurn{
			{ToolCalls: []engine.ScriptCall{{Name: "web", Args: raw}}},
			{Text: "done"},
		})),
	)
	t.Cleanup(func() { assert.NoError(t, e.Close()) })
	s, err := e.NewSession(engine.SessionOptions{})
	require.NoError(t, err)
	return s, tool
}

// waitEvent reads sub until an event of type typ arrives.
func waitEvent(t testing.TB, sub *engine.Subscription[engine.Event], typ engine.EventType) engine.Event {
	t.Helper()
	ctx, cancel := contextWithTimeout(t, 60*time.Second)
	defer cancel()
	for {
		ev, err := sub.Next(ctx)
		require.NoError(t, err, "waiting for %s", typ)
		if ev.Type == typ {
			return ev
		}
	}
}

// lastToolResult is the text of the last tool message of the history.
func lastToolResult(t testing.TB, s *engine.Session) engine.Message {
	t.Helper()
	h := s.History()
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Role == engine.RoleTool {
			return h[i]
		}
	}
	t.Fatalf("no tool result in the history: %+v", h)
	return engine.Message{}
}

func TestSessionPauseHeadful(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Skip("no DISPLAY: the headful pause needs an X display; run this package under xvfb-run -a")
	}
	t.Parallel()
	site := newSite(t)
	url := site.URL + "/ua"
	s, tool := newSession(t, Args{Type: ActionOpenPage, URL: url, Pause: true}, WithAutoOpenDevTools(true))
	sub := s.Subscribe()
	defer sub.Close()
	_, outcome, err := s.Start(t.Context(), "open it")
	require.NoError(t, err)

	ev := waitEvent(t, sub, engine.EventPaused)
	require.NotNil(t, ev.Pause)
	b := s.Local(browsersKey{tool}, func() any { panic("no browsers") }).(*browsers).set[1]
	require.NotNil(t, b, "a headful browser")
	args := browserArgs(t, chromedp.FromContext(b.ctx).Browser.Process().Pid)
	assert.Contains(t, args, "--auto-open-devtools-for-tabs")
	assert.NotContains(t, args, "--headless")
	assert.NotContains(t, args, "--headless=new")
	assert.Equal(t, engine.PauseContinue, ev.Pause.Kind)
	assert.Equal(t, "WebSearch", ev.Pause.Tool)
	assert.Equal(t, "Page loaded: "+url, ev.Pause.Message)
	assert.Contains(t, ev.Pause.Details, "DevTools: http://127.0.0.1:")
	assert.Equal(t, engine.StatusPaused, s.Status())

	require.NoError(t, s.Resume(""))
	o := <-outcome
	require.NoError(t, o.Err)
	assert.Equal(t, engine.StatusIdle, o.Result.Status)
	res := lastToolResult(t, s)
	assert.False(t, res.IsError, res.Text)
	assert.Contains(t, res.Text, "UA=Mozilla/5.0")
	assert.NotContains(t, res.Text, "HeadlessChrome", "the paused page is in a visible browser")
	assert.NotContains(t, res.Text, "no display")
}

var devToolsRE = regexp.MustCompile(`http://127\.0\.0\.1:(\d+)/devtools/inspector\.html\?ws=127\.0\.0\.1:(\d+)/devtools/page/([0-9A-F]+)`)

func TestSessionPauseWithoutDisplay(t *testing.T) {
	t.Parallel()
	site := newSite(t)
	url := site.URL + "/ua"
	s, _ := newSession(t, Args{Type: ActionOpenPage, URL: url, Pause: true}, WithDisplay(""))
	sub := s.Subscribe()
	defer sub.Close()
	_, outcome, err := s.Start(t.Context(), "open it")
	require.NoError(t, err)

	ev := waitEvent(t, sub, engine.EventPaused)
	msg := ev.Pause.Message
	assert.True(t, strings.HasPrefix(msg, "Page loaded: "+url+" "), msg)
	assert.Contains(t, msg, "no display available")
	m := devToolsRE.FindStringSubmatch(msg)
	require.NotNil(t, m, "DevTools address in %q", msg)
	assert.Equal(t, m[1], m[2])

	// The address answers on 127.0.0.1, and the page it names is the one
	// that is paused.
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}
	resp, err := client.Get(m[0])
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, strings.ToLower(string(body)), "<html")
	resp, err = client.Get("http://127.0.0.1:" + m[1] + "/json/list")
	require.NoError(t, err)
	var targets []struct{ ID, URL string }
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&targets))
	resp.Body.Close()
	assert.Contains(t, targets, struct{ ID, URL string }{m[3], url})

	require.NoError(t, s.Resume(""))
	o := <-outcome
	require.NoError(t, o.Err)
	res := lastToolResult(t, s)
	assert.False(t, res.IsError, res.Text)
	assert.Contains(t, res.Text, "Note: no display is available")
	assert.Contains(t, res.Text, "UA=Mozilla/5.0")
	assert.Contains(t, res.Text, "HeadlessChrome")
}

func TestSessionInterruptNavigation(t *testing.T) {
	t.Parallel()
	site := newSite(t)
	s, _ := newSession(t, Args{Type: ActionOpenPage, URL: site.URL + "/hang"})
	_, outcome, err := s.Start(t.Context(), "open it")
	require.NoError(t, err)
	<-site.hangHits // the navigation is in flight

	began := time.Now()
	require.NoError(t, s.Interrupt(engine.ReasonUserStop))
	o := <-outcome
	took := time.Since(began)
	require.ErrorIs(t, o.Err, engine.ErrInterrupted)
	assert.Equal(t, engine.StatusInterrupted, o.Result.Status)
	assert.Equal(t, engine.ReasonUserStop, o.Result.Interruption.Reason)
	assert.Less(t, took, time.Second, "the tool returns promptly")
	res := lastToolResult(t, s)
	assert.True(t, res.Interrupted)
}

func TestSessionInterruptPause(t *testing.T) {
	t.Parallel()
	site := newSite(t)
	s, _ := newSession(t, Args{Type: ActionOpenPage, URL: site.URL + "/", Pause: true}, WithDisplay(""))
	sub := s.Subscribe()
	defer sub.Close()
	_, outcome, err := s.Start(t.Context(), "open it")
	require.NoError(t, err)
	waitEvent(t, sub, engine.EventPaused)

	began := time.Now()
	require.NoError(t, s.Interrupt(engine.ReasonUserStop))
	o := <-outcome
	require.ErrorIs(t, o.Err, engine.ErrInterrupted)
	assert.Less(t, time.Since(began), time.Second)
	assert.Equal(t, engine.StatusInterrupted, s.Status())
}

func TestSessionBadInputIsAToolError(t *testing.T) {
	t.Parallel()
	s, _ := newSession(t, Args{Type: ActionOpenPage, URL: "ftp://example.org/x"})
	_, err := s.Prompt(t.Context(), "open it")
	require.NoError(t, err, "the run goes on")
	res := lastToolResult(t, s)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text, `"ftp://example.org/x"`)
}

func TestSessionCloseStopsBrowsers(t *testing.T) {
	t.Parallel()
	site := newSite(t)
	s, tool := newSession(t, Args{Type: ActionOpenPage, URL: site.URL + "/about"})
	_, err := s.Prompt(t.Context(), "open it")
	require.NoError(t, err)
	assert.Contains(t, lastToolResult(t, s).Text, "About page")

	bs := s.Local(browsersKey{tool}, func() any { panic("the session has no browsers") }).(*browsers)
	b := bs.set[0]
	require.NotNil(t, b)
	ours := func() []int {
		return processesWithArg(func(a []byte) bool { return string(a) == "--user-data-dir="+b.dir })
	}
	require.NotEmpty(t, ours())
	require.NoError(t, s.Close())
	assert.Empty(t, ours(), "closing the session stops its browser")
	assert.NoDirExists(t, b.dir)
}
