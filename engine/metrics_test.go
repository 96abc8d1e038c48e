package engine_test

import (
	"context"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/internal/benchmetrics"
)

// TestMetrics measures the engine and writes $INTERLOCK_METRICS_DIR/engine.json
// (make bench). It is skipped unless that is set.
func TestMetrics(t *testing.T) {
	dir := benchmetrics.Dir(t)
	us := func(ds []time.Duration, p float64) benchmetrics.Metric {
		return benchmetrics.Micros(benchmetrics.Percentile(ds, p))
	}
	m := benchmetrics.Set{}

	interrupt := interruptLatencies(t, 2000)
	m["engine_interrupt_p50_us"] = us(interrupt, 50)
	m["engine_interrupt_p99_us"] = us(interrupt, 99)

	notify, answer := pauseLatencies(t, 2000)
	m["engine_pause_notify_p50_us"] = us(notify, 50)
	m["engine_pause_notify_p99_us"] = us(notify, 99)
	m["engine_pause_answer_p50_us"] = us(answer, 50)
	m["engine_pause_answer_p99_us"] = us(answer, 99)

	park := parkedSessions(t, 10_000)
	m["engine_parked_session_bytes"] = benchmetrics.Metric{Value: math.Round(park.bytes), Unit: "bytes"}
	m["engine_parked_session_goroutines"] = benchmetrics.Metric{Value: park.goroutines, Unit: "goroutines"}
	m["engine_park_all_10k_ms"] = benchmetrics.Millis(park.parkAll)
	m["engine_answer_all_10k_ms"] = benchmetrics.Millis(park.answerAll)

	m["engine_event_deliveries_per_s"] = benchmetrics.Metric{Value: math.Round(eventDeliveries(t, 100, 100_000)), Unit: "deliveries/s"}
	storeMetrics(t, m)
	m.Write(t, dir, "engine.json")
}

// interruptLatencies: Interrupt() until the status reads interrupted, while
// a tool blocks on its ctx. The status is read by spinning on it, the
// precise moment an observer polling Status() could see it.
func interruptLatencies(t *testing.T, n int) []time.Duration {
	started := make(chan struct{}, 1)
	block := engine.ToolFunc(func(ctx context.Context, _ engine.ToolCall, _ *engine.Env) (engine.Result, error) {
		started <- struct{}{}
		<-ctx.Done()
		return engine.Result{}, ctx.Err()
	})
	_, s := newEngine(t, []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{call("block", nil)}}}, engine.WithTool("block", block))
	out := make([]time.Duration, 0, n)
	for range n {
		done := start(t, s, "go")
		<-started
		t0 := time.Now()
		require.NoError(t, s.Interrupt(engine.ReasonUserStop))
		for s.Status() != engine.StatusInterrupted {
			runtime.Gosched()
		}
		out = append(out, time.Since(t0))
		<-done
	}
	return out
}

// pauseLatencies: a tool calls Pause -> an observer has the paused event
// (notify); the observer answers -> Pause returns in the tool (answer).
func pauseLatencies(t *testing.T, n int, opts ...engine.Option) (notify, answer []time.Duration) {
	raised := make([]time.Time, n)
	answered := make([]time.Time, n)
	returned := make([]time.Time, n)
	i := 0
	probe := engine.ToolFunc(func(ctx context.Context, _ engine.ToolCall, env *engine.Env) (engine.Result, error) {
		raised[i] = time.Now()
		_, err := env.Pause(ctx, engine.PauseRequest{Kind: engine.PauseConfirm, Message: "ok?"})
		returned[i] = time.Now()
		i++
		return engine.Result{Output: "ok"}, err
	})
	turns := make([]engine.ScriptTurn, n)
	for k := range turns {
		turns[k] = engine.ScriptTurn{ToolCalls: []engine.ScriptCall{call("probe", nil)}}
	}
	_, s := newEngine(t, turns, append(opts, engine.WithTool("probe", probe))...)
	sub := s.Subscribe()
	defer sub.Close()
	done := start(t, s, "go")
	for k := range n {
		ev := waitEvent(t, sub, isType(engine.EventPaused))
		seen := time.Now()
		notify = append(notify, seen.Sub(raised[k])) // raised[k] happened before the event was published
		answered[k] = time.Now()
		require.NoError(t, s.Confirm(ev.Pause.ID, true))
	}
	require.NoError(t, (<-done).Err)
	for k := range n {
		answer = append(answer, returned[k].Sub(answered[k]))
	}
	return notify, answer
}

