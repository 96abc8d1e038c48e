package webui_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
)

// deployTool asks before it deploys, with a remember key: an approval can
// be remembered for the session or the project.
var deployTool = engine.ToolFunc(func(ctx context.Context, c engine.ToolCall, env *engine.Env) (engine.Result, error) {
	req := engine.PauseRequest{Kind: engine.PauseConfirm, Tool: "deploy", Message: "Deploy to production?", RememberKey: "deploy to production"}
	return env.Ask(ctx, req, func(ctx context.Context, ans engine.PauseResult) (engine.Result, error) {
		if !ans.Approved() {
			return engine.Result{Output: "not deployed", IsError: true}, nil
		}
		return engine.Result{Output: "deployed"}, nil
	})
})

// The page offers a button per scope the pause offers; "Approve for this
// session" remembers the approval: the next deploy is not asked.
func TestPageRemembersAnApprovalForTheSession(t *testing.T) {
	e := engine.New(engine.WithTool("deploy", deployTool))
	t.Cleanup(func() { e.Close() })
	s := newSession(t, e, "agent", engine.ScriptTurn{ToolCalls: []engine.ScriptCall{call("deploy", nil)}}, engine.ScriptTurn{Text: "done"})
	sub := s.Subscribe()
	defer sub.Close()
	srv := serve(t, e)
	tb := openTab(t, startBrowser(t), srv.URL())

	_, out, err := s.Start(t.Context(), "go")
	require.NoError(t, err)
	tb.waitFor(`!document.getElementById('pause').hidden && document.querySelector('#pause [data-remember=project]')`)
	assert.Equal(t, "Approve for this session", tb.eval(`document.querySelector('#pause [data-remember=session]').textContent`))
	tb.answer(`#pause [data-remember=session]`)
	require.NoError(t, (<-out).Err)
	answered := waitEvent(t, sub, isType(engine.EventPauseAnswered))
	assert.Equal(t, engine.RememberSession, answered.Remember)
	assert.Equal(t, "webui", answered.By)

	_, out, err = s.Start(t.Context(), "again")
	require.NoError(t, err)
	require.NoError(t, (<-out).Err)
	granted := waitEvent(t, sub, func(ev engine.Event) bool {
		require.NotEqual(t, engine.EventPaused, ev.Type, "asked again")
		return ev.Type == engine.EventGranted
	})
	assert.Equal(t, engine.RememberSession, granted.Remember)
	tb.waitFor(`document.querySelector('[data-session=agent] .badge').textContent === 'Idle'`)
}

// A scope the pause does not offer is refused with the engine's words.
func TestAnswerWithAScopeThePauseDoesNotOfferIsRefused(t *testing.T) {
	t.Parallel()
	e := newEngine(t)
	s := newSession(t, e, "s", engine.ScriptTurn{ToolCalls: []engine.ScriptCall{ask(engine.PauseConfirm, "Run it?", "rm -rf build")}}, engine.ScriptTurn{Text: "ok"})
	sub := s.Subscribe()
	defer sub.Close()
	_, out, err := s.Start(t.Context(), "go")
	require.NoError(t, err)
	ev := waitEvent(t, sub, isType(engine.EventPaused))
	srv := serve(t, e)
	c := newClient(t, srv)
	body := map[string]any{"epoch": c.state().Epoch, "version": ev.Version, "pause_id": ev.Pause.ID, "answer": "approved", "remember": "project"}
	r := c.do(http.MethodPost, "/api/answer?session=s", body, nil)
	assert.Equal(t, http.StatusBadRequest, r.Status)
	assert.Contains(t, r.Body["error"], "not offered by this pause")
	assert.Equal(t, engine.StatusPaused, s.Status())
	body["remember"] = "once"
	assert.Equal(t, http.StatusOK, c.do(http.MethodPost, "/api/answer?session=s", body, nil).Status)
	require.NoError(t, (<-out).Err)
}

// keyedTool asks before it acts, remembering approvals under key.
func keyedTool(name, message, key string) engine.Tool {
	return engine.ToolFunc(func(ctx context.Context, c engine.ToolCall, env *engine.Env) (engine.Result, error) {
		req := engine.PauseRequest{Kind: engine.PauseConfirm, Tool: name, Message: message, RememberKey: key}
		return env.Ask(ctx, req, func(ctx context.Context, ans engine.PauseResult) (engine.Result, error) {
			if !ans.Approved() {
				return engine.Result{Output: "not done", IsError: true}, nil
			}
			return engine.Result{Output: "done"}, nil
		})
	})
}

