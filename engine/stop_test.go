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

func TestInterruptDuringPause(t *testing.T) {
	t.Parallel()
	_, s := newEngine(t, []engine.ScriptTurn{{Text: "checking", ToolCalls: []engine.ScriptCall{ask(engine.PauseConfirm, "sure?")}}})
	sub := s.Subscribe()
	defer sub.Close()
	out := start(t, s, "go")
	waitEvent(t, sub, isType(engine.EventPaused))
	require.NoError(t, s.Interrupt(engine.ReasonUserStop))
	o := <-out
	require.ErrorIs(t, o.Err, engine.ErrInterrupted)
	r, ok := engine.ReasonOf(o.Err)
	require.True(t, ok)
	assert.Equal(t, engine.ReasonUserStop, r)
	_, paused := s.Pause()
	assert.False(t, paused)
	h := s.History()
	assert.Equal(t, engine.Message{Role: engine.RoleTool, ToolCallID: h[1].ToolCalls[0].ID, Text: "interrupted before completion", IsError: true, Interrupted: true}, h[2])
	assert.Equal(t, engine.Message{Role: engine.RoleMarker, Text: "Stopped by you", Reason: engine.ReasonUserStop}, h[3])
	require.ErrorIs(t, s.Confirm("", true), engine.ErrNotPaused, "a late answer finds nothing")
}

func TestInterruptBeforeFirstBlockingPointIsNotLost(t *testing.T) {
	t.Parallel()
	// The tool is between its start and its first blocking point when the
	// interrupt lands; the pause it then raises must end at once, unseen.
	entered, proceed := make(chan struct{}), make(chan struct{})
	raised := make(chan engine.PauseResult, 1)
	tool := engine.ToolFunc(func(ctx context.Context, c engine.ToolCall, env *engine.Env) (engine.Result, error) {
		close(entered)
		<-proceed // not selecting on ctx: the interrupt arrives "before" the blocking point
		r, err := env.Pause(ctx, engine.PauseRequest{Kind: engine.PauseConfirm, Message: "late"})
		raised <- r
		return engine.Result{}, err
	})
	_, s := newEngine(t, []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{call("t", nil)}}}, engine.WithTool("t", tool))
	sub := s.Subscribe()
	defer sub.Close()
	out := start(t, s, "go")
	<-entered
	require.NoError(t, s.Interrupt(engine.ReasonUserStop))
	close(proceed)
	assert.Equal(t, engine.AnswerInterrupted, (<-raised).Answer)
	require.ErrorIs(t, (<-out).Err, engine.ErrInterrupted)
	for {
		ev, err := sub.Next(t.Context())
		require.NoError(t, err)
		require.NotEqual(t, engine.EventPaused, ev.Type, "a pause raised after the interrupt is never shown")
		if ev.Type == engine.EventInterrupted {
			break
		}
	}

	// And a run interrupted right after Start, before any step, ends interrupted.
	_, s2 := newEngine(t, []engine.ScriptTurn{{Text: "never", Hang: true}})
	out2 := start(t, s2, "go")
	require.NoError(t, s2.Interrupt(engine.ReasonEmergencyStop))
	o := <-out2
	require.ErrorIs(t, o.Err, engine.ErrInterrupted)
	assert.Equal(t, engine.ReasonEmergencyStop, o.Result.Interruption.Reason)
}

func TestInterruptMidStreamKeepsHistoryConsistent(t *testing.T) {
	t.Parallel()
	_, s := newEngine(t, []engine.ScriptTurn{{Text: "partial answer here", Hang: true}})
	sub := s.Subscribe()
	defer sub.Close()
	out := start(t, s, "go")
	var streamed string
	for streamed != "partial answer here" {
		streamed += waitEvent(t, sub, isType(engine.EventText)).Text
	}
	require.NoError(t, s.Interrupt(engine.ReasonUserStop))
	require.ErrorIs(t, (<-out).Err, engine.ErrInterrupted)
	h := s.History()
	require.Len(t, h, 3)
	assert.Equal(t, engine.Message{Role: engine.RoleAssistant, Text: "partial answer here", Interrupted: true}, h[1])
	assert.Equal(t, engine.Message{Role: engine.RoleMarker, Text: "Stopped by you", Reason: engine.ReasonUserStop}, h[2])
	assert.Equal(t, (len("partial answer here")+3)/4, s.Snapshot().Tokens.Output, "tokens count what was streamed")
}

func TestStreamIdleTimeoutInterruptsWithReasonTimeout(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		e := engine.New(engine.WithStreamIdleTimeout(time.Minute),
			engine.WithProvider(engine.NewScriptedProvider([]engine.ScriptTurn{{Text: "stall", Hang: true}})))
		defer e.Close()
		s, _ := e.NewSession(engine.SessionOptions{})
		res, err := s.Prompt(t.Context(), "go")
		require.ErrorIs(t, err, engine.ErrIdleTimeout)
		assert.Equal(t, engine.ReasonTimeout, res.Interruption.Reason)
		assert.Equal(t, engine.StatusInterrupted, s.Status())
	})
}

// The idle timeout counts the silence before a chunk, not the turn: a
// stream whose chunks each come within it may take many times as long.
func TestStreamIdleTimeoutCountsOnlySilence(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		e := engine.New(engine.WithStreamIdleTimeout(time.Minute),
			engine.WithProvider(engine.NewScriptedProvider([]engine.ScriptTurn{{Text: "one two three four five", ChunkDelayMS: 50_000}})))
		defer e.Close()
		s, _ := e.NewSession(engine.SessionOptions{})
		t0 := time.Now()
		res, err := s.Prompt(t.Context(), "go")
		require.NoError(t, err)
		assert.Equal(t, engine.StatusIdle, res.Status)
		assert.Equal(t, 200*time.Second, time.Since(t0), "four silences of 50 s, each under the minute")
		h := s.History()
		assert.Equal(t, "one two three four five", h[len(h)-1].Text)
	})
}

