package engine_test

import (
	"context"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
)

// engineGoroutines counts the goroutines of the caller's synctest bubble
// that have a frame of the engine on their stack.
func engineGoroutines(t *testing.T) int {
	t.Helper()
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	self := make([]byte, 1<<12)
	self = self[:runtime.Stack(self, false)]
	bubble := regexp.MustCompile(`synctest bubble \d+`).Find(self)
	require.NotNil(t, bubble, "call it inside synctest.Test")
	count := 0
	for g := range strings.SplitSeq(string(buf), "\n\n") {
		header, _, _ := strings.Cut(g, "\n")
		if strings.Contains(header, string(bubble)+"]") && strings.Contains(g, "interlock/engine.") {
			count++
		}
	}
	return count
}

// A run parked at the ask tool's question holds no goroutine: N sessions
// parked leave none behind, and the answers carry every run to its end.
func TestParkedRunHoldsNoGoroutine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 50
		e := engine.New(engine.WithProvider(engine.NewScriptedProvider([]engine.ScriptTurn{
			{ToolCalls: []engine.ScriptCall{ask(engine.PauseConfirm, "ok?")}},
		})))
		defer e.Close()
		sessions := make([]*engine.Session, n)
		outs := make([]<-chan engine.Outcome, n)
		for k := range sessions {
			s, err := e.NewSession(engine.SessionOptions{})
			require.NoError(t, err)
			sessions[k], outs[k] = s, start(t, s, "go")
		}
		synctest.Wait()
		for _, s := range sessions {
			require.Equal(t, engine.StatusPaused, s.Status())
		}
		assert.Zero(t, engineGoroutines(t), "goroutines of parked runs")

		for _, s := range sessions {
			require.NoError(t, s.Confirm("", true))
		}
		for k, o := range outs {
			out := <-o
			require.NoError(t, out.Err)
			assert.Equal(t, engine.StatusIdle, out.Result.Status)
			assert.Equal(t, "approved", lastTool(sessions[k].History()).Text)
		}
		synctest.Wait()
		assert.Zero(t, engineGoroutines(t), "goroutines after the runs ended")
	})
}

// What an observer sees of a parked run is what it sees of a run whose
// goroutine blocks in the tool (Prompt does not park): the same events in
// the same order, the same history and the same outcome, for every way a
// pause ends.
func TestParkedRunLooksLikeABlockedOne(t *testing.T) {
	type step func(t *testing.T, e *engine.Engine, s *engine.Session, p engine.Pause)
	tests := []struct {
		name   string
		end    step
		result string // what the tool result says
	}{
		{"approve", func(t *testing.T, _ *engine.Engine, s *engine.Session, p engine.Pause) {
			require.NoError(t, s.Confirm(p.ID, true, engine.AnsweredBy("test")))
		}, "approved"},
		{"deny with a reason", func(t *testing.T, _ *engine.Engine, s *engine.Session, p engine.Pause) {
			require.NoError(t, s.Confirm(p.ID, false, engine.WithReason("not now")))
		}, "denied: not now"},
		{"interrupt", func(t *testing.T, _ *engine.Engine, s *engine.Session, _ engine.Pause) {
			require.NoError(t, s.Interrupt(engine.ReasonUserStop))
		}, "interrupted before completion"},
		{"emergency stop, then stop", func(t *testing.T, e *engine.Engine, s *engine.Session, _ engine.Pause) {
			assert.Empty(t, e.EmergencyStop().Stopped, "a session waiting for its user is not proceeding")
			require.Equal(t, engine.StatusPaused, s.Status())
			require.NoError(t, s.Interrupt(engine.ReasonEmergencyStop))
		}, "interrupted before completion"},
		{"close", func(t *testing.T, _ *engine.Engine, s *engine.Session, _ engine.Pause) {
			require.NoError(t, s.Close())
			require.Equal(t, engine.StatusClosed, s.Status())
		}, "interrupted before completion"},
	}
	type seen struct {
		Type          engine.EventType
		Status        engine.Status
		Answer        engine.Answer
		Reason        engine.Reason
		Step          int
		Tool, Text, P string
	}
	observe := func(t *testing.T, parked bool, end step) ([]seen, []engine.Message, engine.Outcome, engine.RunState) {
		e, s := newEngine(t, []engine.ScriptTurn{
			{Text: "asking", ToolCalls: []engine.ScriptCall{ask(engine.PauseConfirm, "ok?")}},
			{Text: "done"},
		})
		sub := s.Subscribe()
		defer sub.Close()
		var out <-chan engine.Outcome
		if parked {
			out = start(t, s, "go")
		} else {
			ch := make(chan engine.Outcome, 1)
			go func() {
				res, err := s.Prompt(t.Context(), "go")
				ch <- engine.Outcome{Result: res, Err: err}
			}()
			out = ch
		}
		var evs []seen
		add := func(ev engine.Event) {
			sv := seen{Type: ev.Type, Status: ev.Status, Answer: ev.Answer, Reason: ev.Reason, Step: ev.Step, Tool: ev.Tool, Text: ev.Text}
			if ev.Pause != nil {
				sv.P = ev.Pause.ID
			}
			evs = append(evs, sv)
		}
		p := waitEvent(t, sub, func(ev engine.Event) bool { add(ev); return ev.Type == engine.EventPaused })
		end(t, e, s, *p.Pause)
		waitEvent(t, sub, func(ev engine.Event) bool { add(ev); return ev.Type.Terminal() })
		o := <-out
		o.Result.Run = 0 // run ids and times differ between the two engines
		if in := o.Result.Interruption; in != nil {
			in.Run, in.At = 0, time.Time{}
		}
		return evs, s.History(), o, s.RunState()
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wantEvs, wantHist, wantOut, wantState := observe(t, false, tt.end)
			evs, hist, out, state := observe(t, true, tt.end)
			assert.Equal(t, wantEvs, evs, "events")
			assert.Equal(t, wantHist, hist, "history")
			assert.Equal(t, wantOut.Result, out.Result, "result")
			assert.Equal(t, fmt.Sprint(wantOut.Err), fmt.Sprint(out.Err), "error")
			assert.Equal(t, wantState, state, "run state")
			assert.Equal(t, tt.result, lastTool(hist).Text)
		})
	}
}

