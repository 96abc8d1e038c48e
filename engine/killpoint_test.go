package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/bash"
	"github.com/interlock-dev/interlock/engine/provider/openai"
	"github.com/interlock-dev/interlock/engine/provider/openai/openaitest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

const resumeQuestion = "Resuming may repeat an action that was cut off"

// A host registers its own tools after it opened the store (a JS host's
// engine.registerTool comes after new Engine({store})): a call of such a
// tool cut by the kill still makes resuming ask first.
func TestToolRegisteredAfterTheRestartStillAsksFirst(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.db")
	killAt(t, path, "effect")
	e, err := engine.Open(t.Context(), engine.WithStore(path))
	require.NoError(t, err)
	defer e.Close()
	g := newGate()
	e.Tools().Register("effect", g)
	s, err := e.Session("a")
	require.NoError(t, err)
	assert.Equal(t, engine.Eligibility{Eligible: true, RepeatsSideEffect: true}, s.Eligibility())
	denyTheRepeat(t, s, g)
}

// Killed while the question "Resuming may repeat an action that was cut
// off" was pending: after the next restart, Continue asks it again before
// anything runs (it used to go straight on to the model).
func TestKillAtTheResumeQuestionAsksItAgain(t *testing.T) {
	t.Parallel()
	_, s, _ := restartAfter(t, "effect", "resume")
	assert.Equal(t, engine.RunBlocked, s.RunState())
	require.Equal(t, resumeQuestion, s.Snapshot().NeedsInput.Message)
	p, done := continueUntilAsked(t, s)
	require.Equal(t, resumeQuestion, p.Message)
	require.NoError(t, s.Confirm(p.ID, false))
	require.NoError(t, (<-done).Err)
	assert.Equal(t, 1, countRole(s.History(), engine.RoleAssistant), "the model was not asked again")
}

// Killed while one call of a turn ran a side effect and the other waited
// on its question: Continue asks before it runs the cut call again (it
// used to re-run both calls, asking only the question).
func TestKillBesideAPendingQuestionAsksBeforeRepeating(t *testing.T) {
	t.Parallel()
	_, s, g := restartAfter(t, "parallel")
	assert.Equal(t, engine.RunBlocked, s.RunState())
	denyTheRepeat(t, s, g)
}

func countRole(h []engine.Message, role engine.Role) int { return len(texts(h, role)) }

// Killed just after Confirm returned, while the run goes on from the
// answer to the effect tool: the answer is in the audit log (what Confirm
// returned from is on disk), the question is not asked again, and wherever
// the kill fell, a cut effect makes resuming ask first.
func TestKillRightAfterAnAnswer(t *testing.T) {
	t.Parallel()
	e, s, _ := restartAfter(t, "answered")
	audit, err := e.AuditLog(t.Context(), "a")
	require.NoError(t, err)
	require.Len(t, audit, 2)
	assert.Equal(t, [2]string{"raised", "answered"}, [2]string{audit[0].Event, audit[1].Event})
	assert.Equal(t, [3]string{"approved", "tui", "once"}, [3]string{audit[1].Answer, audit[1].By, audit[1].Remember})
	assert.Equal(t, engine.RunInterrupted, s.RunState(), "the answered question is not asked again")
	assert.Equal(t, engine.ReasonServerRestart, s.Snapshot().Interruption.Reason)
	h := s.History()
	effectCut := false
	for i, m := range h {
		for _, c := range m.ToolCalls {
			if c.Name == "effect" {
				effectCut = h[i+1].Interrupted
			}
		}
	}
	t.Logf("the kill fell with the effect tool cut: %v", effectCut)
	assert.Equal(t, engine.Eligibility{Eligible: true, RepeatsSideEffect: effectCut}, s.Eligibility(), "history: %+v", h)
}

// Killed while a pause signal held the run at a step boundary, before the
// turn's call of the effect tool: nothing had started, so Continue parks
// at the boundary again without asking about a repeat.
func TestKillAtASignalPauseBeforeCallsAsksNoRepeat(t *testing.T) {
	t.Parallel()
	_, s, g := restartAfter(t, "signal")
	assert.Equal(t, engine.RunBlocked, s.RunState())
	p, done := continueUntilAsked(t, s)
	assert.Equal(t, engine.SourceSignal, p.Source, "parked again at the boundary, not asked %q", p.Message)
	require.NoError(t, s.Interrupt(engine.ReasonUserStop))
	<-done
	assert.Empty(t, g.started)
}