func TestEmergencyStopStopsOnlyRunningSessions(t *testing.T) {
	t.Parallel()
	e, a := newEngine(t, []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{call("sleep", map[string]int{"ms": 600000})}}})
	idle, _ := e.NewSession(engine.SessionOptions{})
	sub := a.Subscribe()
	defer sub.Close()
	out := start(t, a, "go")
	waitEvent(t, sub, isType(engine.EventToolStarted))
	assert.Equal(t, []string{a.ID()}, e.EmergencyStop().Stopped)
	o := <-out
	assert.Equal(t, engine.ReasonEmergencyStop, o.Result.Interruption.Reason)
	assert.Equal(t, "Stopped by emergency stop", o.Result.Interruption.Label)
	assert.Equal(t, engine.StatusIdle, idle.Status())
	assert.Len(t, e.Sessions(), 2)
}

// TestInterruptEndsAPauseOnAForeignContext: a tool that passes Pause a
// context not derived from its own (a cleanup context, Background) is still
// released by an interrupt, and a pause it raises after it is never shown.
func TestInterruptEndsAPauseOnAForeignContext(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		got := make(chan engine.PauseResult, 2)
		tool := engine.ToolFunc(func(ctx context.Context, c engine.ToolCall, env *engine.Env) (engine.Result, error) {
			r, err := env.Pause(context.WithoutCancel(ctx), engine.PauseRequest{Kind: engine.PauseConfirm, Message: "first"})
			got <- r
			r2, _ := env.Pause(context.Background(), engine.PauseRequest{Kind: engine.PauseContinue, Message: "after the interrupt"})
			got <- r2
			return engine.Result{}, err
		})
		e := engine.New(engine.WithTool("t", tool), engine.WithProvider(engine.NewScriptedProvider([]engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{call("t", nil)}}})))
		defer e.Close()
		s, _ := e.NewSession(engine.SessionOptions{})
		_, out, err := s.Start(t.Context(), "go")
		require.NoError(t, err)
		synctest.Wait()
		require.Equal(t, engine.StatusPaused, s.Status())
		require.NoError(t, s.Interrupt(engine.ReasonUserStop))
		o := <-out // a deadlock here fails the bubble
		require.ErrorIs(t, o.Err, engine.ErrInterrupted)
		assert.Equal(t, engine.AnswerInterrupted, (<-got).Answer)
		assert.Equal(t, engine.AnswerInterrupted, (<-got).Answer)
		assert.Equal(t, engine.StatusInterrupted, s.Status())
	})
}

// TestCallerContextEndingStopsLikeInterrupt: when the context a run was
// started with ends, the session is stopping until the tool has returned
// (not running), observers get stopping / onCancel, then interrupted.
func TestCallerContextEndingStopsLikeInterrupt(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		g := newGate()
		g.holdAfterCancel = true
		e := engine.New(engine.WithTool("gate", g), engine.WithProvider(engine.NewScriptedProvider([]engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{call("gate", nil)}}})))
		defer e.Close()
		s, _ := e.NewSession(engine.SessionOptions{})
		cancelled := make(chan engine.SignalInfo, 1)
		defer s.OnSignal(engine.OnCancel, func(i engine.SignalInfo) { cancelled <- i })()
		ctx, cancel := context.WithCancel(t.Context())
		_, out, err := s.Start(ctx, "go")
		require.NoError(t, err)
		<-g.started
		cancel()
		synctest.Wait()
		require.Equal(t, engine.StatusStopping, s.Status(), "stop requested, the tool still unwinding")
		require.Len(t, cancelled, 1, "onCancel fired")
		close(g.release)
		o := <-out
		require.ErrorIs(t, o.Err, engine.ErrInterrupted)
		assert.Equal(t, engine.ReasonSystemStop, o.Result.Interruption.Reason)
		assert.Equal(t, engine.StatusInterrupted, s.Status())
	})
}

// TestInterruptAnswersEveryPendingPauseInterrupted: an interrupt while two
// parallel tool calls wait on pauses emits pause_answered (interrupted) for
// each, oldest first, before stopping — observers never see a pause vanish
// without an answer.
func TestInterruptAnswersEveryPendingPauseInterrupted(t *testing.T) {
	t.Parallel()
	ask := engine.ToolFunc(func(ctx context.Context, c engine.ToolCall, env *engine.Env) (engine.Result, error) {
		_, err := env.Pause(ctx, engine.PauseRequest{Kind: engine.PauseConfirm, Message: c.ID})
		return engine.Result{}, err
	})
	_, s := newEngine(t, []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{call("ask", nil), call("ask", nil)}}}, engine.WithTool("ask", ask))
	sub := s.Subscribe()
	defer sub.Close()
	out := start(t, s, "go")
	for len(s.Snapshot().Pauses) < 2 {
		waitEvent(t, sub, func(ev engine.Event) bool { return ev.Type == engine.EventPaused })
	}
	pending := s.Snapshot().Pauses
	require.NoError(t, s.Interrupt(engine.ReasonUserStop))
	require.ErrorIs(t, (<-out).Err, engine.ErrInterrupted)
	var answered []string
	for {
		ev, err := sub.Next(t.Context())
		require.NoError(t, err)
		if ev.Type == engine.EventPauseAnswered {
			require.Equal(t, engine.AnswerInterrupted, ev.Answer)
			answered = append(answered, ev.Answered.ID)
		}
		if ev.Type == engine.EventStopping {
			break
		}
	}
	assert.Equal(t, []string{pending[0].ID, pending[1].ID}, answered)
}
