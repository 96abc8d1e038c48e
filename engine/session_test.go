package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
)

func TestStatusTransitions(t *testing.T) {
	t.Parallel()
	g := newGate()
	g.holdAfterCancel = true
	_, s := newEngine(t, []engine.ScriptTurn{
		{ToolCalls: []engine.ScriptCall{ask(engine.PauseContinue, "look")}},
		{ToolCalls: []engine.ScriptCall{call("gate", nil)}},
	}, engine.WithTool("gate", g))
	require.Equal(t, engine.StatusIdle, s.Status())
	sub := s.Subscribe()
	defer sub.Close()

	out := start(t, s, "go")
	assert.Equal(t, engine.StatusRunning, waitEvent(t, sub, isType(engine.EventRunStarted)).Status)
	assert.Equal(t, engine.StatusPaused, waitEvent(t, sub, isType(engine.EventPaused)).Status)
	require.Equal(t, engine.StatusPaused, s.Status())
	require.NoError(t, s.Resume(""))
	<-g.started
	require.Equal(t, engine.StatusRunning, s.Status())
	require.NoError(t, s.Interrupt(engine.ReasonUserStop))
	require.Equal(t, engine.StatusStopping, s.Status(), "stopping until the tool has really returned")
	stopping := s.Snapshot()
	require.NotNil(t, stopping.Stopping, "while stopping the snapshot says why")
	assert.Equal(t, engine.Stopping{Reason: engine.ReasonUserStop, Label: "Stopped by you"}, *stopping.Stopping)
	assert.Nil(t, stopping.Interruption, "the interruption is recorded once the run has unwound")
	close(g.release)
	o := <-out
	require.ErrorIs(t, o.Err, engine.ErrInterrupted)
	assert.Equal(t, engine.StatusInterrupted, o.Result.Status)
	assert.Equal(t, engine.StatusInterrupted, waitEvent(t, sub, isType(engine.EventInterrupted)).Status)
	snap := s.Snapshot()
	require.NotNil(t, snap.Interruption)
	assert.Equal(t, "Stopped by you", snap.Interruption.Label)
	assert.Nil(t, snap.Stopping, "stopped: no stop in progress")
	assert.True(t, snap.Interruption.SideEffectCut, "the gate tool has side effects")

	again := start(t, s, "again") // the script replays: it parks at the ask pause
	waitEvent(t, sub, isType(engine.EventPaused))
	assert.Equal(t, engine.ReasonUserStop, s.Snapshot().Interruption.Reason, "a new run keeps the last interruption on record")
	assert.Equal(t, engine.StatusPaused, s.Status(), "...but the status is the new run's")
	require.NoError(t, s.Close())
	require.ErrorIs(t, (<-again).Err, engine.ErrInterrupted, "closing interrupts the run")
	assert.Equal(t, engine.StatusClosed, s.Status())
	assert.Equal(t, engine.StatusClosed, waitEvent(t, sub, isType(engine.EventClosed)).Status)
}

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

func TestSessionsNeverSeeEachOther(t *testing.T) {
	t.Parallel()
	e, a := newEngine(t, []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{ask(engine.PauseConfirm, "x")}}})
	b, err := e.NewSession(engine.SessionOptions{})
	require.NoError(t, err)
	subA, subB := a.Subscribe(), b.Subscribe()
	defer subA.Close()
	defer subB.Close()
	outA, outB := start(t, a, "go"), start(t, b, "go")
	pa := waitEvent(t, subA, isType(engine.EventPaused))
	pb := waitEvent(t, subB, isType(engine.EventPaused))
	assert.Equal(t, a.ID(), pa.Session)
	assert.Equal(t, b.ID(), pb.Session)

	require.ErrorIs(t, a.Confirm(pb.Pause.ID+"x", true), engine.ErrUnknownPause)
	require.NoError(t, a.Interrupt(engine.ReasonUserStop))
	require.ErrorIs(t, (<-outA).Err, engine.ErrInterrupted)
	assert.Equal(t, engine.StatusPaused, b.Status(), "b's pause survives a's interrupt")
	require.NoError(t, b.Confirm("", true))
	require.NoError(t, (<-outB).Err)
	assert.Equal(t, engine.StatusInterrupted, a.Status())
	assert.Equal(t, engine.StatusIdle, b.Status())
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

