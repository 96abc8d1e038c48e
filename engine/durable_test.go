package engine_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
)

// interrupted runs a prompt into a long sleep and stops it with reason.
func interrupted(t *testing.T, s *engine.Session, reason engine.Reason) {
	t.Helper()
	sub := s.Subscribe()
	defer sub.Close()
	out := start(t, s, "go")
	waitEvent(t, sub, isType(engine.EventToolStarted))
	require.NoError(t, s.Interrupt(reason))
	<-out
}

// Concurrent ResumeAll calls never start two runs of one session: each
// eligible session is resumed by exactly one call.
func TestResumeAllConcurrentCallsResumeEachSessionOnce(t *testing.T) {
	t.Parallel()
	e := engine.New()
	defer e.Close()
	const n = 8
	for range n {
		sleep := engine.ScriptTurn{ToolCalls: []engine.ScriptCall{call("sleep", map[string]int{"ms": 600000})}}
		s, err := e.NewSession(engine.SessionOptions{Provider: engine.NewScriptedProvider([]engine.ScriptTurn{sleep, sleep})})
		require.NoError(t, err)
		interrupted(t, s, engine.ReasonEmergencyStop)
	}
	require.Equal(t, engine.Counts{Eligible: n}, e.Counts())

	var wg sync.WaitGroup
	reports := make([]engine.ResumeReport, 6)
	for i := range reports {
		wg.Go(func() { reports[i] = e.ResumeAll(t.Context()) })
	}
	wg.Wait()
	resumed := map[string]int{}
	for _, r := range reports {
		for _, id := range r.Resumed {
			resumed[id]++
		}
		for id, why := range r.Skipped {
			assert.Equal(t, engine.NotEligibleProceeding, why, "session %s skipped because another call resumed it", id)
		}
	}
	assert.Len(t, resumed, n)
	for id, k := range resumed {
		assert.Equal(t, 1, k, "session %s resumed by %d calls", id, k)
	}
	assert.Equal(t, engine.Counts{Proceeding: n}, e.Counts())
}

// Esc at a confirm pause, before the guarded action ran, is not a cut side
// effect: Continue does not ask about repeating it.
func TestInterruptAtAConfirmGateIsNotACutSideEffect(t *testing.T) {
	t.Parallel()
	_, s := newEngine(t, []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{call("gated", nil)}}, {Text: "done"}},
		engine.WithTool("gated", gatedTool{}))
	sub := s.Subscribe()
	defer sub.Close()
	out := start(t, s, "go")
	waitEvent(t, sub, isType(engine.EventPaused))
	require.NoError(t, s.Interrupt(engine.ReasonUserStop))
	o := <-out
	assert.False(t, o.Result.Interruption.SideEffectCut)
	assert.Equal(t, engine.Eligibility{Eligible: true}, s.Eligibility())
}

// gatedTool asks to confirm, then has side effects.
type gatedTool struct{}

func (gatedTool) Run(ctx context.Context, c engine.ToolCall, env *engine.Env) (engine.Result, error) {
	res, err := env.Pause(ctx, engine.PauseRequest{Kind: engine.PauseConfirm, Tool: "Gated", Message: "sure?"})
	if err != nil || !res.Approved() {
		return engine.Result{Output: "denied", IsError: true}, err
	}
	<-ctx.Done()
	return engine.Result{}, ctx.Err()
}

func (gatedTool) HasSideEffects(engine.ToolCall) bool { return true }

func (gatedTool) AsksBeforeActing(engine.ToolCall) bool { return true }

// resumeAsk is a session asked "Resuming may repeat an action that was cut
// off" (askedToResume).
type resumeAsk struct {
	s    *engine.Session
	sub  *engine.Subscription[engine.Event] // closed with the test
	gate *gate
	p    engine.Pause          // the question (tool "Resume")
	done <-chan engine.Outcome // the continued run's end
}

