package engine_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
)

func TestStats(t *testing.T) {
	t.Parallel()
	e, s := newEngine(t, []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{ask(engine.PauseConfirm, "ok?")}}, {Text: "all done and dusted now"}})
	idle, err := e.NewSession(engine.SessionOptions{})
	require.NoError(t, err)
	defer idle.Close()
	feed := e.NewFeed() // nobody reads it: events queue there
	defer feed.Close()
	sub := s.Subscribe()
	defer sub.Close()
	out := start(t, s, "go")
	waitEvent(t, sub, isType(engine.EventPaused))

	st := e.Stats()
	assert.Equal(t, map[string]int{"idle": 1, "running": 0, "interrupted": 0, "paused": 1, "stopping": 0, "closed": 0}, st.Sessions)
	assert.Positive(t, st.HeapBytes)
	assert.Positive(t, st.StackBytes, "the parked run's goroutine has a stack")
	assert.Positive(t, st.Goroutines)
	assert.Positive(t, st.EventsQueued, "the unread feed holds run_started and paused")

	require.NoError(t, s.Confirm("", true))
	<-out
	after := e.Stats()
	assert.Equal(t, 2, after.Sessions["idle"])
	assert.Greater(t, after.EventsQueued, st.EventsQueued)
	assert.Positive(t, after.EventsCoalesced, "the text deltas of the last turn were merged in the unread feed")
}