// An answer is taken once: a second answer, or a stale one after the run
// went on to its next question, is refused and never releases that one.
func TestParkedQuestionIsAnsweredOnce(t *testing.T) {
	t.Parallel()
	_, s := newEngine(t, []engine.ScriptTurn{
		{ToolCalls: []engine.ScriptCall{ask(engine.PauseConfirm, "first?")}},
		{ToolCalls: []engine.ScriptCall{ask(engine.PauseContinue, "second?")}},
		{Text: "done"},
	})
	sub := s.Subscribe()
	defer sub.Close()
	out := start(t, s, "go")
	first := waitEvent(t, sub, isType(engine.EventPaused)).Pause
	require.NoError(t, s.Confirm(first.ID, true))
	err := s.Confirm(first.ID, true)
	require.Error(t, err, "a second answer to the same question")
	second := waitEvent(t, sub, isType(engine.EventPaused)).Pause
	require.Equal(t, "second?", second.Message)
	require.ErrorIs(t, s.Confirm(first.ID, false), engine.ErrUnknownPause)
	require.ErrorIs(t, s.Resume(first.ID), engine.ErrUnknownPause)
	p, ok := s.Pause()
	require.True(t, ok, "the second question is still pending")
	require.Equal(t, second.ID, p.ID)
	require.NoError(t, s.Resume(second.ID))
	require.NoError(t, (<-out).Err)
	answered := 0
	for _, m := range s.History() {
		if m.Role == engine.RoleTool {
			answered++
		}
	}
	require.Equal(t, 2, answered, "each call has exactly one result")
}

// An answer racing an interrupt: whichever comes first decides, the call
// is continued exactly once, and the run always ends.
func TestParkedAnswerRacingInterrupt(t *testing.T) {
	t.Parallel()
	for range 100 {
		_, s := newEngine(t, []engine.ScriptTurn{
			{ToolCalls: []engine.ScriptCall{ask(engine.PauseConfirm, "ok?")}},
			{Text: "done"},
		})
		sub := s.Subscribe()
		out := start(t, s, "go")
		p := waitEvent(t, sub, isType(engine.EventPaused)).Pause
		var wg sync.WaitGroup
		var answerErr, stopErr error
		wg.Go(func() { answerErr = s.Confirm(p.ID, true) })
		wg.Go(func() { stopErr = s.Interrupt(engine.ReasonUserStop) })
		wg.Wait()
		o := <-out
		var answers, finished int
		for {
			ev := waitEvent(t, sub, func(engine.Event) bool { return true })
			switch ev.Type {
			case engine.EventPauseAnswered:
				answers++
			case engine.EventToolFinished:
				finished++
			}
			if ev.Type.Terminal() {
				break
			}
		}
		sub.Close()
		require.Equal(t, 1, answers, "one answer to the question")
		require.Equal(t, 1, finished, "the call finished once")
		if answerErr != nil { // the interrupt took the question
			require.ErrorIs(t, answerErr, engine.ErrNotPaused)
			require.Equal(t, "interrupted before completion", lastTool(s.History()).Text)
		}
		if stopErr == nil {
			require.ErrorIs(t, o.Err, engine.ErrInterrupted)
		} else {
			require.ErrorIs(t, stopErr, engine.ErrNotRunning)
			require.NoError(t, o.Err)
		}
	}
}

