package engine_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
)

// napProvider plays a task that runs a long sleep (no side effects), then
// ends its turn; quickProvider a task that ends at once.
func napProvider() *engine.ScriptedProvider {
	return engine.NewScriptedProvider([]engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{call("sleep", map[string]int{"ms": 600000})}}, {Text: "woke up"}})
}

func quickProvider() *engine.ScriptedProvider {
	return engine.NewScriptedProvider([]engine.ScriptTurn{{Text: "done"}})
}

// promptTasks: a quick task, one that sleeps until it is interrupted, and
// two quick ones.
func promptTasks() []engine.Task {
	return []engine.Task{
		{Title: "one", Prompt: "first", Provider: quickProvider()},
		{Title: "two", Prompt: "second", Provider: napProvider()},
		{Title: "three", Prompt: "third", Provider: quickProvider()},
		{Title: "four", Prompt: "fourth", Provider: quickProvider()},
	}
}

// texts are the texts of h's messages of role.
func texts(h []engine.Message, role engine.Role) []string {
	var out []string
	for _, m := range h {
		if m.Role == role {
			out = append(out, m.Text)
		}
	}
	return out
}

// waitLoopEvent reads the engine's stream until a loop event of type tp.
func waitLoopEvent(t *testing.T, sub *engine.Subscription[engine.Event], session string, tp engine.TaskEventType) engine.TaskEvent {
	t.Helper()
	ev := waitEvent(t, sub, func(ev engine.Event) bool { return ev.Session == session && ev.Loop != nil && ev.Loop.Type == tp })
	return *ev.Loop
}

// waitLoopEvents reads the engine's stream until each session's loop has
// sent an event of type tp.
func waitLoopEvents(t *testing.T, sub *engine.Subscription[engine.Event], tp engine.TaskEventType, sessions ...string) {
	t.Helper()
	left := map[string]bool{}
	for _, id := range sessions {
		left[id] = true
	}
	for len(left) > 0 {
		ev := waitEvent(t, sub, func(ev engine.Event) bool { return ev.Loop != nil && ev.Loop.Type == tp })
		delete(left, ev.Session)
	}
}

// Esc while a prompt task runs a tool, then Continue: the task's agent run
// goes on (its prompt is not sent again), then the remaining tasks, in
// order, with the counts of the whole loop.
func TestEscThenContinueFinishesTheLoop(t *testing.T) {
	t.Parallel()
	_, s := newEngine(t, nil)
	tl, err := s.NewTaskLoop(promptTasks(), engine.WithTaskPauseMode(false))
	require.NoError(t, err)
	sub := s.Subscribe()
	defer sub.Close()
	loopSub := tl.Subscribe()
	defer loopSub.Close()
	firstRun, done, err := tl.Start(t.Context())
	require.NoError(t, err)
	waitEvent(t, sub, func(ev engine.Event) bool { return ev.Type == engine.EventToolStarted && ev.Tool == "sleep" })
	require.NoError(t, s.Interrupt(engine.ReasonUserStop))
	require.ErrorIs(t, <-done, engine.ErrInterrupted)

	st := tl.State()
	assert.Equal(t, []engine.TaskStatus{engine.TaskCompleted, engine.TaskInterrupted, engine.TaskPending, engine.TaskPending}, statuses(st))
	assert.True(t, st.Interrupted)
	assert.False(t, st.Done)
	assert.Equal(t, engine.RunInterrupted, s.RunState())
	assert.Equal(t, engine.Eligibility{Eligible: true}, s.Eligibility(), "sleep has no side effects: nothing to confirm")
	assert.Equal(t, tl.ID(), s.Snapshot().Interruption.Loop)
	_, _, err = tl.Start(t.Context())
	require.ErrorIs(t, err, engine.ErrRunning, "Start runs a loop once; Continue resumes it")

	res, err := s.Continue(t.Context())
	require.NoError(t, err)
	assert.Equal(t, engine.StatusIdle, res.Status)
	assert.Greater(t, res.Run, firstRun)

	st = tl.State()
	assert.Equal(t, []engine.TaskStatus{engine.TaskCompleted, engine.TaskCompleted, engine.TaskCompleted, engine.TaskCompleted}, statuses(st))
	assert.Equal(t, [2]int{4, 0}, [2]int{st.Completed, st.Failed})
	assert.True(t, st.Done)
	assert.False(t, st.Interrupted)
	h := s.History()
	assert.Equal(t, []string{"first", "second", "third", "fourth"}, texts(h, engine.RoleUser), "the cut task goes on; its prompt is not sent again")
	assert.Equal(t, []string{"Stopped by you", "Resumed"}, texts(h, engine.RoleMarker))
	expectTaskEvents(t, loopSub, "started:-1", "task_begin:0", "task_end:0", "task_begin:1", "interrupted:1",
		"resumed:1", "task_begin:1", "task_end:1", "task_begin:2", "task_end:2", "task_begin:3", "task_end:3", "completed:-1")
}