func TestSignalPauseLandsAtStepBoundaryAndNeverCutsATool(t *testing.T) {
	t.Parallel()
	g := newGate()
	_, s := newEngine(t, []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{call("gate", nil)}}, {Text: "after"}}, engine.WithTool("gate", g))
	var mu sync.Mutex
	var got []engine.SignalInfo
	onPause := make(chan struct{}, 1)
	stop := s.OnSignal(engine.OnPause, func(i engine.SignalInfo) {
		mu.Lock()
		got = append(got, i)
		mu.Unlock()
		onPause <- struct{}{}
	})
	defer stop()
	resumed := make(chan engine.SignalInfo, 1)
	defer s.OnSignal(engine.OnResume, func(i engine.SignalInfo) { resumed <- i })()
	sub := s.Subscribe()
	defer sub.Close()

	out := start(t, s, "go")
	<-g.started
	require.NoError(t, s.Signal(engine.SignalPause))
	require.NoError(t, s.Signal(engine.SignalPause), "pause is idempotent")
	assert.Equal(t, engine.StatusRunning, s.Status(), "the tool keeps running")
	close(g.release)
	ev := waitEvent(t, sub, isType(engine.EventPaused))
	assert.Equal(t, engine.SourceSignal, ev.Pause.Source)
	<-onPause
	mu.Lock()
	assert.Equal(t, []engine.SignalInfo{{Event: engine.OnPause, Step: 2}}, got)
	mu.Unlock()
	assert.Equal(t, "gate released", lastTool(s.History()).Text, "the tool finished before the pause")
	require.NoError(t, s.Signal(engine.SignalResume))
	assert.Equal(t, 2, (<-resumed).Step)
	require.NoError(t, (<-out).Err)
	require.ErrorIs(t, s.Signal(engine.SignalResume), engine.ErrNotPaused)
}

func TestSignalPauseWhenModelEndsItsTurn(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		e := engine.New(engine.WithProvider(engine.NewScriptedProvider([]engine.ScriptTurn{{Text: "a b c", ChunkDelayMS: 10}})))
		defer e.Close()
		s, _ := e.NewSession(engine.SessionOptions{})
		_, out, err := s.Start(t.Context(), "go")
		require.NoError(t, err)
		synctest.Wait() // the stream waits between words
		require.NoError(t, s.Signal(engine.SignalPause))
		time.Sleep(time.Second) // fake time: the turn ends
		synctest.Wait()
		p, ok := s.Pause()
		require.True(t, ok, "parked after the final turn")
		assert.Equal(t, engine.SourceSignal, p.Source)
		require.NoError(t, s.Signal(engine.SignalCancel))
		o := <-out
		require.ErrorIs(t, o.Err, engine.ErrInterrupted)
		assert.Equal(t, "a b c", s.History()[1].Text)
	})
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

func TestEventsIdenticalForManyObservers(t *testing.T) {
	t.Parallel()
	_, s := newEngine(t, []engine.ScriptTurn{{Text: "one two three", ToolCalls: []engine.ScriptCall{ask(engine.PauseContinue, "x"), call("sleep", map[string]int{"ms": 1})}}, {Text: "done"}})
	subs := make([]*engine.Subscription[engine.Event], 8)
	for i := range subs {
		subs[i] = s.Subscribe()
		defer subs[i].Close()
	}
	out := start(t, s, "go")
	waitEvent(t, subs[0], isType(engine.EventPaused))
	require.NoError(t, s.Resume(""))
	require.NoError(t, (<-out).Err)
	require.NoError(t, s.Close())
	var seqs [][]engine.Event
	for _, sub := range subs {
		var seq []engine.Event
		for {
			ev, err := sub.Next(t.Context())
			if errors.Is(err, engine.ErrSubscriptionClosed) {
				break
			}
			require.NoError(t, err)
			seq = append(seq, ev)
		}
		seqs = append(seqs, seq)
	}
	for i, ev := range seqs[1] {
		assert.Equal(t, uint64(i+1), ev.Version, "versions are consecutive")
	}
	for i := 1; i < len(seqs); i++ {
		assert.Equal(t, seqs[1], seqs[i])
	}
	assert.Equal(t, engine.EventClosed, seqs[1][len(seqs[1])-1].Type)
}

