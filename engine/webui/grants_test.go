package webui_test

import (
	"net/http"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/bash"
)

// A remembered approval is listed with what, where and since when; revoked
// through the page (and only from the page's own origin), the next identical
// confirm asks again.
func TestRevokedGrantMakesTheNextConfirmAskAgain(t *testing.T) {
	t.Parallel()
	for _, scope := range []string{engine.RememberSession, engine.RememberProject} {
		t.Run(scope, func(t *testing.T) {
			t.Parallel()
			e := engine.New(engine.WithTool("deploy", deployTool))
			t.Cleanup(func() { e.Close() })
			dir := t.TempDir()
			s, err := e.NewSession(engine.SessionOptions{ID: "agent", Dir: dir, Provider: engine.NewScriptedProvider([]engine.ScriptTurn{
				{ToolCalls: []engine.ScriptCall{call("deploy", nil)}}, {Text: "done"}})})
			require.NoError(t, err)
			sub := s.Subscribe()
			defer sub.Close()
			_, out, err := s.Start(t.Context(), "go")
			require.NoError(t, err)
			paused := waitEvent(t, sub, isType(engine.EventPaused))
			require.NoError(t, s.Confirm(paused.Pause.ID, true, engine.Remember(scope)))
			require.NoError(t, (<-out).Err)

			srv := serve(t, e)
			c := newClient(t, srv)
			listed := c.do(http.MethodGet, "/api/grants", nil, nil)
			require.Equal(t, http.StatusOK, listed.Status)
			grants := listed.Body["grants"].([]any)
			require.Len(t, grants, 1)
			g := grants[0].(map[string]any)
			assert.Equal(t, "deploy", g["tool"])
			assert.Equal(t, "deploy to production", g["key"])
			assert.Equal(t, scope, g["scope"])
			assert.NotEmpty(t, g["at"])
			if scope == engine.RememberSession {
				assert.Equal(t, "agent", g["session"])
			} else {
				real, err := filepath.EvalSymlinks(dir)
				require.NoError(t, err)
				assert.Equal(t, real, g["root"])
			}
			assert.Len(t, c.state().Grants.Grants, 1, "the state a tab starts from has them")

			revoke := map[string]any{"tool": g["tool"], "key": g["key"], "scope": g["scope"], "session": g["session"], "root": g["root"]}
			for _, attack := range []struct {
				name    string
				headers map[string]string
			}{
				{"foreign Origin", map[string]string{"Origin": "http://evil.example"}},
				{"null Origin", map[string]string{"Origin": "null"}},
				{"cross-site fetch metadata", map[string]string{"Sec-Fetch-Site": "cross-site"}},
				{"no Origin and no bearer token (a form post from a page that hides its Origin)", map[string]string{"Origin": "", "Authorization": ""}},
			} {
				r := c.do(http.MethodPost, "/api/grants/revoke", revoke, attack.headers)
				assert.Equal(t, http.StatusForbidden, r.Status, "%s: %v", attack.name, r.Body)
			}
			assert.Len(t, c.state().Grants.Grants, 1, "no refused revoke took anything back")

			r := c.do(http.MethodPost, "/api/grants/revoke", map[string]any{"tool": "deploy", "key": "deploy to production"}, nil)
			assert.Equal(t, http.StatusBadRequest, r.Status)
			assert.Contains(t, r.Body["error"], `scope "": all three are required`)

			r = c.do(http.MethodPost, "/api/grants/revoke", revoke, nil)
			require.Equal(t, http.StatusOK, r.Status, "%v", r.Body)
			assert.Empty(t, r.Body["grants"].(map[string]any)["grants"])
			assert.Empty(t, c.state().Grants.Grants)

			r = c.do(http.MethodPost, "/api/grants/revoke", revoke, nil)
			assert.Equal(t, http.StatusNotFound, r.Status)
			assert.Equal(t, "unknown_grant", r.Body["code"])
			assert.Contains(t, r.Body["error"], "revoked already")

			_, out, err = s.Start(t.Context(), "again")
			require.NoError(t, err)
			paused = waitEvent(t, sub, func(ev engine.Event) bool {
				require.NotEqual(t, engine.EventGranted, ev.Type, "approved by the revoked grant")
				return ev.Type == engine.EventPaused
			})
			assert.Equal(t, "deploy to production", paused.Pause.RememberKey)
			require.NoError(t, s.Confirm(paused.Pause.ID, false))
			require.NoError(t, (<-out).Err)
		})
	}
}