// A Go function task cut by Esc runs again from its start when the loop is
// resumed, after the user confirms it (what it had done is unknown).
func TestResumedFuncTaskRunsAgainAfterConfirmation(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var ran []int
	cutOnce := make(chan struct{})
	var cut atomic.Bool
	tasks := make([]engine.Task, 4)
	for i := range tasks {
		tasks[i] = engine.Task{Title: fmt.Sprintf("task %d", i+1), Func: func(ctx context.Context, _ *engine.Session) error {
			mu.Lock()
			ran = append(ran, i+1)
			mu.Unlock()
			if i == 1 && !cut.Swap(true) {
				close(cutOnce)
				<-ctx.Done()
				return ctx.Err()
			}
			return nil
		}}
	}
	_, s := newEngine(t, nil)
	tl, err := s.NewTaskLoop(tasks)
	require.NoError(t, err)
	sub := s.Subscribe()
	defer sub.Close()
	_, done, err := tl.Start(t.Context())
	require.NoError(t, err)
	<-cutOnce
	require.NoError(t, s.Interrupt(engine.ReasonUserStop))
	require.ErrorIs(t, <-done, engine.ErrInterrupted)
	assert.Equal(t, engine.Eligibility{Eligible: true, RepeatsSideEffect: true}, s.Eligibility())

	_, out, err := s.StartContinue(t.Context())
	require.NoError(t, err)
	p := waitEvent(t, sub, isType(engine.EventPaused)).Pause
	assert.Equal(t, "Resume", p.Tool)
	assert.Contains(t, p.Details, "Task 2 (task 2)")
	assert.Contains(t, p.Details, "runs again from its start")
	mu.Lock()
	assert.Equal(t, []int{1, 2}, ran, "nothing runs before the confirmation")
	mu.Unlock()
	require.NoError(t, s.Confirm(p.ID, true))
	require.NoError(t, (<-out).Err)
	assert.Equal(t, []int{1, 2, 2, 3, 4}, ran)
	st := tl.State()
	assert.Equal(t, [2]int{4, 0}, [2]int{st.Completed, st.Failed})
	assert.True(t, st.Done)
}

// Denying the confirmation ends the loop: recorded, and not resumable.
func TestDeniedLoopResumptionEndsTheLoop(t *testing.T) {
	t.Parallel()
	tasks, started, _ := blockingTasks(2)
	tl, sub := newLoop(t, tasks)
	s := tl.Session()
	ssub := s.Subscribe()
	defer ssub.Close()
	done := startLoop(t, tl)
	<-started
	require.NoError(t, s.Interrupt(engine.ReasonUserStop))
	<-done
	_, out, err := s.StartContinue(t.Context())
	require.NoError(t, err)
	p := waitEvent(t, ssub, isType(engine.EventPaused)).Pause
	require.NoError(t, s.Confirm(p.ID, false, engine.WithReason("not again")))
	require.NoError(t, (<-out).Err)
	expectTaskEvents(t, sub, "started:-1", "task_begin:0", "interrupted:0", "completed:-1")
	st := tl.State()
	assert.True(t, st.Done)
	assert.False(t, st.Interrupted)
	assert.Equal(t, "Resume denied: not again", texts(s.History(), engine.RoleMarker)[1])
	assert.Equal(t, engine.RunIdle, s.RunState())
}