// The caller's context ending stops a parked run like Interrupt(system_stop).
func TestParkedRunStopsWhenTheCallersContextEnds(t *testing.T) {
	t.Parallel()
	_, s := newEngine(t, []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{ask(engine.PauseConfirm, "ok?")}}})
	sub := s.Subscribe()
	defer sub.Close()
	ctx, cancel := context.WithCancel(t.Context())
	_, out, err := s.Start(ctx, "go")
	require.NoError(t, err)
	waitEvent(t, sub, isType(engine.EventPaused))
	cancel()
	o := <-out
	require.ErrorIs(t, o.Err, engine.ErrInterrupted)
	require.Equal(t, engine.ReasonSystemStop, o.Result.Interruption.Reason)
	require.False(t, o.Result.Interruption.SideEffectCut)
}

// Where a run cannot park, Ask blocks as Pause does and then finishes the
// call itself: parallel calls, a timeout on the question.
func TestAskBlocksWhereARunCannotPark(t *testing.T) {
	t.Parallel()
	asker := func(req engine.PauseRequest) engine.Tool {
		return engine.ToolFunc(func(ctx context.Context, c engine.ToolCall, env *engine.Env) (engine.Result, error) {
			return env.Ask(ctx, req, func(_ context.Context, res engine.PauseResult) (engine.Result, error) {
				return engine.Result{Output: c.ID + " " + string(res.Answer)}, nil
			})
		})
	}
	_, s := newEngine(t, []engine.ScriptTurn{
		{ToolCalls: []engine.ScriptCall{call("q", nil), call("q", nil)}},
		{ToolCalls: []engine.ScriptCall{call("late", nil)}},
		{Text: "done"},
	}, engine.WithTool("q", asker(engine.PauseRequest{Kind: engine.PauseContinue, Message: "go on?"})),
		engine.WithTool("late", asker(engine.PauseRequest{Kind: engine.PauseConfirm, Message: "quick!", Timeout: 1})))
	sub := s.Subscribe()
	defer sub.Close()
	out := start(t, s, "go")
	for range 2 {
		waitEvent(t, sub, isType(engine.EventPaused))
	}
	require.Len(t, s.Pauses(), 2, "both parallel calls ask at once")
	require.NoError(t, s.Resume(""))
	require.NoError(t, s.Resume(""))
	require.NoError(t, (<-out).Err)
	var results []string
	for _, m := range s.History() {
		if m.Role == engine.RoleTool {
			results = append(results, m.Text)
		}
	}
	require.Equal(t, []string{"call_1_1 resumed", "call_1_2 resumed", "call_4_1 timed_out"}, results)
}

// A model turn's context is its own (the run's gathers nothing from it),
// yet everything that ends the run ends the turn: an interrupt, the
// caller's context; and the stream's idle timeout ends only the turn, so a
// task loop fails that task and goes on with the next.
func TestModelTurnEndsWithItsRun(t *testing.T) {
	t.Parallel()
	stall := []engine.ScriptTurn{{Text: "stall", Hang: true}}
	t.Run("interrupt", func(t *testing.T) {
		t.Parallel()
		_, s := newEngine(t, stall)
		sub := s.Subscribe()
		defer sub.Close()
		out := start(t, s, "go")
		waitEvent(t, sub, isType(engine.EventText))
		require.NoError(t, s.Interrupt(engine.ReasonUserStop))
		o := <-out
		require.ErrorIs(t, o.Err, engine.ErrInterrupted)
		require.Equal(t, engine.ReasonUserStop, o.Result.Interruption.Reason)
	})
	t.Run("the caller's context", func(t *testing.T) {
		t.Parallel()
		_, s := newEngine(t, stall)
		sub := s.Subscribe()
		defer sub.Close()
		ctx, cancel := context.WithCancel(t.Context())
		_, out, err := s.Start(ctx, "go")
		require.NoError(t, err)
		waitEvent(t, sub, isType(engine.EventText))
		cancel()
		o := <-out
		require.ErrorIs(t, o.Err, engine.ErrInterrupted)
		require.Equal(t, engine.ReasonSystemStop, o.Result.Interruption.Reason)
	})
	t.Run("idle timeout in a task loop", func(t *testing.T) {
		t.Parallel()
		synctest.Test(t, func(t *testing.T) {
			e := engine.New(engine.WithStreamIdleTimeout(time.Minute), engine.WithProvider(engine.NewScriptedProvider(stall)))
			defer e.Close()
			s, err := e.NewSession(engine.SessionOptions{})
			require.NoError(t, err)
			ran := false
			tl, err := s.NewTaskLoop([]engine.Task{
				{Title: "stalls", Prompt: "go"},
				{Title: "next", Func: func(context.Context, *engine.Session) error { ran = true; return nil }},
			})
			require.NoError(t, err)
			require.NoError(t, tl.Run(t.Context()))
			st := tl.State()
			require.Equal(t, engine.TaskFailed, st.Tasks[0].Status)
			require.Contains(t, st.Tasks[0].Error, "idle timeout")
			require.True(t, ran, "the loop went on after the stalled task")
			require.Equal(t, engine.StatusIdle, s.Status())
		})
	})
}

