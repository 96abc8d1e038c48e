package engine_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
)

// funcTasks returns n tasks that succeed at once, but for the failing
// indexes, which fail with "task <i> broke".
func funcTasks(n int, failing ...int) []engine.Task {
	tasks := make([]engine.Task, n)
	for i := range tasks {
		tasks[i] = engine.Task{Title: fmt.Sprintf("task %d", i+1), Func: func(context.Context, *engine.Session) error {
			for _, f := range failing {
				if f == i {
					return fmt.Errorf("task %d broke", i+1)
				}
			}
			return nil
		}}
	}
	return tasks
}

func newLoop(t *testing.T, tasks []engine.Task, opts ...engine.TaskOption) (*engine.TaskLoop, *engine.Subscription[engine.TaskEvent]) {
	t.Helper()
	_, s := newEngine(t, nil)
	tl, err := s.NewTaskLoop(tasks, opts...)
	require.NoError(t, err)
	t.Cleanup(tl.Close)
	sub := tl.Subscribe()
	t.Cleanup(sub.Close)
	return tl, sub
}

// nextTaskEvent reads the next loop event, whatever it is.
func nextTaskEvent(t *testing.T, sub *engine.Subscription[engine.TaskEvent]) engine.TaskEvent {
	t.Helper()
	ev, err := sub.Next(t.Context())
	require.NoError(t, err, "waiting for a task-loop event")
	return ev
}

// expectTaskEvents reads events and checks their types and task indexes,
// written as "task_begin:0".
func expectTaskEvents(t *testing.T, sub *engine.Subscription[engine.TaskEvent], want ...string) {
	t.Helper()
	for _, w := range want {
		ev := nextTaskEvent(t, sub)
		require.Equal(t, w, fmt.Sprintf("%s:%d", ev.Type, ev.Task))
	}
}

func startLoop(t *testing.T, tl *engine.TaskLoop) <-chan error {
	t.Helper()
	_, done, err := tl.Start(t.Context())
	require.NoError(t, err)
	return done
}

func TestTaskLoopPausesAfterEachTask(t *testing.T) {
	t.Parallel()
	tl, sub := newLoop(t, funcTasks(3), engine.WithTaskPauseMode(true))
	done := startLoop(t, tl)
	expectTaskEvents(t, sub, "started:-1", "task_begin:0", "task_end:0")
	ev := nextTaskEvent(t, sub)
	require.Equal(t, engine.TaskEventPaused, ev.Type)
	assert.Equal(t, "Task 1 complete. Press Enter to continue or 'p' to switch to continuous mode", ev.Message)
	assert.True(t, ev.PauseMode)

	st := tl.State()
	assert.True(t, st.Paused)
	assert.Equal(t, []engine.TaskStatus{engine.TaskCompleted, engine.TaskPending, engine.TaskPending}, statuses(st))
	// The wait is a pause of the session: it shows paused, Enter answers it.
	s := tl.Session()
	assert.Equal(t, engine.StatusPaused, s.Status())
	p, ok := s.Pause()
	require.True(t, ok)
	assert.Equal(t, engine.SourceTask, p.Source)
	assert.Equal(t, "Tasks", p.Tool)
	assert.Equal(t, ev.Message, p.Message)

	require.NoError(t, s.Resume(""), "Enter through the session continues the loop")
	expectTaskEvents(t, sub, "resumed:0", "task_begin:1", "task_end:1", "paused:1")
	tl.Continue()
	expectTaskEvents(t, sub, "resumed:1", "task_begin:2", "task_end:2", "completed:-1")
	require.NoError(t, <-done)
	st = tl.State()
	assert.False(t, st.Paused, "no pause after the last task")
	assert.True(t, st.Done)
	assert.Equal(t, 3, st.Completed)
	assert.Equal(t, engine.StatusIdle, s.Status())
}

func statuses(st engine.TaskLoopState) []engine.TaskStatus {
	var out []engine.TaskStatus
	for _, ti := range st.Tasks {
		out = append(out, ti.Status)
	}
	return out
}

func TestTaskLoopContinuousByDefault(t *testing.T) {
	t.Parallel()
	tl, sub := newLoop(t, funcTasks(3, 1))
	assert.False(t, tl.IsPauseMode())
	require.NoError(t, tl.Run(t.Context()))
	expectTaskEvents(t, sub, "started:-1", "task_begin:0", "task_end:0", "task_begin:1", "failed:1", "task_begin:2", "task_end:2")
	ev := nextTaskEvent(t, sub)
	assert.Equal(t, engine.TaskEventCompleted, ev.Type)
	assert.Equal(t, "2 completed, 1 failed", ev.Message)
	assert.Empty(t, ev.Error)
	_, err := sub.Next(t.Context())
	assert.ErrorIs(t, err, engine.ErrSubscriptionClosed, "the loop's events end with completed")
}