// revokeOnAFullDisk mounts a small tmpfs on dir (the caller is in its own
// user and mount namespace), remembers an approval for a session in a
// store there, fills the disk, revokes the grant, frees the disk and
// restarts: it returns what RevokeGrant said, how many grants the engine
// listed then, and how many came back after the restart.
func revokeOnAFullDisk(dir string) string {
	ctx := context.Background()
	if err := unix.Mount("", "/", "", unix.MS_PRIVATE|unix.MS_REC, ""); err != nil {
		return "setup: " + err.Error()
	}
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size=512k"); err != nil {
		return "setup: " + err.Error()
	}
	path := filepath.Join(dir, "s.db")
	open := func() (*engine.Engine, error) {
		return engine.Open(ctx, engine.WithStore(path), engine.WithTool("deploy", deployTool),
			engine.WithProvider(engine.NewScriptedProvider(deployTurns(map[string]any{"env": "prod"}))))
	}
	e, err := open()
	if err != nil {
		return "open: " + err.Error()
	}
	s, err := e.NewSession(engine.SessionOptions{ID: "a"})
	if err != nil {
		return "session: " + err.Error()
	}
	sub := s.Subscribe()
	_, done, err := s.Start(ctx, "go")
	if err != nil {
		return "start: " + err.Error()
	}
	for ev, err := sub.Next(ctx); ev.Type != engine.EventPaused; ev, err = sub.Next(ctx) {
		if err != nil {
			return "paused: " + err.Error()
		}
	}
	if err := s.Confirm("", true, engine.Remember(engine.RememberSession)); err != nil {
		return "confirm: " + err.Error()
	}
	<-done
	filler, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		return "fill: " + err.Error()
	}
	for err == nil {
		_, err = filler.Write(make([]byte, 4096))
	}
	if !errors.Is(err, unix.ENOSPC) {
		return "fill: " + err.Error()
	}
	revoke := e.RevokeGrant(ctx, engine.Grant{Tool: "deploy", Key: "deploy to prod", Scope: engine.RememberSession, Session: "a"})
	listed, err := e.Grants(ctx)
	if err != nil {
		return "grants: " + err.Error()
	}
	filler.Close()
	os.Remove(filler.Name())
	e.Close()
	if e, err = open(); err != nil {
		return "reopen: " + err.Error()
	}
	defer e.Close()
	back, err := e.Grants(ctx)
	if err != nil {
		return "grants after the restart: " + err.Error()
	}
	return fmt.Sprintf("revoke: %v\nlisted: %d\nafter the restart: %d", revoke, len(listed), len(back))
}

// A session's remembered approval is revoked while the store's disk is
// full: either the revocation is refused (the grant stays, listed and
// after a restart) or it holds after a restart. It used to be dropped in
// memory with only a warning, listed as gone, and approved again without
// asking after the restart.
func TestRevokedGrantOnAFullDiskDoesNotComeBack(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), killChildEnv+"=revoke-full", killStoreEnv+"="+t.TempDir())
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Geteuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}},
	}
	out, err := cmd.Output()
	require.NoError(t, err, "child: %s", out)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Len(t, lines, 3, "child: %s", out)
	assert.Contains(t, lines[0], "disk is full", "the revocation is refused, saying why")
	assert.Equal(t, "listed: 1", lines[1], "the grant is still listed")
	assert.Equal(t, "after the restart: 1", lines[2])
}

// Killed while a task of a loop of prompt tasks ran the effect tool (and
// again at the question this asks): the next owner resumes the loop only
// after asking about the cut effect.
func TestKillInATaskLoopAsksBeforeRepeating(t *testing.T) {
	t.Parallel()
	for _, kills := range [][]string{{"loop"}, {"loop", "resume"}} {
		t.Run(strings.Join(kills, "+"), func(t *testing.T) {
			t.Parallel()
			_, s, g := restartAfter(t, kills...)
			denyTheRepeat(t, s, g)
			assert.True(t, s.TaskLoops()[0].State().Done, "the denied resumption ends the loop")
		})
	}
}