// askedToResume stops a run while its gate tool (side effects) runs, then
// continues it, which asks first; then is the model's turn after the tool.
func askedToResume(t *testing.T, then string) resumeAsk {
	t.Helper()
	g := newGate()
	_, s := newEngine(t, []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{call("gate", nil)}}, {Text: then}}, engine.WithTool("gate", g))
	sub := s.Subscribe()
	t.Cleanup(sub.Close)
	out := start(t, s, "go")
	<-g.started
	require.NoError(t, s.Interrupt(engine.ReasonUserStop))
	<-out
	require.Equal(t, engine.Eligibility{Eligible: true, RepeatsSideEffect: true}, s.Eligibility())
	_, done, err := s.StartContinue(t.Context())
	require.NoError(t, err)
	p := waitEvent(t, sub, isType(engine.EventPaused)).Pause
	require.Equal(t, "Resume", p.Tool)
	return resumeAsk{s: s, sub: sub, gate: g, p: *p, done: done}
}

// A denied resumption is recorded; a tool cut after it started makes
// resuming ask first.
func TestDeniedResumeIsRecorded(t *testing.T) {
	t.Parallel()
	a := askedToResume(t, "done")
	s := a.s
	require.NoError(t, s.Confirm(a.p.ID, false, engine.WithReason("not twice")))
	require.NoError(t, (<-a.done).Err)
	h := s.History()
	assert.Equal(t, engine.Message{Role: engine.RoleMarker, Text: "Resume denied: not twice"}, h[len(h)-1])
	for _, m := range h {
		assert.NotEqual(t, "Resumed", m.Text, "nothing was resumed")
	}
}

// "Resumed" is recorded only once the resumed run has a model stream: a
// resumption that fails at once leaves no such marker.
func TestResumedMarkerOnlyWhenTheRunStarts(t *testing.T) {
	t.Parallel()
	e, s := newEngine(t, []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{call("sleep", map[string]int{"ms": 600000})}}, {Error: "model down"}, {Text: "done"}})
	interrupted(t, s, engine.ReasonUserStop)
	assert.Equal(t, engine.Message{Role: engine.RoleMarker, Text: "Stopped by you", Reason: engine.ReasonUserStop}, s.History()[len(s.History())-1])
	_, err := s.Continue(t.Context())
	require.Error(t, err, "the scripted model fails")
	for _, m := range s.History() {
		assert.NotEqual(t, "Resumed", m.Text)
	}
	_ = e
}

// A signal pause requested while the model streams lands before that
// turn's tool calls run.
func TestSignalPauseLandsBeforeTheTurnsToolCalls(t *testing.T) {
	t.Parallel()
	g := newGate()
	_, s := newEngine(t, []engine.ScriptTurn{{Text: "thinking about it", ChunkDelayMS: 20, ToolCalls: []engine.ScriptCall{call("gate", nil)}}}, engine.WithTool("gate", g))
	sub := s.Subscribe()
	defer sub.Close()
	out := start(t, s, "go")
	waitEvent(t, sub, isType(engine.EventText))
	require.NoError(t, s.Signal(engine.SignalPause))
	p := waitEvent(t, sub, isType(engine.EventPaused)).Pause
	assert.Equal(t, engine.SourceSignal, p.Source)
	select {
	case <-g.started:
		t.Fatal("the tool call ran before the requested pause")
	default:
	}
	require.NoError(t, s.Signal(engine.SignalResume))
	<-g.started
	close(g.release)
	<-out
}

// Esc (or an emergency stop, or the engine closing) while "Resuming may
// repeat an action that was cut off" is asked leaves that question to be
// asked again: the next Continue does not go straight on.
func TestStopAtTheResumeQuestionKeepsIt(t *testing.T) {
	t.Parallel()
	a := askedToResume(t, "done")
	s, sub := a.s, a.sub
	require.NoError(t, s.Interrupt(engine.ReasonUserStop))
	<-a.done
	waitEvent(t, sub, isType(engine.EventInterrupted))
	require.Equal(t, engine.Eligibility{Eligible: true, RepeatsSideEffect: true}, s.Eligibility())
	_, done, err := s.StartContinue(t.Context())
	require.NoError(t, err)
	ev := waitEvent(t, sub, func(ev engine.Event) bool { return ev.Type == engine.EventPaused || ev.Type.Terminal() })
	require.Equal(t, engine.EventPaused, ev.Type, "Continue went on without asking again")
	require.Equal(t, "Resume", ev.Pause.Tool)
	require.NoError(t, s.Confirm(ev.Pause.ID, false))
	require.NoError(t, (<-done).Err)
	assert.Empty(t, a.gate.started, "the gate never ran again")
}