func TestTaskLoopDefaultPauseModeFromConfig(t *testing.T) {
	t.Parallel()
	_, s := newEngine(t, nil, engine.WithDefaultPauseMode(true))
	tl, err := s.NewTaskLoop(funcTasks(1))
	require.NoError(t, err)
	assert.True(t, tl.IsPauseMode(), "default_pause_mode: true")
	tl2, err := s.NewTaskLoop(funcTasks(1), engine.WithTaskPauseMode(false))
	require.NoError(t, err)
	assert.False(t, tl2.IsPauseMode(), "the loop's own option wins")
	require.NoError(t, tl.Run(t.Context()), "a single task never pauses, even in pause mode")
	assert.Equal(t, 1, tl.State().Completed)
	tl2.Close()
}

func TestTaskLoopFailureStillPauses(t *testing.T) {
	t.Parallel()
	tl, sub := newLoop(t, funcTasks(2, 0), engine.WithTaskPauseMode(true))
	done := startLoop(t, tl)
	expectTaskEvents(t, sub, "started:-1", "task_begin:0")
	ev := nextTaskEvent(t, sub)
	require.Equal(t, engine.TaskEventFailed, ev.Type)
	assert.Equal(t, "task 1 broke", ev.Error)
	ev = nextTaskEvent(t, sub)
	require.Equal(t, engine.TaskEventPaused, ev.Type)
	assert.Equal(t, "Task failed: task 1 broke", ev.Error, "the pause shows the error")
	p, ok := tl.Session().Pause()
	require.True(t, ok)
	assert.Equal(t, "Task failed: task 1 broke", p.Details)
	st := tl.State()
	assert.Equal(t, 1, st.Failed)
	assert.Equal(t, "task 1 broke", st.Tasks[0].Error)

	tl.Continue()
	require.NoError(t, <-done)
	st = tl.State()
	assert.Equal(t, 1, st.Completed)
	assert.Equal(t, 1, st.Failed)
	assert.True(t, tl.IsPauseMode(), "Next stays in pause mode")
}