// A run parked on a signal pause at a step boundary holds no goroutine
// either, and what observers see is what they see of a blocked one: before
// the first model turn, before a turn's tool calls, after the last turn.
func TestSignalPauseParksTheRun(t *testing.T) {
	t.Parallel()
	sleep0 := call("sleep", map[string]int{"ms": 0})
	tests := []struct {
		name    string
		turns   []engine.ScriptTurn
		atText  bool // request the pause at the first text, else before the run
		release func(s *engine.Session) error
	}{
		{"before the first turn, resumed", []engine.ScriptTurn{{Text: "hi"}}, false,
			func(s *engine.Session) error { return s.Signal(engine.SignalResume) }},
		{"before the tool calls, resumed", []engine.ScriptTurn{{Text: "a b c", ChunkDelayMS: 10, ToolCalls: []engine.ScriptCall{sleep0}}, {Text: "done"}}, true,
			func(s *engine.Session) error { return s.Resume("") }},
		{"after the last turn, resumed", []engine.ScriptTurn{{Text: "a b c", ChunkDelayMS: 10}}, true,
			func(s *engine.Session) error { return s.Signal(engine.SignalResume) }},
		{"before the tool calls, interrupted", []engine.ScriptTurn{{Text: "a b c", ChunkDelayMS: 10, ToolCalls: []engine.ScriptCall{sleep0}}, {Text: "done"}}, true,
			func(s *engine.Session) error { return s.Interrupt(engine.ReasonUserStop) }},
	}
	type seen struct {
		Type   engine.EventType
		Status engine.Status
		Answer engine.Answer
		Step   int
		Text   string
	}
	observe := func(t *testing.T, parked bool, turns []engine.ScriptTurn, atText bool, release func(*engine.Session) error) (evs []seen, hist []engine.Message, outErr string) {
		synctest.Test(t, func(t *testing.T) {
			e := engine.New(engine.WithProvider(engine.NewScriptedProvider(turns)))
			defer e.Close()
			s, err := e.NewSession(engine.SessionOptions{})
			require.NoError(t, err)
			sub := s.Subscribe()
			defer sub.Close()
			if !atText {
				require.NoError(t, s.Signal(engine.SignalPause))
			}
			out := make(chan engine.Outcome, 1)
			if parked {
				_, ch, err := s.Start(t.Context(), "go")
				require.NoError(t, err)
				go func() { out <- <-ch }()
			} else {
				go func() {
					res, err := s.Prompt(t.Context(), "go")
					out <- engine.Outcome{Result: res, Err: err}
				}()
			}
			add := func(ev engine.Event) { evs = append(evs, seen{ev.Type, ev.Status, ev.Answer, ev.Step, ev.Text}) }
			waitEvent(t, sub, func(ev engine.Event) bool {
				add(ev)
				if atText && ev.Type == engine.EventText && ev.Text == "a " {
					require.NoError(t, s.Signal(engine.SignalPause))
				}
				return ev.Type == engine.EventPaused
			})
			if parked {
				synctest.Wait()
				assert.Zero(t, engineGoroutines(t), "goroutines of the parked run")
			}
			require.NoError(t, release(s))
			waitEvent(t, sub, func(ev engine.Event) bool { add(ev); return ev.Type.Terminal() })
			o := <-out
			outErr = fmt.Sprint(o.Err)
			hist = s.History()
		})
		return evs, hist, outErr
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wantEvs, wantHist, wantErr := observe(t, false, tt.turns, tt.atText, tt.release)
			evs, hist, err := observe(t, true, tt.turns, tt.atText, tt.release)
			assert.Equal(t, wantEvs, evs, "events")
			assert.Equal(t, wantHist, hist, "history")
			assert.Equal(t, wantErr, err, "outcome")
		})
	}
}
