package engine_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
)

// hostTool hands every call to the test through a channel, like the host
// (JS) side would receive it.
func hostTool(grace time.Duration) (*engine.HostTool, chan *engine.HostCall) {
	calls := make(chan *engine.HostCall, 4)
	return &engine.HostTool{
		Spec:  engine.ToolSpec{Description: "a host tool", Parameters: json.RawMessage(`{"type":"object"}`)},
		Grace: grace,
		Start: func(c *engine.HostCall) func() { calls <- c; return nil },
	}, calls
}

func TestHostToolAnswersPausesAndIsDescribed(t *testing.T) {
	t.Parallel()
	tool, calls := hostTool(0)
	e, s := newEngine(t, []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{call("host", map[string]string{"x": "y"})}}, {Text: "done"}},
		engine.WithTool("host", tool))
	var spec engine.ToolSpec
	for _, sp := range e.Tools().Specs() {
		if sp.Name == "host" {
			spec = sp
		}
	}
	assert.Equal(t, "a host tool", spec.Description, "the model sees the host tool's description")
	sub := s.Subscribe()
	defer sub.Close()
	out := start(t, s, "go")
	c := <-calls
	assert.JSONEq(t, `{"x":"y"}`, string(c.Call().Args))
	assert.Equal(t, s.ID(), c.SessionID())
	c.Progress("working\n")
	assert.Equal(t, "working\n", waitEvent(t, sub, isType(engine.EventToolProgress)).Text)

	answered := make(chan engine.PauseResult, 1)
	go func() {
		res, err := c.Pause(c.Context(), engine.PauseRequest{Kind: engine.PauseConfirm, Message: "Send the email?"})
		assert.NoError(t, err)
		answered <- res
	}()
	ev := waitEvent(t, sub, isType(engine.EventPaused))
	assert.Equal(t, "host", ev.Pause.Tool, "the pause names the tool")
	require.NoError(t, s.Confirm("", false, engine.WithReason("not now")))
	res := <-answered
	assert.Equal(t, engine.AnswerDenied, res.Answer)
	require.NoError(t, c.End(engine.Result{Output: "denied: " + res.Reason, IsError: true}))
	assert.ErrorIs(t, c.End(engine.Result{Output: "again"}), engine.ErrNotRunning, "only the first answer counts")
	o := <-out
	require.NoError(t, o.Err)
	tr := lastTool(s.History())
	assert.Equal(t, "denied: not now", tr.Text)
	assert.True(t, tr.IsError)
}

func TestHostToolInterrupt(t *testing.T) {
	t.Parallel()
	t.Run("the host stops in time", func(t *testing.T) {
		t.Parallel()
		tool, calls := hostTool(time.Hour)
		_, s := newEngine(t, []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{call("host", nil)}}}, engine.WithTool("host", tool))
		out := start(t, s, "go")
		c := <-calls
		require.NoError(t, s.Interrupt(engine.ReasonUserStop))
		<-c.Context().Done() // the host's abort signal
		require.NoError(t, c.End(engine.Result{Output: "aborted"}))
		o := <-out
		assert.ErrorIs(t, o.Err, engine.ErrInterrupted)
		assert.Equal(t, "interrupted before completion", lastTool(s.History()).Text, "the result of a cut call is not used")
	})
	t.Run("the host ignores the signal", func(t *testing.T) {
		t.Parallel()
		tool, calls := hostTool(20 * time.Millisecond)
		_, s := newEngine(t, []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{call("host", nil)}}}, engine.WithTool("host", tool))
		sub := s.Subscribe()
		defer sub.Close()
		out := start(t, s, "go")
		c := <-calls
		require.NoError(t, s.Interrupt(engine.ReasonUserStop))
		assert.Equal(t, engine.StatusStopping, waitEvent(t, sub, isType(engine.EventStopping)).Status)
		o := <-out // after the grace, without the host
		assert.ErrorIs(t, o.Err, engine.ErrInterrupted)
		assert.Equal(t, engine.StatusInterrupted, s.Status())
		require.NoError(t, c.End(engine.Result{Output: "too late"}))
		h := s.History()
		last := h[len(h)-1]
		assert.Equal(t, engine.RoleMarker, last.Role)
		assert.True(t, strings.HasPrefix(last.Text, "Late result of host"), last.Text)
		for _, m := range h {
			assert.NotEqual(t, "too late", m.Text, "the late result never reaches the model")
		}
	})
}

// A call's pauses end with it. Attack: a JS tool that did not await its
// ctx.pause() ('run: (args, ctx) => { ctx.pause({...}); return "done" }')
// left its confirm pending while the run went on: the session said paused
// while the model's next turn streamed, and that pause stood first, before
// any real one. Now the call's end withdraws it (pause_answered
// interrupted) and a pause asked after the end is refused.
func TestHostToolPausesEndWithTheCall(t *testing.T) {
	t.Parallel()
	tool, calls := hostTool(0)
	_, s := newEngine(t, []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{call("host", nil)}}, {Text: "thinking", Hang: true}},
		engine.WithTool("host", tool))
	sub := s.Subscribe()
	defer sub.Close()
	out := start(t, s, "go")
	c := <-calls
	withdrawn := make(chan error, 1)
	go func() {
		_, err := c.Pause(c.Context(), engine.PauseRequest{Kind: engine.PauseConfirm, Message: "Deploy?"})
		withdrawn <- err
	}()
	p := waitEvent(t, sub, isType(engine.EventPaused)).Pause
	require.NoError(t, c.End(engine.Result{Output: "done"}))
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	for {
		ev, err := sub.Next(ctx)
		require.NoError(t, err, "the pause of the ended call is still pending: %v", s.Pauses())
		if ev.Type == engine.EventPauseAnswered {
			assert.Equal(t, p.ID, ev.Answered.ID)
			assert.Equal(t, engine.AnswerInterrupted, ev.Answer)
			break
		}
	}
	require.ErrorIs(t, <-withdrawn, engine.ErrNotRunning)
	assert.Empty(t, s.Pauses())
	_, err := c.Pause(c.Context(), engine.PauseRequest{Kind: engine.PauseConfirm, Message: "Again?"})
	require.ErrorIs(t, err, engine.ErrNotRunning, "a pause after the call's end")
	assert.Empty(t, s.Pauses())
	require.NoError(t, s.Interrupt(engine.ReasonUserStop))
	<-out
}

// Every model turn asks for the tools' descriptions: they are made once and
// shared until a tool is registered (a JS tool after the engine started).
func TestSpecsAreMadeOncePerRegistration(t *testing.T) {
	var r engine.Registry
	r.Register("b", &engine.HostTool{Spec: engine.ToolSpec{Description: "bee"}})
	first := r.Specs()
	require.Len(t, first, 1)
	assert.Zero(t, testing.AllocsPerRun(100, func() { r.Specs() }), "a turn allocates nothing for the descriptions")
	r.Register("a", &engine.HostTool{Spec: engine.ToolSpec{Description: "ay"}})
	got := r.Specs()
	require.Len(t, got, 2, "a tool registered later is described")
	assert.Equal(t, "a", got[0].Name)
	assert.Equal(t, "ay", got[0].Description)
	assert.Equal(t, "b", first[0].Name, "what an earlier turn got is not changed")
}