// blockingTasks returns n tasks; each reports on started and waits for a
// value on release (or the end of its ctx).
func blockingTasks(n int) (tasks []engine.Task, started chan int, release chan struct{}) {
	started, release = make(chan int, n), make(chan struct{})
	for i := range n {
		tasks = append(tasks, engine.Task{Title: fmt.Sprintf("task %d", i+1), Func: func(ctx context.Context, _ *engine.Session) error {
			started <- i
			select {
			case <-release:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}})
	}
	return tasks, started, release
}

func TestTaskLoopToggleDuringTask(t *testing.T) {
	t.Parallel()
	tasks, started, release := blockingTasks(3)
	tl, sub := newLoop(t, tasks)
	done := startLoop(t, tl)
	require.Equal(t, 0, <-started)
	tl.Continue() // not paused: does nothing, and is not remembered
	tl.SetPauseMode(true)
	tl.SetPauseMode(true) // no change: no event
	expectTaskEvents(t, sub, "started:-1", "task_begin:0")
	ev := nextTaskEvent(t, sub)
	require.Equal(t, engine.TaskEventPauseModeChanged, ev.Type)
	assert.True(t, ev.PauseMode, "the event carries the new mode")
	assert.Equal(t, engine.TaskRunning, tl.State().Tasks[0].Status, "the task is not cut")

	release <- struct{}{}
	expectTaskEvents(t, sub, "task_end:0", "paused:0")
	assert.True(t, tl.State().Paused, "the earlier Continue did not release this pause")

	// Switching to continuous while paused continues at once, and for good.
	tl.SetPauseMode(false)
	ev = nextTaskEvent(t, sub)
	require.Equal(t, engine.TaskEventPauseModeChanged, ev.Type)
	assert.False(t, ev.PauseMode)
	expectTaskEvents(t, sub, "resumed:0", "task_begin:1")
	close(release)
	expectTaskEvents(t, sub, "task_end:1", "task_begin:2", "task_end:2", "completed:-1")
	require.NoError(t, <-done)
}

func TestTaskLoopContinueAll(t *testing.T) {
	t.Parallel()
	tl, sub := newLoop(t, funcTasks(3), engine.WithTaskPauseMode(true))
	done := startLoop(t, tl)
	expectTaskEvents(t, sub, "started:-1", "task_begin:0", "task_end:0", "paused:0")
	tl.ContinueAll()
	expectTaskEvents(t, sub, "pause_mode_changed:0", "resumed:0", "task_begin:1", "task_end:1", "task_begin:2", "task_end:2", "completed:-1")
	require.NoError(t, <-done)
	assert.False(t, tl.IsPauseMode())
}

func TestTaskLoopCancelWhilePaused(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"interrupt", "context", "close"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			tl, sub := newLoop(t, funcTasks(3), engine.WithTaskPauseMode(true))
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			_, done, err := tl.Start(ctx)
			require.NoError(t, err)
			expectTaskEvents(t, sub, "started:-1", "task_begin:0", "task_end:0", "paused:0")
			switch how {
			case "interrupt":
				require.NoError(t, tl.Session().Interrupt(engine.ReasonUserStop))
			case "context":
				cancel()
			case "close":
				tl.Close()
			}
			require.ErrorIs(t, <-done, engine.ErrInterrupted)
			ev := nextTaskEvent(t, sub)
			assert.Contains(t, ev.Error, "interrupted")
			st := tl.State()
			if how == "close" { // closed: over
				require.Equal(t, engine.TaskEventCompleted, ev.Type)
				assert.True(t, st.Done)
			} else { // stopped: resumable
				require.Equal(t, engine.TaskEventInterrupted, ev.Type)
				assert.Equal(t, 0, ev.Task, "cut after task 1")
				assert.False(t, st.Done)
				assert.True(t, st.Interrupted)
			}
			assert.False(t, st.Paused)
			assert.Equal(t, []engine.TaskStatus{engine.TaskCompleted, engine.TaskPending, engine.TaskPending}, statuses(st))
			assert.Equal(t, engine.StatusInterrupted, tl.Session().Status())
			if how == "close" {
				run, err := tl.Continue() // after the end: nothing happens
				require.NoError(t, err)
				assert.Zero(t, run)
			}
			tl.SetPauseMode(false)
		})
	}
}

func TestTaskLoopInterruptDuringTask(t *testing.T) {
	t.Parallel()
	tasks, started, _ := blockingTasks(2)
	tl, sub := newLoop(t, tasks)
	done := startLoop(t, tl)
	<-started
	require.NoError(t, tl.Session().Interrupt(engine.ReasonEmergencyStop))
	require.ErrorIs(t, <-done, engine.ErrInterrupted)
	expectTaskEvents(t, sub, "started:-1", "task_begin:0", "interrupted:0")
	st := tl.State()
	assert.Equal(t, []engine.TaskStatus{engine.TaskInterrupted, engine.TaskPending}, statuses(st))
	assert.Equal(t, [2]int{0, 0}, [2]int{st.Completed, st.Failed}, "a cut task is neither")
	assert.True(t, st.Interrupted)
	assert.False(t, st.Done)
	snap := tl.Session().Snapshot()
	require.NotNil(t, snap.Interruption)
	assert.Equal(t, engine.ReasonEmergencyStop, snap.Interruption.Reason)
}

func TestTaskLoopPromptTasks(t *testing.T) {
	t.Parallel()
	// Each prompt replays the script: a tool call, then a closing text.
	// The second task's tool is unknown, so its last tool result is an
	// error and the task fails.
	ok := engine.NewScriptedProvider([]engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{call("sleep", map[string]int{"ms": 1})}}, {Text: "done"}})
	bad := engine.NewScriptedProvider([]engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{call("no_such_tool", nil)}}, {Text: "oops"}})
	tl, sub := newLoop(t, []engine.Task{
		{Title: "nap", Prompt: "sleep a little", Provider: ok},
		{Title: "broken", Prompt: "call a missing tool", Provider: bad},
		{Title: "nap again", Prompt: "sleep again", Provider: ok},
	})
	require.NoError(t, tl.Run(t.Context()))
	expectTaskEvents(t, sub, "started:-1", "task_begin:0", "task_end:0", "task_begin:1", "failed:1", "task_begin:2", "task_end:2", "completed:-1")
	st := tl.State()
	assert.Contains(t, st.Tasks[1].Error, "no_such_tool")
	assert.Equal(t, []string{"sleep a little", "call a missing tool", "sleep again"}, texts(tl.Session().History(), engine.RoleUser))
}

