package engine_test

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/store"
	_ "modernc.org/sqlite"
)

// crashChildEnv makes the test binary a store owner that a test kills;
// with closeChildEnv set as well, it closes its engine and exits instead.
const (
	crashChildEnv = "INTERLOCK_ENGINE_CRASH_CHILD"
	closeChildEnv = "INTERLOCK_ENGINE_CLOSE_CHILD"
)

func openStore(t *testing.T, path string, turns []engine.ScriptTurn) *engine.Engine {
	t.Helper()
	e, err := engine.Open(t.Context(), engine.WithStore(path), engine.WithProvider(engine.NewScriptedProvider(turns)))
	require.NoError(t, err)
	t.Cleanup(func() { e.Close() })
	return e
}

// A clean restart keeps every session, in order, with its history, tokens
// and state; the audit log has every decision; new ids and runs don't
// collide with stored ones.
func TestStoreKeepsSessionsAcrossARestart(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.db")
	turns := []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{ask(engine.PauseConfirm, "delete it?")}}, {Text: "done", Usage: &engine.Usage{Input: 7, Output: 3}}}
	e := openStore(t, path, turns)
	a, err := e.NewSession(engine.SessionOptions{ID: "a", Environ: []string{"API_KEY=sk-secret-value"}})
	require.NoError(t, err)
	b, err := e.NewSession(engine.SessionOptions{})
	require.NoError(t, err)
	sub := a.Subscribe()
	out := start(t, a, "tidy up")
	p := waitEvent(t, sub, isType(engine.EventPaused)).Pause
	require.NoError(t, a.Confirm(p.ID, true, engine.Remember("once"), engine.AnsweredBy("tui")))
	res := <-out
	require.NoError(t, res.Err)
	sub.Close()
	interrupted(t, b, engine.ReasonUserStop)
	want := map[string]engine.Snapshot{}
	history := map[string][]engine.Message{}
	for _, s := range e.Sessions() {
		want[s.ID()], history[s.ID()] = s.Snapshot(), s.History()
	}
	require.NoError(t, e.Close())

	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.NotContains(t, string(raw), "sk-secret-value", "environment values are never stored")

	e = openStore(t, path, turns)
	var ids []string
	for _, s := range e.Sessions() {
		ids = append(ids, s.ID())
		snap := s.Snapshot()
		assert.Equal(t, history[s.ID()], s.History(), s.ID())
		assert.Equal(t, want[s.ID()].Tokens, snap.Tokens, s.ID())
		assert.Equal(t, want[s.ID()].Step, snap.Step, s.ID())
		assert.Equal(t, want[s.ID()].RunState, snap.RunState, s.ID())
		assert.Equal(t, want[s.ID()].Eligibility, snap.Eligibility, s.ID())
	}
	assert.Equal(t, []string{"a", b.ID()}, ids, "creation order")
	rb, err := e.Session(b.ID())
	require.NoError(t, err)
	assert.Equal(t, engine.ReasonUserStop, rb.Snapshot().Interruption.Reason)

	audit, err := e.AuditLog(t.Context(), "a")
	require.NoError(t, err)
	require.Len(t, audit, 2)
	assert.Equal(t, []string{"raised", "answered"}, []string{audit[0].Event, audit[1].Event})
	assert.Equal(t, p.ID, audit[1].Pause)
	assert.Equal(t, "approved", audit[1].Answer)
	assert.Equal(t, "tui", audit[1].By)
	assert.Equal(t, "once", audit[1].Remember)

	c, err := e.NewSession(engine.SessionOptions{Provider: engine.NewScriptedProvider([]engine.ScriptTurn{{Text: "hello"}})})
	require.NoError(t, err)
	assert.NotContains(t, ids, c.ID())
	runID, done, err := c.Start(t.Context(), "hi")
	require.NoError(t, err)
	<-done
	assert.Greater(t, runID, want[b.ID()].Interruption.Run, "run ids go on from the stored ones")

	// A session closed by its user is forgotten; the engine's close keeps them.
	require.NoError(t, c.Close())
	require.NoError(t, e.Close())
	e = openStore(t, path, turns)
	assert.Len(t, e.Sessions(), 2)
}