func TestSlowObserverIsCoalescedNeverBlocks(t *testing.T) {
	t.Parallel()
	flood := engine.ToolFunc(func(ctx context.Context, c engine.ToolCall, env *engine.Env) (engine.Result, error) {
		for i := range 5000 {
			env.Progress(fmt.Sprint(i))
		}
		return engine.Result{Output: "ok"}, nil
	})
	_, s := newEngine(t, []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{call("flood", nil)}}}, engine.WithTool("flood", flood))
	slow := s.Subscribe() // never reads until the run is over
	defer slow.Close()
	_, err := s.Prompt(t.Context(), "go") // would deadlock if a reader could block the engine
	require.NoError(t, err)
	last := uint64(0)
	var types []engine.EventType
	for {
		ev, err := slow.Next(t.Context())
		require.NoError(t, err)
		require.Greater(t, ev.Version, last, "versions only grow")
		last = ev.Version
		types = append(types, ev.Type)
		if ev.Version == s.Version() {
			break
		}
	}
	assert.Less(t, len(types), 300, "coalesced, not replayed")
	assert.Equal(t, engine.EventRunFinished, types[len(types)-1], "the terminal transition is delivered")
}

// TestSlowEngineObserverKeepsEverySession: a reader of every session's
// events that falls far behind still ends with each session's latest state
// and each terminal transition, in log order.
func TestSlowObserverGetsEveryRunsTerminalEvent(t *testing.T) {
	t.Parallel()
	chatty := engine.ToolFunc(func(ctx context.Context, c engine.ToolCall, env *engine.Env) (engine.Result, error) {
		for i := range 20 {
			env.Progress(fmt.Sprint(i))
		}
		return engine.Result{Output: "ok"}, nil
	})
	_, s := newEngine(t, []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{call("chatty", nil)}}, {Text: "done"}}, engine.WithTool("chatty", chatty))
	slow := s.Subscribe() // never reads until every run is over
	defer slow.Close()
	const runs = 60 // over 1,000 events: far more than the ring keeps
	for range runs {
		_, err := s.Prompt(t.Context(), "go")
		require.NoError(t, err)
	}
	finished, n := 0, 0
	for last := uint64(0); last < s.Version(); n++ {
		ev, err := slow.Next(t.Context())
		require.NoError(t, err)
		require.Greater(t, ev.Version, last, "versions only grow")
		last = ev.Version
		if ev.Type == engine.EventRunFinished {
			finished++
		}
	}
	assert.Equal(t, runs, finished, "no run's terminal event is coalesced away")
	assert.Less(t, n, int(s.Version()), "the rest was coalesced")
}

func TestSlowEngineObserverKeepsEverySession(t *testing.T) {
	t.Parallel()
	flood := engine.ToolFunc(func(ctx context.Context, c engine.ToolCall, env *engine.Env) (engine.Result, error) {
		for i := range 500 {
			env.Progress(fmt.Sprint(i))
		}
		return engine.Result{Output: "ok"}, nil
	})
	e, s1 := newEngine(t, []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{call("flood", nil)}}}, engine.WithTool("flood", flood))
	require.NoError(t, s1.Close())
	slow := e.Subscribe() // reads only once every session is closed
	defer slow.Close()
	const n = 40
	var wg sync.WaitGroup
	for range n {
		s, err := e.NewSession(engine.SessionOptions{})
		require.NoError(t, err)
		wg.Go(func() {
			_, err := s.Prompt(t.Context(), "go")
			assert.NoError(t, err)
			assert.NoError(t, s.Close())
		})
	}
	wg.Wait()
	require.NoError(t, e.Close()) // ends the log: the reader stops after the last event

	last := map[string]engine.Event{}
	finished := map[string]bool{}
	var events int
	for {
		ev, err := slow.Next(t.Context())
		if errors.Is(err, engine.ErrSubscriptionClosed) {
			break
		}
		require.NoError(t, err)
		events++
		if prev, ok := last[ev.Session]; ok {
			require.Greater(t, ev.Version, prev.Version, "versions only grow within a session")
		}
		last[ev.Session] = ev
		finished[ev.Session] = finished[ev.Session] || ev.Type == engine.EventRunFinished
	}
	require.Len(t, last, n, "every session is seen")
	for id, ev := range last {
		assert.Equal(t, engine.EventClosed, ev.Type, "session %s ends closed", id)
		assert.True(t, finished[id], "session %s: its run_finished was kept", id)
	}
	assert.Less(t, events, n*500, "coalesced, not replayed")
}

