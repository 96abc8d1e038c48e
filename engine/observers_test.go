package engine_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/interlock-dev/interlock/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