// Killed at the first commit of an approval remembered for the session or
// the project: the grant and the audit entry of the answer that gave it
// are both in the store, or neither is. The grant used to be committed on
// its own first: the next owner approved deploys by a grant that no
// answer in the audit log had given.
func TestKillWhileRememberingAnApprovalKeepsItsAuditEntry(t *testing.T) {
	t.Parallel()
	for _, scope := range []string{engine.RememberSession, engine.RememberProject} {
		t.Run(scope, func(t *testing.T) {
			t.Parallel()
			e, _, _ := restartAfter(t, "remember-"+scope)
			grants, err := e.Grants(t.Context())
			require.NoError(t, err)
			audit, err := e.AuditLog(t.Context(), "a")
			require.NoError(t, err)
			var answered []string
			for _, a := range audit {
				if a.Event == "answered" {
					answered = append(answered, a.Answer+" "+a.Remember)
				}
			}
			if len(grants) == 0 {
				assert.Empty(t, answered, "an answer remembered by no grant")
				return
			}
			require.Len(t, grants, 1)
			assert.Equal(t, [2]string{"deploy to prod", scope}, [2]string{grants[0].Key, grants[0].Scope})
			assert.Equal(t, []string{"approved " + scope}, answered, "the grant's answer is in the audit log")
		})
	}
}

// Killed while a stop was unwinding (Esc or an emergency stop; the effect
// tool not yet returned): the next owner says what the user did, not
// "Interrupted by server restart", and resuming still asks about the cut
// effect.
func TestKillWhileStoppingKeepsTheStopsReason(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		scenario string
		reason   engine.Reason
	}{{"stop-user", engine.ReasonUserStop}, {"stop-emergency", engine.ReasonEmergencyStop}} {
		t.Run(tt.scenario, func(t *testing.T) {
			t.Parallel()
			_, s, g := restartAfter(t, tt.scenario)
			in := s.Snapshot().Interruption
			require.NotNil(t, in)
			assert.Equal(t, [2]string{string(tt.reason), engine.ReasonLabel(tt.reason)}, [2]string{string(in.Reason), in.Label})
			h := s.History()
			assert.Equal(t, engine.Message{Role: engine.RoleMarker, Text: engine.ReasonLabel(tt.reason), Reason: tt.reason}, h[len(h)-1])
			assert.Equal(t, engine.Eligibility{Eligible: true, RepeatsSideEffect: true}, s.Eligibility())
			denyTheRepeat(t, s, g)
		})
	}
}

// actor is a tool with side effects that acts before it asks: it appends a
// line to the file its call's "log" names, then asks to confirm.
type actor struct{}

func (actor) Run(ctx context.Context, c engine.ToolCall, env *engine.Env) (engine.Result, error) {
	if err := appendLine(c, "acted"); err != nil {
		return engine.Result{}, err
	}
	res, err := env.Pause(ctx, engine.PauseRequest{Kind: engine.PauseConfirm, Tool: "Actor", Message: "acted: go on?"})
	if err != nil || !res.Approved() {
		return engine.Result{Output: "stopped", IsError: true}, err
	}
	return engine.Result{Output: "done"}, nil
}

func (actor) HasSideEffects(engine.ToolCall) bool { return true }

// appendLine appends line to the file c's argument "log" names.
func appendLine(c engine.ToolCall, line string) error {
	var a struct{ Log string }
	if err := json.Unmarshal(c.Args, &a); err != nil {
		return err
	}
	f, err := os.OpenFile(a.Log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = fmt.Fprintln(f, line)
	return err
}

// Killed while a tool that had acted (a side effect, then its question)
// waited on its question: Continue asks whether to repeat the cut action
// before the call runs again to ask its question anew. It used to re-run
// the call straight away (the action repeated, then the question). A tool
// that asks before it acts (engine.AsksFirst) is asked its question at
// once, as before.
func TestKillAtTheQuestionOfAToolThatActedAsksFirst(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		tool  string
		first string // the first question Continue asks
	}{{"actor", resumeQuestion}, {"gated", "sure?"}} {
		t.Run(tt.tool, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "s.db")
			killAt(t, path, tt.tool)
			e, err := engine.Open(t.Context(), engine.WithStore(path), engine.WithTool("actor", actor{}), engine.WithTool("gated", gatedTool{}))
			require.NoError(t, err)
			defer e.Close()
			s, err := e.Session("a")
			require.NoError(t, err)
			effects := filepath.Join(filepath.Dir(path), "effects")
			logged := func() string { b, _ := os.ReadFile(effects); return string(b) }
			acted := logged()
			assert.Equal(t, engine.RunBlocked, s.RunState())
			assert.Equal(t, engine.Eligibility{Reason: engine.NotEligibleAskAgain, AsksAgain: true, RepeatsSideEffect: tt.tool == "actor"}, s.Eligibility())
			sub := s.Subscribe()
			defer sub.Close()
			_, done, err := s.StartContinue(t.Context())
			require.NoError(t, err)
			ev := waitEvent(t, sub, func(ev engine.Event) bool { return ev.Type == engine.EventPaused || ev.Type.Terminal() })
			require.Equal(t, engine.EventPaused, ev.Type)
			assert.Equal(t, acted, logged(), "the call ran again before asking %q", ev.Pause.Message)
			assert.Equal(t, tt.first, ev.Pause.Message)
			require.NoError(t, s.Confirm(ev.Pause.ID, false))
			require.NoError(t, (<-done).Err)
			if tt.tool == "actor" {
				assert.Equal(t, acted, logged(), "the denied resumption repeated nothing")
			}
		})
	}
}

