package engine_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/interlock-dev/interlock/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPauseResumeCycleClearsState(t *testing.T) {
	t.Parallel()
	_, s := newEngine(t, []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{ask(engine.PauseContinue, "Page loaded")}}, {Text: "done"}})
	sub := s.Subscribe()
	defer sub.Close()
	out := start(t, s, "go")
	ev := waitEvent(t, sub, isType(engine.EventPaused))
	p, ok := s.Pause()
	require.True(t, ok)
	assert.Equal(t, *ev.Pause, p)
	assert.Equal(t, engine.PauseContinue, p.Kind)
	assert.Equal(t, engine.SourceTool, p.Source)
	assert.Equal(t, "Ask", p.Tool)
	assert.Equal(t, "Page loaded", p.Message)
	assert.Equal(t, 2, p.Step, "step 1 is the model turn, step 2 the tool call")

	require.NoError(t, s.Resume(""))
	_, ok = s.Pause()
	assert.False(t, ok, "pause state cleared after the answer")
	require.NoError(t, (<-out).Err)
	assert.Equal(t, "resumed", lastTool(s.History()).Text)
	assert.Equal(t, engine.StatusIdle, s.Status())
}

func TestConfirmApproveDeny(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		approved bool
		reason   string
		want     string
	}{
		{"approve", true, "", "approved"},
		{"deny", false, "", "denied"},
		{"deny with reason", false, "not on prod", "denied: not on prod"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, s := newEngine(t, []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{ask(engine.PauseConfirm, "rm -rf?")}}})
			sub := s.Subscribe()
			defer sub.Close()
			out := start(t, s, "go")
			ev := waitEvent(t, sub, isType(engine.EventPaused))
			require.ErrorIs(t, s.Resume(""), engine.ErrWrongPauseKind, "Enter does not answer a confirm pause")
			require.NoError(t, s.Confirm("", tt.approved, engine.WithReason(tt.reason)))
			ans := waitEvent(t, sub, isType(engine.EventPauseAnswered))
			assert.Equal(t, ev.Pause.ID, ans.Answered.ID)
			require.NoError(t, (<-out).Err)
			res := lastTool(s.History())
			assert.Equal(t, tt.want, res.Text)
			assert.Equal(t, !tt.approved, res.IsError)
		})
	}
}

func TestParallelPausesAnsweredByIDInAnyOrder(t *testing.T) {
	t.Parallel()
	_, s := newEngine(t, []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{
		ask(engine.PauseConfirm, "one"), ask(engine.PauseContinue, "two"), ask(engine.PauseConfirm, "three"),
	}}})
	sub := s.Subscribe()
	defer sub.Close()
	out := start(t, s, "go")
	for len(s.Pauses()) < 3 {
		waitEvent(t, sub, isType(engine.EventPaused))
	}
	ps := s.Pauses()
	byMsg := map[string]engine.Pause{}
	for _, p := range ps {
		byMsg[p.Message] = p
	}
	cur, _ := s.Pause()
	assert.Equal(t, ps[0], cur, "the oldest pending pause is the current one")

	require.NoError(t, s.Confirm(byMsg["three"].ID, false, engine.WithReason("no")))
	require.ErrorIs(t, s.Confirm(byMsg["three"].ID, true), engine.ErrUnknownPause, "answering twice")
	require.ErrorIs(t, s.Confirm(byMsg["two"].ID, true), engine.ErrWrongPauseKind)
	assert.Len(t, s.Pauses(), 2, "a wrong answer changes nothing")
	require.NoError(t, s.Confirm(byMsg["one"].ID, true))
	require.NoError(t, s.Resume(byMsg["two"].ID))
	require.NoError(t, (<-out).Err)

	results := map[string]string{}
	h := s.History()
	for _, c := range h[1].ToolCalls {
		for _, m := range h {
			if m.Role == engine.RoleTool && m.ToolCallID == c.ID {
				results[string(c.Args)] = m.Text
			}
		}
	}
	assert.Equal(t, map[string]string{
		`{"kind":"confirm","message":"one"}`:   "approved",
		`{"kind":"continue","message":"two"}`:  "resumed",
		`{"kind":"confirm","message":"three"}`: "denied: no",
	}, results)
}

