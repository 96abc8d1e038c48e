package webui_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
)

// hostileNames are session ids a URL would read as something else: dot
// segments a browser resolves away, a slash, a query, a fragment, escapes,
// spaces, a long id, and ids that differ only by case or normalization.
var hostileNames = []string{
	".", "..", "...", "%2e", "%2E%2e", "a/b", "a/../b", "../api/state", "a\\b",
	"?x=1", "#top", "a&session=b", "a;b", "a+b", " spaced ", "caf\u00e9", "cafe\u0301",
	"Agent", "agent", "日本語 🚀", strings.Repeat("long", 2500),
}

// Every session is reachable and answerable from the page whatever its id,
// and none is confused with another: the page loads each one's own history,
// and its answer reaches that session's pause alone.
func TestEverySessionIdIsReachableFromThePage(t *testing.T) {
	e := newEngine(t)
	sessions := make([]*engine.Session, len(hostileNames))
	outs := make([]<-chan engine.Outcome, len(hostileNames))
	for i, id := range hostileNames {
		sessions[i] = newSession(t, e, id, engine.ScriptTurn{ToolCalls: []engine.ScriptCall{ask(engine.PauseConfirm, "Run it?", "echo "+strconv.Itoa(i))}}, engine.ScriptTurn{Text: "done"})
		sub := sessions[i].Subscribe()
		var err error
		_, outs[i], err = sessions[i].Start(t.Context(), "prompt "+strconv.Itoa(i))
		require.NoError(t, err)
		waitEvent(t, sub, isType(engine.EventPaused))
		sub.Close()
	}
	srv := serve(t, e)
	tb := openTab(t, startBrowser(t), srv.URL())
	tb.waitFor(fmt.Sprintf(`state.sessions.size === %d`, len(hostileNames)))

	for i, id := range hostileNames {
		// Selected, the session shows its own history (the page fetches it by id).
		tb.eval(fmt.Sprintf(`select(%q), ''`, id))
		tb.waitFor(fmt.Sprintf(`state.history.id === %q && [...document.querySelectorAll('#history .msg.user')].some((m) => m.textContent === 'prompt %d')`, id, i))
		// The page's answer reaches this session's pause, no other's.
		tb.eval(fmt.Sprintf(`answerPause(state.sessions.get(%[1]q), state.sessions.get(%[1]q).pause, 'approved').then(() => state.notice)`, id))
		assert.Empty(t, tb.eval(`state.notice`), "answer %q", id)
		require.NoError(t, (<-outs[i]).Err, "session %q", id)
		for j, later := range sessions[i+1:] {
			_, paused := later.Pause()
			assert.True(t, paused, "answering %q answered %q", id, hostileNames[i+1+j])
		}
	}
}