// hostileKey is a remember key a tool built from what a model wrote: if
// the page ever parsed it as HTML, the image's error handler or the script
// would set window.__pwned.
const hostileKey = `deploy <img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script></p><b>all</b> & "prod"`

// Every tab shows, with the remember buttons, what such an approval
// approves again without asking: the key, as text. A key holding markup
// stays text (no element is made of it, no handler runs); a confirm that
// can't be remembered shows no such line.
func TestEveryTabShowsWhatARememberedApprovalApprovesAsText(t *testing.T) {
	e := engine.New(engine.WithTool("deploy", keyedTool("deploy", "Deploy?", hostileKey)))
	t.Cleanup(func() { e.Close() })
	s := newSession(t, e, "agent", engine.ScriptTurn{ToolCalls: []engine.ScriptCall{call("deploy", nil)}}, engine.ScriptTurn{Text: "done"})
	// The other strings the engine hands the page hold the same markup: a
	// pause's message and details, a prompt in the history, a session's id.
	// The details also hold characters that act on the text around them (a
	// carriage return, a right-to-left override): shown as signs, as the TUI does.
	const acting = "\r\u202e~ fr- mr"
	plain := newSession(t, e, "plain", engine.ScriptTurn{ToolCalls: []engine.ScriptCall{ask(engine.PauseConfirm, hostileKey, "make "+hostileKey+acting)}}, engine.ScriptTurn{Text: "ok"})
	newSession(t, e, hostileKey)
	srv := serve(t, e)
	browser := startBrowser(t)
	tabs := []*tab{openTab(t, browser, srv.URL()), openTab(t, browser, srv.URL())}

	_, out, err := s.Start(t.Context(), "go")
	require.NoError(t, err)
	_, plainOut, err := plain.Start(t.Context(), hostileKey)
	require.NoError(t, err)
	want := "Remembering approves again without asking: " + hostileKey
	for _, tb := range tabs {
		tb.waitFor(`document.querySelector('#pause .pause-remember')`)
		assert.Equal(t, want, tb.eval(`document.querySelector('#pause .pause-remember').textContent`))
		assert.Equal(t, "0", tb.eval(`document.querySelectorAll('img, script:not([src]), b').length + ''`), "no element made of the key")
		assert.Equal(t, "undefined", tb.eval(`typeof window.__pwned`), "no handler of the key ran")
		// The line sits right above the buttons it explains.
		assert.Equal(t, "pause-remember", tb.eval(`document.querySelector('#pause button').previousElementSibling.className`))
	}

	tabs[1].click(`[data-session=plain]`)
	tabs[1].waitFor(fmt.Sprintf(`document.querySelector('#pause .pause-details')?.textContent === %q`, "make "+hostileKey+"␍<U+202E>~ fr- mr"))
	tabs[1].waitFor(fmt.Sprintf(`[...document.querySelectorAll('#history .msg.user')].some((m) => m.textContent === %q)`, hostileKey))
	assert.Equal(t, "Ask: "+hostileKey, tabs[1].eval(`document.querySelector('#pause .pause-message').textContent`))
	assert.Equal(t, hostileKey, tabs[1].eval(`document.querySelector('#sessions li:last-child .name').textContent`))
	assert.Equal(t, "0", tabs[1].eval(`document.querySelectorAll('img, script:not([src]), b').length + ''`), "no element made of a message, details, prompt or id")
	assert.Equal(t, "undefined", tabs[1].eval(`typeof window.__pwned`))
	assert.Equal(t, "null", tabs[1].eval(`document.querySelector('#pause .pause-remember') + ''`), "nothing to remember, nothing said")
	assert.Equal(t, "null", tabs[1].eval(`document.querySelector('#pause [data-remember]') + ''`))
	tabs[1].answer(`#pause [data-answer=approved]`)
	require.NoError(t, (<-plainOut).Err)

	tabs[0].answer(`#pause [data-remember=project]`)
	require.NoError(t, (<-out).Err)
	for _, tb := range tabs {
		assert.Equal(t, "undefined", tb.eval(`typeof window.__pwned`))
	}
}