type parkMetrics struct {
	bytes      float64       // heap and stack per parked session, after GC
	goroutines float64       // goroutines per parked session
	parkAll    time.Duration // create, start and reach the pause, n sessions
	answerAll  time.Duration // approve all until every run has finished
}

// parkedSessions parks n sessions at a confirm pause (the ask tool) and
// measures what each costs and how long parking and approving them all
// takes.
func parkedSessions(t *testing.T, n int) parkMetrics {
	e := engine.New(engine.WithProvider(engine.NewScriptedProvider([]engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{ask(engine.PauseConfirm, "ok?")}}})))
	defer e.Close()
	var m parkMetrics
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	g0 := runtime.NumGoroutine()
	sessions := make([]*engine.Session, n)
	outs := make([]<-chan engine.Outcome, n)
	t0 := time.Now()
	for k := range sessions {
		s, err := e.NewSession(engine.SessionOptions{})
		require.NoError(t, err)
		// As the addon starts runs: with a context that never ends.
		_, out, err := s.Start(context.Background(), "go")
		require.NoError(t, err)
		sessions[k], outs[k] = s, out
	}
	for _, s := range sessions {
		for s.Status() != engine.StatusPaused {
			runtime.Gosched()
		}
	}
	m.parkAll = time.Since(t0)
	runtime.GC()
	runtime.ReadMemStats(&after)
	m.bytes = float64(after.HeapAlloc+after.StackInuse-before.HeapAlloc-before.StackInuse) / float64(n)
	// The runs' first goroutines return right after raising the pause.
	for k := 0; runtime.NumGoroutine() > g0 && k < 1000; k++ {
		runtime.Gosched()
	}
	m.goroutines = float64(runtime.NumGoroutine()-g0) / float64(n)

	t0 = time.Now()
	for _, s := range sessions {
		require.NoError(t, s.Confirm("", true))
	}
	for _, o := range outs {
		require.NoError(t, (<-o).Err)
	}
	m.answerAll = time.Since(t0)
	return m
}

// eventDeliveries: one session emits events (tool progress), subs
// subscribers read them all; events x subscribers per second. The
// publisher lets the readers catch up every batch, so none is coalesced:
// each must see every version, strictly increasing.
func eventDeliveries(t *testing.T, subs, events int) float64 {
	const batch = 128 // below the session's ring of 256
	type cursor struct {
		atomic.Uint64
		_ [56]byte // one cache line each
	}
	seen := make([]cursor, subs)
	caughtUp := func(v uint64) {
		for k := range seen {
			for seen[k].Load() < v {
				runtime.Gosched()
			}
		}
	}
	var s *engine.Session
	emit := engine.ToolFunc(func(ctx context.Context, _ engine.ToolCall, env *engine.Env) (engine.Result, error) {
		for k := range events {
			env.Progress("x")
			if (k+1)%batch == 0 {
				caughtUp(s.Version())
			}
		}
		return engine.Result{Output: "ok"}, nil
	})
	_, s = newEngine(t, []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{call("emit", nil)}}}, engine.WithTool("emit", emit))
	var wg sync.WaitGroup
	var delivered atomic.Int64
	var bad atomic.Int64
	ready := make(chan struct{})
	v0 := s.Version() // before the run: every subscriber must see v0+1 first
	for k := range subs {
		sub := s.Subscribe()
		wg.Go(func() {
			defer sub.Close()
			<-ready
			last, n := v0, int64(0)
			defer func() { delivered.Add(n) }()
			for {
				ev, err := sub.Next(context.Background())
				if err != nil {
					return
				}
				if ev.Version != last+1 {
					bad.Add(1)
				}
				last = ev.Version
				seen[k].Store(last)
				n++
				if ev.Type.Terminal() {
					return
				}
			}
		})
	}
	close(ready)
	t0 := time.Now()
	_, err := s.Prompt(t.Context(), "go")
	require.NoError(t, err)
	wg.Wait()
	elapsed := time.Since(t0)
	require.Zero(t, bad.Load(), "every subscriber sees every version, in order")
	require.GreaterOrEqual(t, delivered.Load(), int64(subs*events))
	return float64(delivered.Load()) / elapsed.Seconds()
}