// Killed at the first commit of a host's Begin (or a task loop's Start):
// the next owner knows whose run it was. The run's start used to be
// committed as the engine's own run, its kind in a second commit: a host's
// run killed between the two came back resumable by the engine, and
// Resume all drove the host's session with the engine's model.
func TestKillAtTheStartOfAHostsOrALoopsRun(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		scenario string
		why      string
	}{{"host-begin", engine.NotEligibleHostRun}, {"loop-start", engine.NotEligibleLoopNoTask}} {
		t.Run(tt.scenario, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "s.db")
			killAt(t, path, tt.scenario)
			e, err := engine.Open(t.Context(), engine.WithStore(path), engine.WithProvider(engine.NewScriptedProvider([]engine.ScriptTurn{{Text: "the engine's model"}})))
			require.NoError(t, err)
			defer e.Close()
			s, err := e.Session("a")
			require.NoError(t, err)
			assert.Equal(t, engine.RunInterrupted, s.RunState())
			assert.Equal(t, engine.Eligibility{Reason: tt.why}, s.Eligibility())
			assert.Empty(t, e.ResumeAll(t.Context()).Resumed)
			assert.Empty(t, texts(s.History(), engine.RoleAssistant), "no model ran")
		})
	}
}

// Killed at the first commit of a prompt: the prompt is in the history the
// next owner finds, before the restart's marker, so Continue answers it.
// The run's start used to be committed before the prompt: the session came
// back resumable without the prompt, and Continue ran the model on the
// history before it.
func TestKillAtTheStartOfAPromptKeepsThePrompt(t *testing.T) {
	t.Parallel()
	_, s, _ := restartAfter(t, "prompt-start")
	assert.Equal(t, []engine.Message{{Role: engine.RoleUser, Text: "deploy it"},
		{Role: engine.RoleMarker, Text: "Interrupted by server restart", Reason: engine.ReasonServerRestart}}, s.History())
}

// Killed while its user closed a session whose run was still stopping:
// the next owner finishes the close (the session is gone, with its
// grants) instead of bringing it back interrupted "by the system" for
// Continue and Resume all to run again.
func TestKillWhileClosingASessionFinishesTheClose(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.db")
	killAt(t, path, "stop-close")
	e, err := engine.Open(t.Context(), engine.WithStore(path), engine.WithTool("effect", newGate()))
	require.NoError(t, err)
	defer e.Close()
	_, err = e.Session("a")
	require.ErrorIs(t, err, engine.ErrUnknownSession)
	assert.Empty(t, e.ResumeAll(t.Context()).Resumed)
}