func TestBadInputReturnsErrorsAndChangesNothing(t *testing.T) {
	t.Parallel()
	e, s := newEngine(t, []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{ask(engine.PauseContinue, "x")}}})
	closed, err := e.NewSession(engine.SessionOptions{ID: "closed"})
	require.NoError(t, err)
	require.NoError(t, closed.Close())
	require.NoError(t, closed.Close(), "Close is idempotent")

	for _, tt := range []struct {
		name string
		err  error
		fn   func() error
	}{
		{"unknown session", engine.ErrUnknownSession, func() error { _, err := e.Session("nope"); return err }},
		{"duplicate session id", engine.ErrDuplicateSession, func() error { _, err := e.NewSession(engine.SessionOptions{ID: s.ID()}); return err }},
		// Read as UTF-8 text (JSON, the web UI), "a\xff" would be "a\uFFFD": another session's id, whose pause an answer would reach.
		{"session id not UTF-8", engine.ErrInvalidArgument, func() error { _, err := e.NewSession(engine.SessionOptions{ID: "a\xff"}); return err }},
		{"answer when nothing is paused", engine.ErrNotPaused, func() error { return s.Resume("") }},
		{"confirm when nothing is paused", engine.ErrNotPaused, func() error { return s.Confirm("", true) }},
		{"interrupt an idle session", engine.ErrNotRunning, func() error { return s.Interrupt(engine.ReasonUserStop) }},
		{"unknown reason", engine.ErrInvalidArgument, func() error { return s.Interrupt("because") }},
		{"unknown signal", engine.ErrInvalidArgument, func() error { return s.Signal("jump") }},
		{"bad remember scope", engine.ErrInvalidArgument, func() error { return s.Confirm("", true, engine.Remember("forever")) }},
		{"continue an idle session", engine.ErrNotResumable, func() error { _, err := s.Continue(t.Context()); return err }},
		{"prompt a closed session", engine.ErrClosed, func() error { _, err := closed.Prompt(t.Context(), "x"); return err }},
		{"answer a closed session", engine.ErrClosed, func() error { return closed.Resume("") }},
		{"interrupt a closed session", engine.ErrClosed, func() error { return closed.Interrupt(engine.ReasonUserStop) }},
		{"signal a closed session", engine.ErrClosed, func() error { return closed.Signal(engine.SignalPause) }},
		{"closed session is gone from the engine", engine.ErrUnknownSession, func() error { _, err := e.Session("closed"); return err }},
	} {
		v := s.Version()
		err := tt.fn()
		require.ErrorIs(t, err, tt.err, tt.name)
		assert.NotEmpty(t, err.Error())
		assert.Equal(t, v, s.Version(), "%s changed the session", tt.name)
		assert.Equal(t, engine.StatusIdle, s.Status())
	}

	// While running: resuming a running session, prompting it again.
	sub := s.Subscribe()
	defer sub.Close()
	out := start(t, s, "go")
	waitEvent(t, sub, isType(engine.EventPaused))
	require.ErrorIs(t, s.Confirm("", true), engine.ErrWrongPauseKind)
	_, err = s.Prompt(t.Context(), "again")
	require.ErrorIs(t, err, engine.ErrRunning)
	require.ErrorIs(t, s.Resume("p999"), engine.ErrUnknownPause)
	require.NoError(t, s.Resume(""))
	require.NoError(t, (<-out).Err)
	require.ErrorIs(t, s.Resume(""), engine.ErrNotPaused, "resuming a session that is no longer paused")

	require.NoError(t, e.Close())
	require.NoError(t, e.Close(), "engine Close is idempotent")
	_, err = e.NewSession(engine.SessionOptions{})
	require.ErrorIs(t, err, engine.ErrClosed)
}

