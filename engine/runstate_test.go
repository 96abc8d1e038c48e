package engine_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
)

func TestRunStateAndEligibilityFollowTheFacts(t *testing.T) {
	t.Parallel()
	e, s := newEngine(t, []engine.ScriptTurn{
		{ToolCalls: []engine.ScriptCall{ask(engine.PauseConfirm, "sure?")}},
		{ToolCalls: []engine.ScriptCall{call("sleep", map[string]int{"ms": 600000})}},
		{Text: "done"},
	})
	sub := s.Subscribe()
	defer sub.Close()
	assert.Equal(t, engine.RunIdle, s.RunState())
	assert.Equal(t, engine.Eligibility{Reason: engine.NotEligibleIdle}, s.Eligibility())

	out := start(t, s, "go")
	waitEvent(t, sub, isType(engine.EventPaused))
	assert.Equal(t, engine.RunBlocked, s.RunState())
	assert.Equal(t, engine.Eligibility{Reason: engine.NotEligibleNeedsInput}, s.Eligibility())
	assert.Equal(t, engine.Counts{NeedsInput: 1}, e.Counts())
	snap := s.Snapshot()
	assert.Equal(t, engine.RunBlocked, snap.RunState)
	assert.False(t, snap.Eligibility.Eligible)

	require.NoError(t, s.Confirm("", true))
	waitEvent(t, sub, func(ev engine.Event) bool { return ev.Type == engine.EventToolStarted && ev.Tool == "sleep" })
	assert.Equal(t, engine.RunProceeding, s.RunState())
	assert.Equal(t, engine.Counts{Proceeding: 1}, e.Counts())

	require.NoError(t, s.Interrupt(engine.ReasonUserStop))
	<-out
	assert.Equal(t, engine.RunInterrupted, s.RunState())
	assert.Equal(t, engine.Eligibility{Eligible: true}, s.Eligibility(), "sleep has no side effects")
	assert.Equal(t, engine.Counts{Eligible: 1}, e.Counts())
	assert.Equal(t, "Stopped by you", engine.ReasonLabel(s.Snapshot().Interruption.Reason))

	require.NoError(t, s.Close())
	assert.Equal(t, engine.RunTerminal, s.RunState())
}

func TestEmergencyStopLeavesBlockedSessionsAndIsIdempotent(t *testing.T) {
	t.Parallel()
	e, running := newEngine(t, []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{call("sleep", map[string]int{"ms": 600000})}}})
	blocked, err := e.NewSession(engine.SessionOptions{Provider: engine.NewScriptedProvider([]engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{ask(engine.PauseContinue, "look")}}})})
	require.NoError(t, err)
	idle, err := e.NewSession(engine.SessionOptions{})
	require.NoError(t, err)
	rsub, bsub := running.Subscribe(), blocked.Subscribe()
	defer rsub.Close()
	defer bsub.Close()
	out := start(t, running, "go")
	bout := start(t, blocked, "go")
	waitEvent(t, rsub, isType(engine.EventToolStarted))
	waitEvent(t, bsub, isType(engine.EventPaused))
	require.Equal(t, engine.Counts{Proceeding: 1, NeedsInput: 1}, e.Counts())

	assert.Equal(t, []string{running.ID()}, e.EmergencyStop().Stopped)
	assert.Empty(t, e.EmergencyStop().Stopped, "a second emergency stop stops nothing new")
	o := <-out
	assert.Equal(t, engine.ReasonEmergencyStop, o.Result.Interruption.Reason)
	assert.Equal(t, engine.RunBlocked, blocked.RunState(), "a blocked session is not proceeding")
	assert.Equal(t, engine.RunIdle, idle.RunState())
	assert.Equal(t, engine.Counts{Eligible: 1, NeedsInput: 1}, e.Counts())
	require.NoError(t, blocked.Resume(""))
	<-bout
}

func TestResumeAllResumesEligibleOnceAndReportsSkipped(t *testing.T) {
	t.Parallel()
	turns := []engine.ScriptTurn{
		{ToolCalls: []engine.ScriptCall{call("sleep", map[string]int{"ms": 600000})}},
		{ToolCalls: []engine.ScriptCall{call("sleep", map[string]int{"ms": 600000})}},
	}
	e, a := newEngine(t, turns)
	idle, err := e.NewSession(engine.SessionOptions{})
	require.NoError(t, err)
	sub := a.Subscribe()
	defer sub.Close()
	out := start(t, a, "go")
	waitEvent(t, sub, isType(engine.EventToolStarted))
	e.EmergencyStop()
	<-out

	rep := e.ResumeAll(t.Context())
	assert.Equal(t, []string{a.ID()}, rep.Resumed)
	assert.Equal(t, map[string]string{idle.ID(): engine.NotEligibleIdle}, rep.Skipped)
	waitEvent(t, sub, isType(engine.EventToolStarted))
	again := e.ResumeAll(t.Context())
	assert.Empty(t, again.Resumed, "never a parallel run")
	assert.Equal(t, engine.NotEligibleProceeding, again.Skipped[a.ID()])
	assert.Equal(t, "Resumed", findMarker(a.History(), "Resumed"))
}