// Every tab lists what is approved without asking as the engine has it:
// an approval remembered in one tab appears in all, a revoke in one
// removes it from all, and the next such confirm asks again. A key holding
// markup is listed as text.
func TestEveryTabListsRememberedApprovalsAndRevokesThem(t *testing.T) {
	e := engine.New(engine.WithTool("deploy", keyedTool("deploy", "Deploy?", hostileKey)))
	t.Cleanup(func() { e.Close() })
	s := newSession(t, e, "agent", engine.ScriptTurn{ToolCalls: []engine.ScriptCall{call("deploy", nil)}}, engine.ScriptTurn{Text: "done"})
	sub := s.Subscribe()
	defer sub.Close()
	srv := serve(t, e)
	browser := startBrowser(t)
	tabs := []*tab{openTab(t, browser, srv.URL()), openTab(t, browser, srv.URL())}
	for _, tb := range tabs {
		tb.waitFor(text("grants-summary") + ` === 'Remembered approvals (0)' && ` + visible("grants-empty"))
	}

	_, out, err := s.Start(t.Context(), "go")
	require.NoError(t, err)
	tabs[0].waitFor(`document.querySelector('#pause [data-remember=session]')`)
	tabs[0].answer(`#pause [data-remember=session]`)
	require.NoError(t, (<-out).Err)
	for _, tb := range tabs {
		tb.waitFor(text("grants-summary") + ` === 'Remembered approvals (1)' && !` + visible("grants-empty"))
		row := func(cell string) string {
			return tb.eval(`document.querySelector('#grants-list .grant-` + cell + `').textContent`)
		}
		assert.Equal(t, "deploy", row("tool"))
		assert.Equal(t, hostileKey, row("key"))
		assert.Equal(t, "This session", row("scope"))
		assert.Equal(t, "agent", row("where"))
		assert.NotEmpty(t, row("at"))
		assert.Equal(t, "0", tb.eval(`document.querySelectorAll('img, script:not([src]), b').length + ''`), "no element made of the key")
		assert.Equal(t, "undefined", tb.eval(`typeof window.__pwned`))
	}

	tabs[1].click(`#grants-summary`)
	tabs[1].click(`#grants-list [data-revoke]`)
	for _, tb := range tabs {
		tb.waitFor(text("grants-summary") + ` === 'Remembered approvals (0)' && ` + visible("grants-empty") + ` && !` + visible("grants-table"))
	}
	grants, err := e.Grants(t.Context())
	require.NoError(t, err)
	assert.Empty(t, grants)

	_, out, err = s.Start(t.Context(), "again")
	require.NoError(t, err)
	waitEvent(t, sub, func(ev engine.Event) bool {
		require.NotEqual(t, engine.EventGranted, ev.Type, "approved by the revoked grant")
		return ev.Type == engine.EventPaused
	})
	for _, tb := range tabs {
		tb.waitFor(`document.querySelector('#pause .pause-remember')`)
	}
	tabs[0].answer(`#pause [data-remember=project]`)
	require.NoError(t, (<-out).Err)
	for _, tb := range tabs {
		tb.waitFor(text("grants-summary") + ` === 'Remembered approvals (1)' && document.querySelector('#grants-list .grant-scope').textContent === 'This project'`)
	}

	// Revoked by code: every tab's list follows at once, without a reload.
	grants, err = e.Grants(t.Context())
	require.NoError(t, err)
	require.Len(t, grants, 1)
	require.NoError(t, e.RevokeGrant(t.Context(), grants[0]))
	for _, tb := range tabs {
		tb.waitFor(text("grants-summary") + ` === 'Remembered approvals (0)' && ` + visible("grants-empty"))
	}
	// The history shows a call with null arguments by its name alone.
	tabs[0].waitFor(`[...document.querySelectorAll('#history .msg')].some(m => m.textContent.trim() === '→ deploy')`)
	assert.NotContains(t, tabs[0].eval(`document.getElementById('history').textContent`), "null")
}

// The bash confirm says what its approval remembers, the command as judged;
// the tool records it after the answer, as it goes on to run the command:
// the list shows it all the same, until the session closes.
func TestABashApprovalRememberedFromThePageIsListed(t *testing.T) {
	e := engine.New(engine.WithTool("bash", bash.New()))
	t.Cleanup(func() { e.Close() })
	dir := t.TempDir()
	s, err := e.NewSession(engine.SessionOptions{ID: "agent", Dir: dir, Provider: engine.NewScriptedProvider([]engine.ScriptTurn{
		{ToolCalls: []engine.ScriptCall{call("bash", map[string]string{"command": "rm -rf ./build"})}}, {Text: "done"}})})
	require.NoError(t, err)
	srv := serve(t, e)
	tb := openTab(t, startBrowser(t), srv.URL())

	_, out, err := s.Start(t.Context(), "go")
	require.NoError(t, err)
	tb.waitFor(`document.querySelector('#pause [data-remember=session]')`)
	// The confirm says what the approval remembers: the command as judged.
	key := "rm -rf " + filepath.Join(dir, "build") + " (in " + dir + ")"
	assert.Equal(t, "Remembering approves again without asking: "+key, tb.eval(`document.querySelector('#pause .pause-remember').textContent`))
	tb.answer(`#pause [data-remember=session]`)
	require.NoError(t, (<-out).Err)
	tb.waitFor(text("grants-summary") + ` === 'Remembered approvals (1)'`)
	assert.Equal(t, "bash", tb.eval(`document.querySelector('#grants-list .grant-tool').textContent`))
	assert.Equal(t, key, tb.eval(`document.querySelector('#grants-list .grant-key').textContent`), "listed as the confirm said")

	// A session's grants end with it: closing it empties the list.
	require.NoError(t, s.Close())
	tb.waitFor(text("grants-summary") + ` === 'Remembered approvals (0)'`)
}