// crashChild runs sessions in every state over the store at path, prints
// each session's history once they are there, and waits to be killed (or,
// with closeChildEnv, closes the engine as a host shutting down does).
func crashChild(path string) {
	ctx := context.Background()
	fail := func(err error) {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	sleep := engine.ScriptTurn{ToolCalls: []engine.ScriptCall{call("sleep", map[string]int{"ms": 600000})}}
	confirm := engine.ScriptTurn{ToolCalls: []engine.ScriptCall{ask(engine.PauseConfirm, "really?")}}
	e, err := engine.Open(ctx, engine.WithStore(path))
	if err != nil {
		fail(err)
	}
	sub := e.Subscribe()
	session := func(id string, turns ...engine.ScriptTurn) *engine.Session {
		s, err := e.NewSession(engine.SessionOptions{ID: id, Provider: engine.NewScriptedProvider(turns)})
		if err != nil {
			fail(err)
		}
		return s
	}
	until := func(id string, tp engine.EventType) {
		for {
			ev, err := sub.Next(ctx)
			if err != nil {
				fail(err)
			}
			if ev.Session == id && ev.Type == tp && ev.Loop == nil {
				return
			}
		}
	}
	idle := session("idle", engine.ScriptTurn{Text: "hello"})
	if _, err := idle.Prompt(ctx, "hi"); err != nil {
		fail(err)
	}
	stopped := session("stopped", sleep, engine.ScriptTurn{Text: "done"})
	if _, _, err := stopped.Start(ctx, "go"); err != nil {
		fail(err)
	}
	until("stopped", engine.EventToolStarted)
	stopped.Interrupt(engine.ReasonUserStop)
	until("stopped", engine.EventInterrupted)
	running := session("running", sleep, engine.ScriptTurn{Text: "done"})
	if _, _, err := running.Start(ctx, "go"); err != nil {
		fail(err)
	}
	until("running", engine.EventToolStarted)
	asking := session("asking", confirm, engine.ScriptTurn{Text: "done"})
	if _, _, err := asking.Start(ctx, "go"); err != nil {
		fail(err)
	}
	until("asking", engine.EventPaused)
	looping := session("looping")
	tl, err := looping.NewTaskLoop([]engine.Task{{Title: "wait", Func: func(ctx context.Context, _ *engine.Session) error {
		<-ctx.Done()
		return ctx.Err()
	}}, {Title: "then", Func: func(context.Context, *engine.Session) error { return nil }}})
	if err != nil {
		fail(err)
	}
	if _, _, err := tl.Start(ctx); err != nil {
		fail(err)
	}
	for { // until its first task runs
		ev, err := sub.Next(ctx)
		if err != nil {
			fail(err)
		}
		if ev.Loop != nil && ev.Loop.Type == engine.TaskEventTaskBegin {
			break
		}
	}
	// Loops of prompt tasks: one running a tool, one asking a tool's
	// question in its first task, one waiting between tasks in pause mode.
	loop := func(id string, first engine.ScriptTurn, opts ...engine.TaskOption) {
		tl, err := session(id).NewTaskLoop([]engine.Task{
			{Title: "first", Prompt: "first", Provider: engine.NewScriptedProvider([]engine.ScriptTurn{first, {Text: "one"}})},
			{Title: "then", Prompt: "then", Provider: engine.NewScriptedProvider([]engine.ScriptTurn{{Text: "done"}})},
		}, opts...)
		if err != nil {
			fail(err)
		}
		if _, _, err := tl.Start(ctx); err != nil {
			fail(err)
		}
	}
	loop("prompting", sleep)
	until("prompting", engine.EventToolStarted)
	loop("questioning", confirm)
	until("questioning", engine.EventPaused)
	loop("between", engine.ScriptTurn{Text: "one"}, engine.WithTaskPauseMode(true))
	until("between", engine.EventPaused)
	seen := map[string][]engine.Message{}
	for _, s := range e.Sessions() {
		seen[s.ID()] = s.History()
	}
	b, _ := json.Marshal(seen)
	fmt.Println(string(b))
	if os.Getenv(closeChildEnv) != "" {
		if err := e.Close(); err != nil {
			fail(err)
		}
		os.Exit(0)
	}
	select {} // killed here
}

// The owner of a store is killed (SIGKILL) with sessions in every state. A
// new owner finds: the proceeding ones interrupted by server restart (a
// question they waited on asked again when continued, a task loop of
// prompt tasks resumed, one of Go functions honestly not resumable), the
// others as they were, histories as seen before the
// kill, the audit log complete and the file sound.
func TestRecoveryAfterTheOwnerIsKilled(t *testing.T) {
	t.Parallel()
	testRecovery(t, func(cmd *exec.Cmd) {
		require.NoError(t, cmd.Process.Kill())
		cmd.Wait()
	})
}

// The owner closes its engine, as a host shutting down does (SIGTERM,
// process exit): the new owner finds exactly what a kill leaves, not runs
// stopped by the system with their questions withdrawn.
func TestRecoveryAfterTheOwnerClosed(t *testing.T) {
	t.Parallel()
	testRecovery(t, func(cmd *exec.Cmd) {
		require.NoError(t, cmd.Wait(), "the owner closed its engine and exited")
	}, closeChildEnv+"=1")
}

func testRecovery(t *testing.T, end func(*exec.Cmd), env ...string) {
	path := filepath.Join(t.TempDir(), "s.db")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), crashChildEnv+"="+path), env...)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err, "child output: %s", line)
	var seen map[string][]engine.Message
	require.NoError(t, json.Unmarshal([]byte(line), &seen), "child said: %s", line)
	end(cmd)

	e := openStore(t, path, []engine.ScriptTurn{{Text: "unused"}, {Text: "done"}})
	_, err = engine.Open(t.Context(), engine.WithStore(path))
	require.ErrorIs(t, err, store.ErrLocked, "one owner at a time")

	restart := engine.Message{Role: engine.RoleMarker, Text: "Interrupted by server restart", Reason: engine.ReasonServerRestart}
	get := func(id string) *engine.Session {
		s, err := e.Session(id)
		require.NoError(t, err)
		return s
	}
	var ids []string
	for _, s := range e.Sessions() {
		ids = append(ids, s.ID())
	}
	assert.Equal(t, []string{"idle", "stopped", "running", "asking", "looping", "prompting", "questioning", "between"}, ids)

	assert.Equal(t, engine.RunIdle, get("idle").RunState())
	assert.Equal(t, seen["idle"], get("idle").History())
	assert.Equal(t, engine.ReasonUserStop, get("stopped").Snapshot().Interruption.Reason)
	assert.Equal(t, seen["stopped"], get("stopped").History())

	running := get("running")
	assert.Equal(t, engine.RunInterrupted, running.RunState())
	assert.Equal(t, engine.StatusInterrupted, running.Status())
	assert.Equal(t, engine.ReasonServerRestart, running.Snapshot().Interruption.Reason)
	assert.Equal(t, engine.Eligibility{Eligible: true}, running.Eligibility())
	h := running.History()
	require.Len(t, h, len(seen["running"])+2)
	assert.Equal(t, seen["running"], h[:len(seen["running"])], "history as reported before the kill")
	assert.Equal(t, "interrupted before completion", h[len(h)-2].Text, "the cut call has its result")
	assert.Equal(t, restart, h[len(h)-1])

	asking := get("asking")
	assert.Equal(t, engine.RunBlocked, asking.RunState())
	assert.Equal(t, engine.NotEligibleAskAgain, asking.Eligibility().Reason)
	require.NotNil(t, asking.Snapshot().NeedsInput)
	assert.Equal(t, "really?", asking.Snapshot().NeedsInput.Message)
	require.ErrorIs(t, asking.Confirm("", true), engine.ErrNotPaused, "the old question cannot be answered: it is asked again")
	assert.Equal(t, append(append([]engine.Message{}, seen["asking"]...), restart), asking.History())

	looping := get("looping")
	assert.Equal(t, engine.RunInterrupted, looping.RunState())
	assert.Equal(t, engine.NotEligibleTaskLoop, looping.Eligibility().Reason)

	prompting := get("prompting")
	assert.Equal(t, engine.RunInterrupted, prompting.RunState())
	assert.Equal(t, engine.Eligibility{Eligible: true}, prompting.Eligibility())
	require.Len(t, prompting.TaskLoops(), 1)
	pl := prompting.TaskLoops()[0]
	assert.Equal(t, []engine.TaskStatus{engine.TaskInterrupted, engine.TaskPending}, statuses(pl.State()))
	plSub := pl.Subscribe()
	defer plSub.Close()

	// Loops that were asking: blocked; Continue asks anew.
	for _, id := range []string{"questioning", "between"} {
		s := get(id)
		assert.Equal(t, engine.RunBlocked, s.RunState(), id)
		assert.Equal(t, engine.NotEligibleAskAgain, s.Eligibility().Reason, id)
		require.Len(t, s.TaskLoops(), 1, id)
	}
	assert.Equal(t, []engine.TaskStatus{engine.TaskInterrupted, engine.TaskPending}, statuses(get("questioning").TaskLoops()[0].State()))
	assert.Equal(t, []engine.TaskStatus{engine.TaskCompleted, engine.TaskPending}, statuses(get("between").TaskLoops()[0].State()))

	assert.Equal(t, engine.Counts{Eligible: 3, NeedsInput: 3}, e.Counts())

	audit, err := e.AuditLog(t.Context(), "asking")
	require.NoError(t, err)
	require.Len(t, audit, 2)
	assert.Equal(t, "raised", audit[0].Event)
	assert.Equal(t, "recovered", audit[1].Event)
	report, err := e.CheckStore(t.Context())
	require.NoError(t, err)
	assert.Equal(t, "ok", report)

	// Continue asks the question anew; answered, the run finishes.
	sub := asking.Subscribe()
	defer sub.Close()
	_, done, err := asking.StartContinue(t.Context())
	require.NoError(t, err)
	p := waitEvent(t, sub, isType(engine.EventPaused)).Pause
	assert.Equal(t, "really?", p.Message)
	assert.NotEqual(t, audit[0].Pause, p.ID, "a new pause id: an answer to the old one cannot release it")
	require.NoError(t, asking.Confirm(p.ID, true))
	require.NoError(t, (<-done).Err)
	assert.Equal(t, engine.RunIdle, asking.RunState())

	// Resume all resumes the eligible ones and skips the rest, by reason.
	rep := e.ResumeAll(t.Context())
	assert.ElementsMatch(t, []string{"stopped", "running", "prompting"}, rep.Resumed)
	assert.Equal(t, engine.NotEligibleTaskLoop, rep.Skipped["looping"])
	assert.Equal(t, engine.NotEligibleAskAgain, rep.Skipped["questioning"])
	// The loop of prompt tasks goes on with its cut task, then the next.
	expectTaskEvents(t, plSub, "resumed:0", "task_begin:0", "task_end:0", "task_begin:1", "task_end:1", "completed:-1")
	assert.Equal(t, [2]int{2, 0}, [2]int{pl.State().Completed, pl.State().Failed})
	assert.Equal(t, []string{"first", "then"}, texts(prompting.History(), engine.RoleUser))

	// Continue asks each loop's question anew (a new pause), then the
	// loop goes on to its end.
	for _, tt := range []struct{ id, message string }{{"questioning", "really?"}, {"between", "Task 1 complete. Press Enter to continue or 'p' to switch to continuous mode"}} {
		s := get(tt.id)
		sub := s.Subscribe()
		_, done, err := s.StartContinue(t.Context())
		require.NoError(t, err, tt.id)
		p := waitEvent(t, sub, isType(engine.EventPaused)).Pause
		assert.Equal(t, tt.message, p.Message, tt.id)
		if p.Kind == engine.PauseConfirm {
			require.NoError(t, s.Confirm(p.ID, true))
		} else {
			require.NoError(t, s.Resume(p.ID))
		}
		require.NoError(t, (<-done).Err, tt.id)
		sub.Close()
		st := s.TaskLoops()[0].State()
		assert.Equal(t, [3]any{2, 0, true}, [3]any{st.Completed, st.Failed, st.Done}, tt.id)
		assert.Equal(t, []string{"Interrupted by server restart", "Resumed"}, texts(s.History(), engine.RoleMarker), tt.id)
	}
}