// Emergency stop interrupts the loops running a task, not one waiting
// between tasks; then many concurrent ResumeAll calls resume each stopped
// loop once, and each finishes its remaining tasks once.
func TestEmergencyStopThenResumeAllResumesLoops(t *testing.T) {
	t.Parallel()
	e := engine.New()
	t.Cleanup(func() { e.Close() })
	sub := e.Subscribe()
	defer sub.Close()
	var running []*engine.Session
	var loops []*engine.TaskLoop
	for range 3 {
		s, err := e.NewSession(engine.SessionOptions{})
		require.NoError(t, err)
		tl, err := s.NewTaskLoop(promptTasks()[1:])
		require.NoError(t, err)
		_, _, err = tl.Start(t.Context())
		require.NoError(t, err)
		waitEvent(t, sub, func(ev engine.Event) bool { return ev.Session == s.ID() && ev.Type == engine.EventToolStarted })
		running, loops = append(running, s), append(loops, tl)
	}
	waiting, err := e.NewSession(engine.SessionOptions{})
	require.NoError(t, err)
	wl, err := waiting.NewTaskLoop(funcTasks(2), engine.WithTaskPauseMode(true))
	require.NoError(t, err)
	_, wdone, err := wl.Start(t.Context())
	require.NoError(t, err)
	waitLoopEvent(t, sub, waiting.ID(), engine.TaskEventPaused)

	ids := func(ss []*engine.Session) []string {
		var out []string
		for _, s := range ss {
			out = append(out, s.ID())
		}
		return out
	}
	assert.Equal(t, engine.Counts{Proceeding: 3, NeedsInput: 1}, e.Counts())
	assert.ElementsMatch(t, ids(running), e.EmergencyStop().Stopped)
	waitLoopEvents(t, sub, engine.TaskEventInterrupted, ids(running)...)
	assert.True(t, wl.State().Paused, "a loop waiting between tasks is not touched")
	assert.Equal(t, engine.Counts{Eligible: 3, NeedsInput: 1}, e.Counts())

	var wg sync.WaitGroup
	reports := make([]engine.ResumeReport, 8)
	for i := range reports {
		wg.Go(func() { reports[i] = e.ResumeAll(t.Context()) })
	}
	wg.Wait()
	var resumed []string
	for _, r := range reports {
		resumed = append(resumed, r.Resumed...)
	}
	assert.ElementsMatch(t, ids(running), resumed, "each loop resumed once")
	waitLoopEvents(t, sub, engine.TaskEventCompleted, ids(running)...)
	for _, tl := range loops {
		st := tl.State()
		assert.Equal(t, [2]int{3, 0}, [2]int{st.Completed, st.Failed}, tl.ID())
		assert.Equal(t, []string{"second", "third", "fourth"}, texts(tl.Session().History(), engine.RoleUser), "no task ran twice")
		assert.Equal(t, []string{"Stopped by emergency stop", "Resumed"}, texts(tl.Session().History(), engine.RoleMarker))
	}
	wl.Continue()
	require.NoError(t, <-wdone)
}

// After a restart with a store, a loop of prompt tasks comes back (titles,
// prompts, its tasks' own models, statuses, pause mode) and Continue
// resumes it; a loop with Go function tasks cannot be made again and says
// so.
func TestLoopsAfterARestart(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.db")
	e := openStore(t, path, nil)
	prompts, err := e.NewSession(engine.SessionOptions{ID: "prompts"})
	require.NoError(t, err)
	funcs, err := e.NewSession(engine.SessionOptions{ID: "funcs"})
	require.NoError(t, err)
	sub := e.Subscribe()
	defer sub.Close()

	pl, err := prompts.NewTaskLoop(promptTasks(), engine.WithTaskPauseMode(true))
	require.NoError(t, err)
	_, pdone, err := pl.Start(t.Context())
	require.NoError(t, err)
	waitLoopEvent(t, sub, "prompts", engine.TaskEventPaused)
	pl.Continue()
	waitEvent(t, sub, func(ev engine.Event) bool { return ev.Session == "prompts" && ev.Type == engine.EventToolStarted })
	require.NoError(t, prompts.Interrupt(engine.ReasonUserStop))
	require.ErrorIs(t, <-pdone, engine.ErrInterrupted)

	tasks, started, _ := blockingTasks(2)
	fl, err := funcs.NewTaskLoop(tasks)
	require.NoError(t, err)
	_, fdone, err := fl.Start(t.Context())
	require.NoError(t, err)
	<-started
	require.NoError(t, funcs.Interrupt(engine.ReasonUserStop))
	<-fdone
	running, err := e.NewSession(engine.SessionOptions{ID: "running"})
	require.NoError(t, err)
	rl, err := running.NewTaskLoop(promptTasks()[1:])
	require.NoError(t, err)
	_, _, err = rl.Start(t.Context())
	require.NoError(t, err)
	waitEvent(t, sub, func(ev engine.Event) bool { return ev.Session == "running" && ev.Type == engine.EventToolStarted })

	history := prompts.History()
	require.NoError(t, e.Close()) // "running" is stopped by the close, and kept

	e = openStore(t, path, nil) // no engine provider: the tasks' own models are restored
	s, err := e.Session("prompts")
	require.NoError(t, err)
	assert.Equal(t, engine.Eligibility{Eligible: true}, s.Eligibility())
	assert.Equal(t, history, s.History())
	loops := s.TaskLoops()
	require.Len(t, loops, 1)
	tl := loops[0]
	st := tl.State()
	assert.Equal(t, pl.ID(), st.ID)
	assert.Equal(t, []engine.TaskStatus{engine.TaskCompleted, engine.TaskInterrupted, engine.TaskPending, engine.TaskPending}, statuses(st))
	assert.Equal(t, "three", st.Tasks[2].Title)
	assert.True(t, st.PauseMode)
	assert.True(t, st.Interrupted)
	assert.Equal(t, 1, st.Completed)

	lsub := tl.Subscribe()
	defer lsub.Close()
	_, out, err := s.StartContinue(t.Context())
	require.NoError(t, err)
	expectTaskEvents(t, lsub, "resumed:1", "task_begin:1", "task_end:1", "paused:1")
	tl.ContinueAll()
	require.NoError(t, (<-out).Err)
	st = tl.State()
	assert.Equal(t, [2]int{4, 0}, [2]int{st.Completed, st.Failed})
	assert.True(t, st.Done)
	assert.Equal(t, []string{"first", "second", "third", "fourth"}, texts(s.History(), engine.RoleUser))

	// The loop the engine's close stopped comes back as after a crash
	// (interrupted by server restart) and resumes too.
	r, err := e.Session("running")
	require.NoError(t, err)
	assert.Equal(t, engine.ReasonServerRestart, r.Snapshot().Interruption.Reason)
	require.Len(t, r.TaskLoops(), 1)
	rsub := r.TaskLoops()[0].Subscribe()
	defer rsub.Close()
	run, err := r.TaskLoops()[0].Continue()
	require.NoError(t, err)
	assert.NotZero(t, run)
	for ev := nextTaskEvent(t, rsub); ev.Type != engine.TaskEventCompleted; ev = nextTaskEvent(t, rsub) {
	}
	assert.Equal(t, 3, r.TaskLoops()[0].State().Completed)

	f, err := e.Session("funcs")
	require.NoError(t, err)
	assert.Equal(t, engine.Eligibility{Reason: engine.NotEligibleTaskLoop}, f.Eligibility())
	assert.Empty(t, f.TaskLoops())
	_, err = f.Continue(t.Context())
	require.ErrorIs(t, err, engine.ErrNotResumable)
	assert.Contains(t, err.Error(), "Go function tasks cannot be resumed after a restart")
	assert.Equal(t, engine.NotEligibleTaskLoop, e.ResumeAll(t.Context()).Skipped["funcs"])
}