// Given ids (what a user confirmed), ResumeAll resumes those alone: an
// eligible session not named stays interrupted, a named one that is gone
// is skipped as closed.
func TestResumeAllGivenIdsResumesThoseAlone(t *testing.T) {
	t.Parallel()
	turns := []engine.ScriptTurn{
		{ToolCalls: []engine.ScriptCall{call("sleep", map[string]int{"ms": 600000})}},
		{ToolCalls: []engine.ScriptCall{call("sleep", map[string]int{"ms": 600000})}},
	}
	e, a := newEngine(t, turns)
	b, err := e.NewSession(engine.SessionOptions{Provider: engine.NewScriptedProvider(turns)})
	require.NoError(t, err)
	var outs []<-chan engine.Outcome
	for _, s := range []*engine.Session{a, b} {
		sub := s.Subscribe()
		outs = append(outs, start(t, s, "go"))
		waitEvent(t, sub, isType(engine.EventToolStarted))
		sub.Close()
	}
	e.EmergencyStop()
	for _, out := range outs {
		<-out
	}

	rep := e.ResumeAll(t.Context(), b.ID(), "gone")
	assert.Equal(t, []string{b.ID()}, rep.Resumed)
	assert.Equal(t, map[string]string{"gone": engine.NotEligibleTerminal}, rep.Skipped)
	assert.Equal(t, engine.RunInterrupted, a.RunState(), "not named, not resumed")
}

func findMarker(h []engine.Message, text string) string {
	for _, m := range h {
		if m.Role == engine.RoleMarker && m.Text == text {
			return m.Text
		}
	}
	return ""
}

// A call running beside another call's question (parallel calls of one
// turn) keeps the run proceeding: Stop and emergency stop act on it. Once
// only the question is left, the run is blocked.
func TestARunWithACallRunningBesideAQuestionIsProceeding(t *testing.T) {
	t.Parallel()
	g := newGate()
	e, s := newEngine(t, []engine.ScriptTurn{
		{ToolCalls: []engine.ScriptCall{call("gate", nil), ask(engine.PauseConfirm, "sure?")}},
		{Text: "done"},
	}, engine.WithTool("gate", g))
	sub := s.Subscribe()
	defer sub.Close()
	out := start(t, s, "go")
	<-g.started
	waitEvent(t, sub, isType(engine.EventPaused))
	assert.Equal(t, engine.RunProceeding, s.RunState())
	assert.Equal(t, engine.Eligibility{Reason: engine.NotEligibleProceeding}, s.Eligibility())
	assert.Equal(t, engine.Counts{Proceeding: 1, NeedsInput: 1}, e.Counts())

	g.release <- struct{}{}
	ev := waitEvent(t, sub, func(ev engine.Event) bool { return ev.Type == engine.EventToolFinished && ev.Tool == "gate" })
	assert.Equal(t, engine.RunBlocked, s.RunState(), "only the question is left")
	assert.Equal(t, engine.StatusPaused, ev.Status)
	assert.Equal(t, engine.Counts{NeedsInput: 1}, e.Counts())
	assert.Empty(t, e.EmergencyStop().Stopped, "a run only waiting for an answer is not stopped")

	require.NoError(t, s.Confirm("", true))
	require.NoError(t, (<-out).Err)
}

// A session already stopping (its tool has not returned yet) is not one an
// emergency stop would affect: Counts leaves it out.
func TestCountsLeaveOutASessionAlreadyStopping(t *testing.T) {
	t.Parallel()
	g := newGate()
	g.holdAfterCancel = true
	e, s := newEngine(t, []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{call("gate", nil)}}}, engine.WithTool("gate", g))
	sub := s.Subscribe()
	defer sub.Close()
	out := start(t, s, "go")
	<-g.started
	require.Equal(t, engine.Counts{Proceeding: 1}, e.Counts())
	require.NoError(t, s.Interrupt(engine.ReasonUserStop))
	require.Equal(t, engine.StatusStopping, s.Status())
	assert.Equal(t, engine.Counts{}, e.Counts())
	g.release <- struct{}{}
	require.ErrorIs(t, (<-out).Err, engine.ErrInterrupted)
}