// The attack on "durable before reported": at each event, the store's
// files are copied as they are on disk at that moment (what a SIGKILL of
// the owner would leave: the database and its WAL, no SQLite cache) and
// the copy, opened on its own, must already hold what the event reports (a
// pause pending, its answer in the audit log, the run's start and end).
// The live file itself cannot be read: the store holds it exclusively.
func TestEveryReportedTransitionIsAlreadyStored(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.db")
	e := openStore(t, path, []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{ask(engine.PauseConfirm, "sure?")}}, {Text: "done"}})
	s, err := e.NewSession(engine.SessionOptions{ID: "a"})
	require.NoError(t, err)
	live, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	require.NoError(t, err)
	defer live.Close()
	var n int
	require.ErrorContains(t, live.QueryRow(`SELECT count(*) FROM sessions`).Scan(&n), "locked", "another connection cannot read a live store")
	count := func(q string, args ...any) int {
		dir := t.TempDir()
		for _, suffix := range []string{"", "-wal"} {
			b, err := os.ReadFile(path + suffix)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "copy.db"+suffix), b, 0o600))
		}
		db, err := sql.Open("sqlite", filepath.Join(dir, "copy.db"))
		require.NoError(t, err)
		defer db.Close()
		var n int
		require.NoError(t, db.QueryRow(q, args...).Scan(&n))
		return n
	}
	sub := s.Subscribe()
	defer sub.Close()
	out := start(t, s, "go")
	checked := map[engine.EventType]bool{}
	for {
		ev, err := sub.Next(t.Context())
		require.NoError(t, err)
		switch ev.Type {
		case engine.EventRunStarted:
			assert.Equal(t, 1, count(`SELECT count(*) FROM sessions WHERE id = 'a' AND state = 'proceeding' AND run = ?`, ev.Run))
		case engine.EventPaused:
			assert.Equal(t, 1, count(`SELECT count(*) FROM pauses WHERE session = 'a' AND id = ?`, ev.Pause.ID))
			assert.Equal(t, 1, count(`SELECT count(*) FROM audit WHERE session = 'a' AND pause = ? AND event = 'raised'`, ev.Pause.ID))
			require.NoError(t, s.Confirm(ev.Pause.ID, false, engine.WithReason("no"), engine.AnsweredBy("webui")))
		case engine.EventPauseAnswered:
			assert.Equal(t, 0, count(`SELECT count(*) FROM pauses WHERE session = 'a' AND NOT ended`), "no pending pause")
			assert.Equal(t, 1, count(`SELECT count(*) FROM audit WHERE session = 'a' AND pause = ? AND event = 'answered' AND answer = 'denied' AND reason = 'no' AND by = 'webui'`, ev.Answered.ID))
		case engine.EventRunFinished:
			assert.Equal(t, 1, count(`SELECT count(*) FROM sessions WHERE id = 'a' AND state = 'ended'`))
			assert.Equal(t, len(s.History()), count(`SELECT count(*) FROM history WHERE session = 'a'`), "the history is stored")
		}
		checked[ev.Type] = true
		if ev.Type.Terminal() {
			break
		}
	}
	<-out
	for _, tp := range []engine.EventType{engine.EventRunStarted, engine.EventPaused, engine.EventPauseAnswered, engine.EventRunFinished} {
		assert.True(t, checked[tp], "saw %s", tp)
	}
}