// Every way to resume a stopped loop, called at once from many goroutines,
// makes one run of it: the loop's Continue, its session's and ResumeAll.
func TestConcurrentResumptionsMakeOneRun(t *testing.T) {
	t.Parallel()
	e, s := newEngine(t, nil)
	tl, err := s.NewTaskLoop(promptTasks())
	require.NoError(t, err)
	sub := s.Subscribe()
	defer sub.Close()
	_, done, err := tl.Start(t.Context())
	require.NoError(t, err)
	waitEvent(t, sub, isType(engine.EventToolStarted))
	require.NoError(t, s.Interrupt(engine.ReasonUserStop))
	<-done
	loopSub := tl.Subscribe()
	defer loopSub.Close()

	var wg sync.WaitGroup
	var runs atomic.Int32
	for i := range 12 {
		wg.Go(func() {
			switch i % 3 {
			case 0:
				if run, err := tl.Continue(); err == nil && run != 0 {
					runs.Add(1)
				}
			case 1:
				if _, _, err := s.StartContinue(t.Context()); err == nil {
					runs.Add(1)
				}
			case 2:
				if rep := e.ResumeAll(t.Context()); len(rep.Resumed) == 1 {
					runs.Add(1)
				}
			}
		})
	}
	wg.Wait()
	assert.Equal(t, int32(1), runs.Load())
	for {
		ev := nextTaskEvent(t, loopSub)
		if ev.Type == engine.TaskEventCompleted {
			break
		}
	}
	st := tl.State()
	assert.Equal(t, [3]any{4, 0, true}, [3]any{st.Completed, st.Failed, st.Done})
	assert.Equal(t, []string{"first", "second", "third", "fourth"}, texts(s.History(), engine.RoleUser))
	run, err := tl.Continue()
	require.NoError(t, err)
	assert.Zero(t, run, "done: nothing to resume")
}

// A stopped loop that was then closed cannot be resumed, and says so.
func TestClosedLoopIsNotResumable(t *testing.T) {
	t.Parallel()
	tasks, started, _ := blockingTasks(2)
	tl, _ := newLoop(t, tasks)
	s := tl.Session()
	done := startLoop(t, tl)
	<-started
	require.NoError(t, s.Interrupt(engine.ReasonUserStop))
	<-done
	tl.Close()
	assert.True(t, tl.State().Done)
	assert.False(t, tl.State().Interrupted)
	assert.Equal(t, engine.Eligibility{Reason: engine.NotEligibleLoopClosed}, s.Eligibility())
	_, err := s.Continue(t.Context())
	require.ErrorIs(t, err, engine.ErrNotResumable)
	run, err := tl.Continue()
	require.NoError(t, err)
	assert.Zero(t, run)
}
