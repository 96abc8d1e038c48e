package engine_test

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
)

// lineMessages collects what a host line sends, as a host would receive it.
func lineMessages(t *testing.T, line *engine.HostLine) <-chan engine.HostMessage {
	t.Helper()
	msgs := make(chan engine.HostMessage, 16)
	line.SetSend(func(b []byte) {
		var m engine.HostMessage
		require.NoError(t, json.Unmarshal(b, &m), "a message is one JSON object: %q", b)
		msgs <- m
	})
	return msgs
}

func nextMessage(t *testing.T, msgs <-chan engine.HostMessage, typ string) engine.HostMessage {
	t.Helper()
	select {
	case m := <-msgs:
		require.Equal(t, typ, m.Type, "message %+v", m)
		return m
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s message", typ)
		return engine.HostMessage{}
	}
}

// A host line's tool hands its call to the host as a message with the id
// the binding gave it; a pause the host asks for returns at once and its
// answer comes as a message with the host's request number; the host's
// End answers the call.
func TestHostLineCarriesACallItsPauseAndItsEnd(t *testing.T) {
	t.Parallel()
	works := make(chan *engine.HostWork, 1)
	line := &engine.HostLine{Open: func(w *engine.HostWork) uint64 { works <- w; return 7 }}
	defer line.Close()
	msgs := lineMessages(t, line)
	_, err := line.Tool("", engine.HostToolSpec{})
	assert.ErrorIs(t, err, engine.ErrInvalidArgument)
	tool, err := line.Tool("js", engine.HostToolSpec{Description: "a JS tool"})
	require.NoError(t, err)
	_, s := newEngine(t, []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{call("js", map[string]int{"x": 1})}}, {Text: "done"}},
		engine.WithTool("js", tool))
	sub := s.Subscribe()
	defer sub.Close()
	out := start(t, s, "go")

	m := nextMessage(t, msgs, engine.HostToolCall)
	assert.Equal(t, "js", m.Tool)
	assert.Equal(t, s.ID(), m.Session)
	assert.Equal(t, uint64(7), m.Host)
	assert.JSONEq(t, `{"x":1}`, string(m.Args))
	w := <-works

	negative := int64(-1)
	err = w.Pause(3, engine.HostPauseRequest{Kind: engine.PauseConfirm, TimeoutMS: &negative})
	assert.ErrorIs(t, err, engine.ErrInvalidArgument)
	assert.ErrorContains(t, err, "timeoutMs is -1", "the field as the host wrote it")
	assert.ErrorIs(t, w.Step(4), engine.ErrInvalidArgument, "a tool call has no step boundaries")
	require.NoError(t, w.Pause(3, engine.HostPauseRequest{Kind: engine.PauseConfirm, Message: "Send it?"}))
	ev := waitEvent(t, sub, isType(engine.EventPaused))
	assert.Equal(t, "js", ev.Pause.Tool)
	require.NoError(t, s.Confirm("", true))
	m = nextMessage(t, msgs, engine.HostPauseDone)
	assert.Equal(t, uint64(3), m.Request)
	assert.Equal(t, engine.AnswerApproved, m.Result.Answer)

	res, err := w.End(engine.HostResult{Output: "sent"})
	require.NoError(t, err)
	assert.Nil(t, res, "a tool call's end has no run result")
	require.NoError(t, (<-out).Err)
	assert.Equal(t, "sent", lastTool(s.History()).Text)
}

// Without a Send, messages go on the feed, after the events queued so far.
func TestHostLineWithoutSendUsesTheFeed(t *testing.T) {
	t.Parallel()
	e, s := newEngine(t, nil)
	feed := e.NewFeed()
	defer feed.Close()
	line := &engine.HostLine{Feed: feed}
	defer line.Close()
	w, err := line.Begin(s, engine.HostRunSpec{})
	require.NoError(t, err)
	require.NoError(t, s.Interrupt(engine.ReasonUserStop))
	var types []string
	for !slices.Contains(types, engine.HostAbort) {
		require.NoError(t, feed.Take(t.Context(), func(items []engine.FeedItem) {
			for _, it := range items {
				if it.Extra == nil {
					types = append(types, string(it.Event.Type))
					continue
				}
				var m engine.HostMessage
				require.NoError(t, json.Unmarshal(it.Extra.(json.RawMessage), &m))
				types = append(types, m.Type)
			}
		}))
	}
	assert.Less(t, slices.Index(types, string(engine.EventRunStarted)), slices.Index(types, engine.HostAbort))
	_, err = w.End(engine.HostResult{})
	require.NoError(t, err)
}