// A store that cannot be opened is an error from Open, never a panic or a
// half-made engine.
func TestOpenReportsAStoreThatCannotBeOpened(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.db")
	require.NoError(t, os.WriteFile(path, []byte("definitely not sqlite, but long enough to have a header........................................................................"), 0o600))
	_, err := engine.Open(t.Context(), engine.WithStore(path))
	require.ErrorIs(t, err, store.ErrCorrupt)
	assert.Panics(t, func() { engine.New(engine.WithStore(path)) })
}

// plainProvider is a provider the store cannot describe.
type plainProvider struct{ *engine.ScriptedProvider }

func (plainProvider) ProviderSpec() {} // not StorableProvider's method

// A session's own scripted model comes back with it; one the store cannot
// describe comes back with the engine's model (as the docs say).
func TestSessionOwnScriptSurvivesARestart(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.db")
	engines := engine.NewScriptedProvider([]engine.ScriptTurn{{Text: "from the engine's model"}})
	e := openStore(t, path, []engine.ScriptTurn{{Text: "from the engine's model"}})
	own, err := e.NewSession(engine.SessionOptions{ID: "own", Provider: engine.NewScriptedProvider([]engine.ScriptTurn{{Text: "from its own script"}})})
	require.NoError(t, err)
	plain, err := e.NewSession(engine.SessionOptions{ID: "plain", Provider: plainProvider{engine.NewScriptedProvider([]engine.ScriptTurn{{Text: "from a provider not stored"}})}})
	require.NoError(t, err)
	for _, s := range []*engine.Session{own, plain} {
		_, err := s.Prompt(t.Context(), "hi")
		require.NoError(t, err)
	}
	require.NoError(t, e.Close())

	e, err = engine.Open(t.Context(), engine.WithStore(path), engine.WithProvider(engines))
	require.NoError(t, err)
	defer e.Close()
	for id, want := range map[string]string{"own": "from its own script", "plain": "from the engine's model"} {
		s, err := e.Session(id)
		require.NoError(t, err)
		_, err = s.Prompt(t.Context(), "again")
		require.NoError(t, err)
		h := s.History()
		assert.Equal(t, want, h[len(h)-1].Text, id)
	}
}