func TestStaleAnswerNeverReleasesALaterPause(t *testing.T) {
	t.Parallel()
	_, s := newEngine(t, []engine.ScriptTurn{
		{ToolCalls: []engine.ScriptCall{ask(engine.PauseContinue, "first")}},
		{ToolCalls: []engine.ScriptCall{ask(engine.PauseContinue, "second")}},
	})
	sub := s.Subscribe()
	defer sub.Close()
	out := start(t, s, "go")
	first := waitEvent(t, sub, isType(engine.EventPaused)).Pause
	require.NoError(t, s.Resume(first.ID))
	second := waitEvent(t, sub, isType(engine.EventPaused)).Pause
	require.ErrorIs(t, s.Resume(first.ID), engine.ErrUnknownPause)
	cur, ok := s.Pause()
	require.True(t, ok, "the stale answer did not release the second pause")
	assert.Equal(t, second.ID, cur.ID)
	require.NoError(t, s.Resume(second.ID))
	require.NoError(t, (<-out).Err)
}

func TestPauseTimeoutFailsClosed(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		got := make(chan engine.PauseResult, 1)
		tool := engine.ToolFunc(func(ctx context.Context, c engine.ToolCall, env *engine.Env) (engine.Result, error) {
			r, err := env.Pause(ctx, engine.PauseRequest{Kind: engine.PauseConfirm, Message: "x", Timeout: 30 * time.Second})
			got <- r
			return engine.Result{Output: string(r.Answer)}, err
		})
		e := engine.New(engine.WithTool("t", tool), engine.WithProvider(engine.NewScriptedProvider([]engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{call("t", nil)}}})))
		defer e.Close()
		s, _ := e.NewSession(engine.SessionOptions{})
		_, err := s.Prompt(t.Context(), "go")
		require.NoError(t, err)
		r := <-got
		assert.Equal(t, engine.AnswerTimedOut, r.Answer)
		assert.False(t, r.Approved())
	})
}

// TestPauseTimeoutRacingAnInterruptNeverHangs: the pause timer and an
// interrupt fire at the same instant; whichever the waiter sees first, the
// run must end (it used to wait for ever for an answer nobody would send).
func TestPauseTimeoutRacingAnInterruptNeverHangs(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		tool := engine.ToolFunc(func(ctx context.Context, c engine.ToolCall, env *engine.Env) (engine.Result, error) {
			r, err := env.Pause(ctx, engine.PauseRequest{Kind: engine.PauseConfirm, Message: "x", Timeout: 30 * time.Second})
			return engine.Result{Output: string(r.Answer)}, err
		})
		e := engine.New(engine.WithTool("t", tool), engine.WithProvider(engine.NewScriptedProvider([]engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{call("t", nil)}}})))
		defer e.Close()
		s, _ := e.NewSession(engine.SessionOptions{})
		for range 100 {
			_, out, err := s.Start(t.Context(), "go")
			require.NoError(t, err)
			synctest.Wait() // parked at the pause
			time.Sleep(30 * time.Second)
			_ = s.Interrupt(engine.ReasonUserStop) // the run may have ended already
			<-out                                  // a deadlock here fails the bubble
			_, paused := s.Pause()
			require.False(t, paused)
		}
	})
}

// TestPauseAfterTheToolCallEndedIsRefused: an Env kept past its call (a
// tool's stray goroutine) cannot park an idle session.
func TestPauseAfterTheToolCallEndedIsRefused(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		envs := make(chan *engine.Env, 1)
		tool := engine.ToolFunc(func(ctx context.Context, c engine.ToolCall, env *engine.Env) (engine.Result, error) {
			envs <- env
			return engine.Result{Output: "ok"}, nil
		})
		e := engine.New(engine.WithTool("t", tool), engine.WithProvider(engine.NewScriptedProvider([]engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{call("t", nil)}}})))
		defer e.Close()
		s, _ := e.NewSession(engine.SessionOptions{})
		_, err := s.Prompt(t.Context(), "go")
		require.NoError(t, err)
		v := s.Version()
		res, err := (<-envs).Pause(context.Background(), engine.PauseRequest{Kind: engine.PauseContinue, Message: "late"}) // a deadlock here fails the bubble
		require.ErrorIs(t, err, engine.ErrNotRunning)
		assert.Equal(t, engine.AnswerInterrupted, res.Answer, "fails closed")
		assert.Equal(t, engine.StatusIdle, s.Status())
		assert.Equal(t, v, s.Version(), "nothing changed")
	})
}