func TestToolErrorsAndPanicsReachTheModelNotTheProcess(t *testing.T) {
	t.Parallel()
	boom := engine.ToolFunc(func(context.Context, engine.ToolCall, *engine.Env) (engine.Result, error) { panic("boom") })
	_, s := newEngine(t, []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{call("boom", nil), call("nope", nil)}}}, engine.WithTool("boom", boom))
	_, err := s.Prompt(t.Context(), "go")
	require.NoError(t, err)
	h := s.History()
	assert.Contains(t, h[2].Text, "tool boom panicked: boom")
	assert.Contains(t, h[3].Text, `unknown tool: "nope"`)
	assert.True(t, h[2].IsError && h[3].IsError)
}

func TestContinueAfterInterruptAsksWhenASideEffectWasCut(t *testing.T) {
	t.Parallel()
	// The confirm names the call that was cut off: its tool and arguments,
	// none when it had none (null, as JS tools are called, or empty).
	for _, tt := range []struct {
		name    string
		args    json.RawMessage
		details string
	}{
		{"null arguments", json.RawMessage("null"), "gate"},
		{"no arguments", nil, "gate"},
		{"empty arguments", json.RawMessage(" { } "), "gate"},
		{"arguments", json.RawMessage(`{"env": "production"}`), `gate {"env": "production"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			continueAfterACutSideEffect(t, engine.ScriptCall{Name: "gate", Args: tt.args}, tt.details)
		})
	}
}

func continueAfterACutSideEffect(t *testing.T, c engine.ScriptCall, details string) {
	g := newGate()
	_, s := newEngine(t, []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{c}}, {Text: "finished"}}, engine.WithTool("gate", g))
	sub := s.Subscribe()
	defer sub.Close()
	out := start(t, s, "go")
	<-g.started
	require.NoError(t, s.Interrupt(engine.ReasonServerRestart))
	<-out
	snap := s.Snapshot()
	require.True(t, snap.Interruption.Resumable)
	assert.Equal(t, "Interrupted by server restart", snap.Interruption.Label)

	_, done, err := s.StartContinue(t.Context())
	require.NoError(t, err)
	_, _, err = s.StartContinue(t.Context())
	require.ErrorIs(t, err, engine.ErrRunning, "refused at once: a run is in flight")
	p := waitEvent(t, sub, isType(engine.EventPaused)).Pause
	assert.Equal(t, "Resume", p.Tool)
	assert.Equal(t, details, p.Details)
	require.NoError(t, s.Confirm("", true))
	require.NoError(t, (<-done).Err)
	h := s.History()
	assert.Equal(t, "finished", h[len(h)-1].Text)
	assert.Equal(t, engine.StatusIdle, s.Status())
	_, _, err = s.StartContinue(t.Context())
	require.ErrorIs(t, err, engine.ErrNotResumable, "the interruption was resumed already")
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

func TestCloseInterruptsAndWaits(t *testing.T) {
	t.Parallel()
	g := newGate()
	e, s := newEngine(t, []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{call("gate", nil)}}}, engine.WithTool("gate", g))
	closedLocal := make(chan struct{})
	s.Local("k", func() any { return closer(func() { close(closedLocal) }) })
	out := start(t, s, "go")
	<-g.started
	require.NoError(t, e.Close())
	o := <-out
	assert.Equal(t, engine.ReasonSystemStop, o.Result.Interruption.Reason)
	<-closedLocal
	assert.Equal(t, engine.StatusClosed, s.Status())
}

type closer func()

func (c closer) Close() error { c(); return nil }

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

// TestSignalPauseDuringResumeConfirmation: the "may repeat an action"
// confirmation of Continue is not a signal pause, so a pause signal sent
// while it is pending is kept and lands at the next step boundary.
func TestSignalPauseDuringResumeConfirmation(t *testing.T) {
	t.Parallel()
	a := askedToResume(t, "finished")
	s, sub, done := a.s, a.sub, a.done
	require.NoError(t, s.Signal(engine.SignalPause))
	require.True(t, s.Snapshot().PauseRequested, "the pause signal is not swallowed")
	require.NoError(t, s.Confirm("", true))
	parked := waitEvent(t, sub, isType(engine.EventPaused)).Pause
	assert.Equal(t, engine.SourceSignal, parked.Source)
	require.NoError(t, s.Signal(engine.SignalResume))
	require.NoError(t, (<-done).Err)
}

// TestSignalPauseBeforeTheFirstRun: the session is its own controller and
// exists before any run (seed 002), so a pause sent first parks the first
// run at its first step boundary, before the model is called.
func TestSignalPauseBeforeTheFirstRun(t *testing.T) {
	t.Parallel()
	_, s := newEngine(t, []engine.ScriptTurn{{Text: "hello"}})
	paused := make(chan engine.SignalInfo, 1)
	defer s.OnSignal(engine.OnPause, func(i engine.SignalInfo) { paused <- i })()
	require.NoError(t, s.Signal(engine.SignalPause))
	assert.Equal(t, engine.StatusIdle, s.Status())
	out := start(t, s, "go")
	assert.Equal(t, 0, (<-paused).Step, "parked before the first step")
	assert.Len(t, s.History(), 1, "the model was not called yet")
	require.NoError(t, s.Signal(engine.SignalResume))
	require.NoError(t, (<-out).Err)
	assert.Equal(t, "hello", s.History()[1].Text)
}

// TestGeneratedSessionIDsSkipChosenOnes: an id the caller chose ("s2") is
// never handed out again, and never makes a session without an id fail.
func TestGeneratedSessionIDsSkipChosenOnes(t *testing.T) {
	t.Parallel()
	e := engine.New()
	defer e.Close()
	chosen, err := e.NewSession(engine.SessionOptions{ID: "s2"})
	require.NoError(t, err)
	var ids []string
	for range 3 {
		s, err := e.NewSession(engine.SessionOptions{})
		require.NoError(t, err)
		ids = append(ids, s.ID())
	}
	assert.NotContains(t, ids, chosen.ID())
	assert.Len(t, e.Sessions(), 4)
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

// panicky is a provider that panics in Stream or, once streaming, in Recv.
type panicky struct{ inRecv bool }

func (p panicky) Stream(context.Context, engine.ModelRequest) (engine.Stream, error) {
	if !p.inRecv {
		panic("stream boom")
	}
	return p, nil
}
func (panicky) Recv(context.Context) (engine.Chunk, error) { panic("recv boom") }
func (panicky) Close() error                               { return nil }

func TestProviderPanicsFailTheRunNotTheProcess(t *testing.T) {
	t.Parallel()
	for _, inRecv := range []bool{false, true} {
		e := engine.New(engine.WithProvider(panicky{inRecv: inRecv}))
		t.Cleanup(func() { e.Close() })
		s, err := e.NewSession(engine.SessionOptions{})
		require.NoError(t, err)
		_, err = s.Prompt(t.Context(), "go")
		require.ErrorContains(t, err, "panicked")
		assert.Equal(t, engine.StatusIdle, s.Status(), "the session takes a new prompt")
	}
}

func TestTaskFuncPanicFailsTheTaskNotTheProcess(t *testing.T) {
	t.Parallel()
	tl, _ := newLoop(t, []engine.Task{
		{Title: "bad", Func: func(context.Context, *engine.Session) error { panic("task boom") }},
		{Title: "good", Func: func(context.Context, *engine.Session) error { return nil }},
	})
	require.NoError(t, tl.Run(t.Context()))
	st := tl.State()
	assert.Equal(t, engine.TaskFailed, st.Tasks[0].Status)
	assert.Contains(t, st.Tasks[0].Error, `task "bad" panicked: task boom`)
	assert.Equal(t, engine.TaskCompleted, st.Tasks[1].Status)
}

// A turn's tool calls run at most MaxParallelTools at once, the others in
// order as slots free. Attack: a server on 127.0.0.1 answering one turn
// with 1,000 calls had all 1,000 tools running together (with the bash
// tool: 1,000 commands and their supervisors at once). An interrupt ends
// the calls still waiting without running them.
func TestParallelToolCallsAreBounded(t *testing.T) {
	t.Parallel()
	for _, stop := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			var running, started atomic.Int32
			release := make(chan struct{})
			probe := engine.ToolFunc(func(ctx context.Context, c engine.ToolCall, env *engine.Env) (engine.Result, error) {
				running.Add(1)
				started.Add(1)
				defer running.Add(-1)
				select {
				case <-release:
					return engine.Result{Output: "ok"}, nil
				case <-ctx.Done():
					return engine.Result{}, context.Cause(ctx)
				}
			})
			calls := make([]engine.ScriptCall, 1000)
			for i := range calls {
				calls[i] = call("probe", nil)
			}
			_, s := newEngine(t, []engine.ScriptTurn{{ToolCalls: calls}}, engine.WithTool("probe", probe))
			out := start(t, s, "go")
			synctest.Wait()
			require.Equal(t, int32(engine.MaxParallelTools), running.Load(), "calls running at once")
			if !stop {
				close(release)
				require.NoError(t, (<-out).Err)
				assert.Equal(t, int32(1000), started.Load())
				return
			}
			require.NoError(t, s.Interrupt(engine.ReasonUserStop))
			require.ErrorIs(t, (<-out).Err, engine.ErrInterrupted)
			assert.Equal(t, int32(engine.MaxParallelTools), started.Load(), "the waiting calls never ran")
			var cut int
			for _, m := range s.History() {
				if m.Role == engine.RoleTool && m.Interrupted {
					cut++
				}
			}
			assert.Equal(t, 1000, cut, "every call has its result")
		})
	}
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

// TestSecondCloseWaitsForTheFirst: a Close racing another (the engine's
// close while a session's own close unwinds a tool) returns only once the
// tool is gone, so "closed" never means "still unwinding".
func TestSecondCloseWaitsForTheFirst(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		slow := engine.ToolFunc(func(ctx context.Context, c engine.ToolCall, env *engine.Env) (engine.Result, error) {
			<-ctx.Done()
			<-release // a tool that takes its time to die
			return engine.Result{}, ctx.Err()
		})
		e := engine.New(engine.WithTool("slow", slow), engine.WithProvider(engine.NewScriptedProvider([]engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{call("slow", nil)}}})))
		defer e.Close()
		s, err := e.NewSession(engine.SessionOptions{})
		require.NoError(t, err)
		_, out, err := s.Start(t.Context(), "go")
		require.NoError(t, err)
		synctest.Wait()
		first, second := make(chan error, 1), make(chan error, 1)
		go func() { first <- s.Close() }()
		synctest.Wait()
		go func() { second <- s.Close() }()
		synctest.Wait()
		select {
		case err := <-second:
			t.Fatalf("second Close returned while the tool still runs: %v", err)
		default:
		}
		close(release)
		require.NoError(t, <-first)
		require.NoError(t, <-second, "Close is idempotent")
		<-out
	})
}

// TestSubscribeAfterTheLastReaderLeft: events nobody reads are not kept
// (publishing them takes no lock of the log), and a subscription made after
// the last reader left gets exactly what comes after it, in order.
func TestSubscribeAfterTheLastReaderLeft(t *testing.T) {
	t.Parallel()
	chatty := engine.ToolFunc(func(ctx context.Context, c engine.ToolCall, env *engine.Env) (engine.Result, error) {
		for i := range 100 { // 200 events a round: within a session's ring (256)
			env.Progress(fmt.Sprint(i))
		}
		return engine.Result{Output: "ok"}, nil
	})
	e, s := newEngine(t, []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{call("chatty", nil)}}}, engine.WithTool("chatty", chatty))
	for round := range 3 {
		first := s.Version() + 1
		subs := []*engine.Subscription[engine.Event]{s.Subscribe(), e.Subscribe()}
		_, err := s.Prompt(t.Context(), "go")
		require.NoError(t, err)
		for _, sub := range subs {
			for want := first; want <= s.Version(); want++ {
				ev, err := sub.Next(t.Context())
				require.NoError(t, err)
				require.Equal(t, want, ev.Version, "round %d: every event after the subscription, in order", round)
			}
			sub.Close()
		}
		_, err = s.Prompt(t.Context(), "go") // nobody reads these
		require.NoError(t, err)
	}
}

// Sessions lists the open sessions in creation order, whatever their ids,
// closed ones left out.
func TestSessionsListInCreationOrder(t *testing.T) {
	t.Parallel()
	e := engine.New()
	t.Cleanup(func() { e.Close() })
	var want []string
	for i := range 300 {
		id := ""
		if i%3 == 0 {
			id = fmt.Sprintf("z%d", 1000-i) // ids that sort the other way
		}
		s, err := e.NewSession(engine.SessionOptions{ID: id})
		require.NoError(t, err)
		if i%7 == 0 {
			require.NoError(t, s.Close())
			continue
		}
		want = append(want, s.ID())
	}
	var got []string
	for _, s := range e.Sessions() {
		got = append(got, s.ID())
	}
	assert.Equal(t, want, got)
}