// Killed while a host's own run waited on its question or was parked at a
// step boundary: the next owner has it interrupted, for the host alone to
// resume (no question to be asked again by the engine, nothing Resume all
// runs), and the question's audit entries say it was cut.
func TestKillInAHostsRun(t *testing.T) {
	t.Parallel()
	for _, scenario := range []string{"host-pause", "host-step"} {
		t.Run(scenario, func(t *testing.T) {
			t.Parallel()
			e, s, _ := restartAfter(t, scenario)
			snap := s.Snapshot()
			assert.Equal(t, engine.RunInterrupted, snap.RunState)
			assert.Equal(t, engine.Eligibility{Reason: engine.NotEligibleHostRun}, snap.Eligibility)
			assert.Nil(t, snap.NeedsInput)
			assert.Empty(t, e.ResumeAll(t.Context()).Resumed)
			audit, err := e.AuditLog(t.Context(), "a")
			require.NoError(t, err)
			require.Len(t, audit, 2)
			assert.Equal(t, [2]string{"raised", "recovered"}, [2]string{audit[0].Event, audit[1].Event})
			h, err := s.Begin(t.Context())
			require.NoError(t, err, "the host begins its loop again")
			_, err = h.End(nil)
			require.NoError(t, err)
		})
	}
}

// Killed at the commit of a task loop's task_begin: the task's prompt is in
// the history the next owner finds, so resuming the cut task goes on with
// it. The prompt used to be a second commit: the resumed task "went on"
// with the model's turns on the history before it (the task never given).
func TestKillAtATasksBeginKeepsItsPrompt(t *testing.T) {
	t.Parallel()
	_, s, _ := restartAfter(t, "loop-task-begin")
	assert.Equal(t, []string{"first"}, texts(s.History(), engine.RoleUser))
	assert.Equal(t, engine.Eligibility{Eligible: true}, s.Eligibility())
}

// Killed while a run stopped by Esc was being written: at the commit of
// the cut effect's "interrupted before completion" result, or at the next
// commit. Resuming still asks about the cut effect. It used to go straight
// on: the result made the call look finished to the next owner, and the
// run's end (which says the effect was cut) was not yet written.
func TestKillWhileAStoppedRunIsWrittenStillAsksFirst(t *testing.T) {
	t.Parallel()
	for _, scenario := range []string{"stop-results", "stop-after-results"} {
		t.Run(scenario, func(t *testing.T) {
			t.Parallel()
			_, s, g := restartAfter(t, scenario)
			assert.Equal(t, engine.ReasonUserStop, s.Snapshot().Interruption.Reason)
			assert.Equal(t, engine.Eligibility{Eligible: true, RepeatsSideEffect: true}, s.Eligibility())
			denyTheRepeat(t, s, g)
		})
	}
}

// Killed after the model's final answer was written but before the run's
// end: the next owner has the run finished (idle, nothing to continue), not
// interrupted by the restart with Continue offered, which asked the model
// again after its last answer.
func TestKillAfterTheFinalAnswerFinishesTheRun(t *testing.T) {
	t.Parallel()
	e, s, _ := restartAfter(t, "finished")
	assert.Equal(t, engine.RunIdle, s.RunState())
	assert.Equal(t, []engine.Message{{Role: engine.RoleUser, Text: "hi"}, {Role: engine.RoleAssistant, Text: "all done"}}, s.History())
	assert.Empty(t, e.ResumeAll(t.Context()).Resumed)
}

