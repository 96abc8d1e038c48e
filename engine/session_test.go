package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/interlock-dev/interlock/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