// TestTaskLoopConcurrentControl hammers the controls from many goroutines
// while the loop runs; under -race it checks the locking, and the loop must
// still end with every task run once and versions strictly increasing.
func TestTaskLoopConcurrentControl(t *testing.T) {
	t.Parallel()
	const n = 40
	tl, sub := newLoop(t, funcTasks(n), engine.WithTaskPauseMode(true))
	done := startLoop(t, tl)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				switch (g + i) % 5 {
				case 0:
					tl.SetPauseMode(i%2 == 0)
				case 1:
					tl.Continue()
				case 2:
					tl.Continue()
				case 3:
					_ = tl.State()
				case 4:
					_ = tl.IsPauseMode()
				}
			}
		})
	}
	// Stop hammering once, whichever comes first: enough contention, or
	// the end of the loop (a coalesced reader may never count n/2 begins,
	// and the hammering goroutines must not outlive the test).
	var stopOnce sync.Once
	stopHammering := func() {
		stopOnce.Do(func() {
			close(stop)
			wg.Wait()
		})
	}
	defer stopHammering()
	var last uint64
	begun := map[int]int{}
	for {
		ev, err := sub.Next(t.Context())
		if errors.Is(err, engine.ErrSubscriptionClosed) {
			break
		}
		require.NoError(t, err)
		require.Greater(t, ev.Version, last)
		last = ev.Version
		if ev.Type == engine.TaskEventTaskBegin {
			begun[ev.Task]++
		}
		if len(begun) > n/2 {
			// Enough contention: stop hammering and let the loop finish.
			stopHammering()
			tl.ContinueAll()
		}
	}
	stopHammering()
	require.NoError(t, <-done)
	// A reader this far behind may be coalesced past some events (the
	// toggles flood the log), but no task ever begins twice.
	for i, c := range begun {
		assert.Equal(t, 1, c, "task %d began once", i)
	}
	st := tl.State()
	assert.Equal(t, n, st.Completed)
	assert.Equal(t, 0, st.Failed)
}

func TestTaskLoopBadInput(t *testing.T) {
	t.Parallel()
	_, s := newEngine(t, nil)
	_, err := s.NewTaskLoop(nil)
	require.ErrorIs(t, err, engine.ErrInvalidArgument)
	_, err = s.NewTaskLoop([]engine.Task{{Title: "empty"}})
	require.ErrorIs(t, err, engine.ErrInvalidArgument)
	assert.Contains(t, err.Error(), `task 1 ("empty") has neither a prompt nor a func`)

	tl, err := s.NewTaskLoop(funcTasks(1))
	require.NoError(t, err)
	require.NoError(t, tl.Run(t.Context()))
	_, _, err = tl.Start(t.Context())
	require.ErrorIs(t, err, engine.ErrRunning, "a loop runs once")

	// A busy session cannot start a loop; the loop stays startable.
	tasks, started, release := blockingTasks(1)
	busy, err := s.NewTaskLoop(tasks)
	require.NoError(t, err)
	_, done, err := busy.Start(t.Context())
	require.NoError(t, err)
	<-started
	other, err := s.NewTaskLoop(funcTasks(1))
	require.NoError(t, err)
	_, _, err = other.Start(t.Context())
	require.ErrorIs(t, err, engine.ErrRunning)
	close(release)
	require.NoError(t, <-done)
	require.NoError(t, other.Run(t.Context()))

	require.NoError(t, s.Close())
	_, err = s.NewTaskLoop(funcTasks(1))
	require.ErrorIs(t, err, engine.ErrClosed)
}

// TestTaskLoopCloseWaitsForTheEnd: when Close returns, the loop is done and
// its events have ended (it used to return before the loop's goroutine had
// finished).
func TestTaskLoopCloseWaitsForTheEnd(t *testing.T) {
	t.Parallel()
	for range 50 {
		tl, sub := newLoop(t, funcTasks(3), engine.WithTaskPauseMode(true))
		startLoop(t, tl)
		expectTaskEvents(t, sub, "started:-1", "task_begin:0", "task_end:0", "paused:0")
		tl.Close()
		require.True(t, tl.State().Done, "done when Close returns")
		expectTaskEvents(t, sub, "completed:-1")
		ctx, cancel := context.WithCancel(t.Context())
		cancel() // the events have ended: Next must not need to wait
		_, err := sub.Next(ctx)
		require.ErrorIs(t, err, engine.ErrSubscriptionClosed)
	}
}