// Killed while the bash gate asked to confirm a command: the session comes
// back blocked on that question with Continue offered (AsksAgain), which
// asks it anew, the same command; approved, the command runs once. Or a
// new prompt drops the question: the cut call gets a result saying it did
// not run, and the session is blocked no more. A new prompt used to finish
// and leave the session blocked, the call without a result.
func TestKillAtABashConfirm(t *testing.T) {
	t.Parallel()
	restart := func(t *testing.T, model []engine.ScriptTurn) (*engine.Session, string) {
		path := filepath.Join(t.TempDir(), "s.db")
		dir := filepath.Dir(path)
		require.NoError(t, os.Mkdir(filepath.Join(dir, "build"), 0o700))
		killAt(t, path, "bash")
		e, err := engine.Open(t.Context(), engine.WithStore(path), engine.WithTool("bash", bash.New()),
			engine.WithProvider(engine.NewScriptedProvider(model)))
		require.NoError(t, err)
		t.Cleanup(func() { e.Close() })
		s, err := e.Session("a")
		require.NoError(t, err)
		snap := s.Snapshot()
		require.Equal(t, engine.RunBlocked, snap.RunState)
		assert.Nil(t, snap.Pause)
		require.NotNil(t, snap.NeedsInput)
		assert.Equal(t, bashCommand, snap.NeedsInput.Details)
		assert.Equal(t, engine.Eligibility{Reason: engine.NotEligibleAskAgain, AsksAgain: true}, snap.Eligibility)
		assert.Equal(t, engine.Counts{NeedsInput: 1}, e.Counts(), "Resume all does not answer a question")
		return s, dir
	}
	ran := func(dir string) string { b, _ := os.ReadFile(filepath.Join(dir, "ran.log")); return string(b) }

	t.Run("continue asks again", func(t *testing.T) {
		t.Parallel()
		s, dir := restart(t, bashScript())
		sub := s.Subscribe()
		defer sub.Close()
		_, done, err := s.StartContinue(t.Context())
		require.NoError(t, err)
		ev := waitEvent(t, sub, func(ev engine.Event) bool { return ev.Type == engine.EventPaused || ev.Type.Terminal() })
		require.Equal(t, engine.EventPaused, ev.Type)
		assert.Equal(t, [2]string{string(engine.PauseConfirm), bashCommand}, [2]string{string(ev.Pause.Kind), ev.Pause.Details})
		assert.Empty(t, ran(dir), "nothing ran before the approval")
		require.NoError(t, s.Confirm(ev.Pause.ID, true))
		out := <-done
		require.NoError(t, out.Err)
		assert.Equal(t, engine.StatusIdle, out.Result.Status)
		assert.Equal(t, "ran\n", ran(dir), "the command ran once")
		assert.NoDirExists(t, filepath.Join(dir, "build"))
		assert.Len(t, texts(s.History(), engine.RoleTool), 1, "one result for the call")
	})

	t.Run("a new prompt drops the question", func(t *testing.T) {
		t.Parallel()
		s, dir := restart(t, []engine.ScriptTurn{{Text: "ok"}})
		res, err := s.Prompt(t.Context(), "never mind")
		require.NoError(t, err)
		assert.Equal(t, engine.StatusIdle, res.Status)
		snap := s.Snapshot()
		assert.Equal(t, engine.RunIdle, snap.RunState, "blocked no more")
		assert.Nil(t, snap.NeedsInput)
		assert.Equal(t, []string{"not run: interrupted by server restart"}, texts(s.History(), engine.RoleTool))
		assert.Empty(t, ran(dir))
		assert.DirExists(t, filepath.Join(dir, "build"))
		_, _, err = s.StartContinue(t.Context())
		require.ErrorIs(t, err, engine.ErrNotResumable, "the dropped question is not asked again")
	})
}

// After a kill at a bash confirm and a restart, a new prompt sends the
// model a valid history: every assistant tool call is followed by its tool
// message. The local OpenAI-compatible server rejects an invalid one as a
// real one does; the request used to carry the cut call without a result.
func TestKillAtABashConfirmThenANewPromptSendsAValidHistory(t *testing.T) {
	t.Parallel()
	srv, err := openaitest.Start("127.0.0.1:0")
	require.NoError(t, err)
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "s.db")
	killAt(t, path, "bash", killModelEnv+"="+srv.URL)
	p, err := openai.New(openai.WithBaseURL(srv.URL), openai.WithModel("text"))
	require.NoError(t, err)
	e, err := engine.Open(t.Context(), engine.WithStore(path), engine.WithTool("bash", bash.New()), engine.WithProvider(p))
	require.NoError(t, err)
	defer e.Close()
	s, err := e.Session("a")
	require.NoError(t, err)
	require.Equal(t, engine.RunBlocked, s.RunState())
	res, err := s.Prompt(t.Context(), "never mind")
	require.NoError(t, err)
	assert.Equal(t, engine.StatusIdle, res.Status)
	reqs := srv.Requests()
	require.Len(t, reqs, 2, "the cut turn's request, then the new prompt's")
	var body struct {
		Messages []struct {
			Role       string `json:"role"`
			ToolCallID string `json:"tool_call_id"`
			Content    string `json:"content"`
			ToolCalls  []struct {
				ID string `json:"id"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(reqs[1].Body, &body))
	var roles []string
	for _, m := range body.Messages {
		roles = append(roles, m.Role)
	}
	require.Equal(t, []string{"user", "assistant", "tool", "user"}, roles)
	assert.Equal(t, "call_rm1", body.Messages[1].ToolCalls[0].ID)
	assert.Equal(t, "call_rm1", body.Messages[2].ToolCallID)
	assert.Equal(t, "not run: interrupted by server restart", body.Messages[2].Content)
}
