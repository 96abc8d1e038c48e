package bash

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
)

// hostConfirm raises Confirm for cmd from run and answers it as the user
// would: approve with a remember scope, or deny. It returns the pause shown.
func hostConfirm(t *testing.T, tool *Tool, sh *shell, run *engine.HostRun, cmd string, approve bool, scope string) (*engine.Pause, engine.PauseResult) {
	t.Helper()
	since := sh.s.Version()
	type answer struct {
		res engine.PauseResult
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := tool.Confirm(context.Background(), run.Env(), cmd, engine.PauseRequest{})
		done <- answer{res, err}
	}()
	for {
		ev, err := sh.sub.Next(t.Context())
		require.NoError(t, err)
		if ev.Version <= since || ev.Type != engine.EventPaused || ev.Pause == nil {
			continue
		}
		var opts []engine.AnswerOption
		if approve { // only an approval is remembered: a denial with a scope is refused
			opts = append(opts, engine.Remember(scope))
		}
		require.NoError(t, sh.s.Confirm(ev.Pause.ID, approve, opts...))
		a := <-done
		require.NoError(t, a.err)
		return ev.Pause, a.res
	}
}

// A host-driven run judges commands as the bash tool would in the same
// session: the session's rules, working directory and remembered grants;
// an approval it asks for and the user remembers is a grant the bash tool
// honours too, and the other way round.
func TestHostRunGateIsTheSessionsGate(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	projA, projB := filepath.Join(root, "a"), filepath.Join(root, "b")
	for _, d := range []string{projA + "/.git", projB + "/.git"} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	tool := New(tracked(nil), WithProjectGrantsFile(filepath.Join(root, "grants.json")),
		enginePolicy(t, "no-shred", "deny", `program = "shred"`), enginePolicy(t, "deploy", "ask", `program = "make"
subcommand = "deploy"`))
	e := newGateEngine(t, tool)
	sh := newShell(t, e, projA)
	run, err := sh.s.Begin(t.Context())
	require.NoError(t, err)

	const rm = "rm -rf src"
	d := tool.Judge(run.Env(), rm)
	assert.Equal(t, ActionConfirm, d.Decision)
	assert.Equal(t, []string{"recursive deletion: rm -rf src"}, d.Reasons)

	t.Run("rules of the session's tool", func(t *testing.T) {
		assert.Equal(t, ActionDeny, tool.Judge(run.Env(), "shred -u notes.txt").Decision)
		assert.Equal(t, ActionConfirm, tool.Judge(run.Env(), "make deploy").Decision)
		assert.Equal(t, ActionConfirm, CheckCommand("shred -u notes.txt").Decision, "the global check knows no policy")
		res, err := tool.Confirm(t.Context(), run.Env(), "shred -u notes.txt", engine.PauseRequest{})
		require.NoError(t, err)
		assert.Equal(t, engine.AnswerDenied, res.Answer, "a denied command is refused without asking")
		assert.Contains(t, res.Reason, "Command denied by rule")
	})
	t.Run("workspace is the session's directory", func(t *testing.T) {
		// Existing files: under a temporary directory, only new files are
		// free to write outside the workspace.
		for _, d := range []string{projA, projB} {
			require.NoError(t, os.WriteFile(filepath.Join(d, "notes.txt"), []byte("keep"), 0o644))
		}
		assert.Equal(t, ActionAllow, tool.Judge(run.Env(), "echo hi > "+projA+"/notes.txt").Decision)
		out := tool.Judge(run.Env(), "echo hi > "+projB+"/notes.txt")
		assert.Equal(t, ActionConfirm, out.Decision, "a write outside the session's directory asks")
	})
	t.Run("the confirm shows the command and the gate's reasons", func(t *testing.T) {
		// Attack: a JS tool's ctx.pause({kind: 'confirm', command: 'rm -rf
		// build', details: 'ls build'}) was shown as 'ls build'; approved
		// with remember 'session', the bash tool then ran rm -rf src
		// without asking.
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		for _, req := range []engine.PauseRequest{{Details: "ls build"}, {Reasons: []string{"lists a folder"}}} {
			_, err := tool.Confirm(ctx, run.Env(), rm, req)
			require.ErrorIs(t, err, engine.ErrInvalidArgument)
			assert.Contains(t, err.Error(), `the confirm of command "rm -rf src" shows the command`)
		}
		assert.Equal(t, engine.StatusRunning, sh.s.Status(), "nothing was asked")
	})
	t.Run("once is not remembered", func(t *testing.T) {
		p, res := hostConfirm(t, tool, sh, run, rm, true, ScopeOnce)
		assert.True(t, res.Approved())
		assert.Equal(t, rm, p.Details)
		assert.Equal(t, "Potentially dangerous command", p.Message)
		assert.Equal(t, []string{"recursive deletion: rm -rf src"}, p.Reasons)
		assert.Equal(t, ActionConfirm, tool.Judge(run.Env(), rm).Decision)
	})
	t.Run("denied is not remembered", func(t *testing.T) {
		_, res := hostConfirm(t, tool, sh, run, rm, false, ScopeSession)
		assert.Equal(t, engine.AnswerDenied, res.Answer)
		assert.Equal(t, ActionConfirm, tool.Judge(run.Env(), rm).Decision)
	})
	t.Run("session grant", func(t *testing.T) {
		_, res := hostConfirm(t, tool, sh, run, rm, true, ScopeSession)
		assert.Equal(t, ScopeSession, res.Remember)
		assert.Equal(t, ActionAllow, tool.Judge(run.Env(), rm).Decision, "remembered for the session")
		require.Len(t, tool.SessionGrants(sh.s).List(), 1)
		other := newShell(t, e, projA)
		otherRun, err := other.s.Begin(t.Context())
		require.NoError(t, err)
		assert.Equal(t, ActionConfirm, tool.Judge(otherRun.Env(), rm).Decision, "another session has its own grants")
		_, err = otherRun.End(nil)
		require.NoError(t, err)
	})
	t.Run("project grant", func(t *testing.T) {
		_, res := hostConfirm(t, tool, sh, run, "rm -f notes.txt", true, ScopeProject)
		assert.Equal(t, ScopeProject, res.Remember)
		for dir, want := range map[string]Action{projA: ActionAllow, projB: ActionConfirm} {
			other := newShell(t, e, dir)
			otherRun, err := other.s.Begin(t.Context())
			require.NoError(t, err)
			assert.Equal(t, want, tool.Judge(otherRun.Env(), "rm -f notes.txt").Decision, "project grant judged in %s", dir)
			_, err = otherRun.End(nil)
			require.NoError(t, err)
		}
	})
	_, err = run.End(nil)
	require.NoError(t, err)

	t.Run("the bash tool honours what the host remembered, and the other way round", func(t *testing.T) {
		sh.run(rm) // granted for the session by the host run: no pause
		sh.ask("rm -rf docs", engine.AnswerApproved, engine.Remember(ScopeSession))
		run, err := sh.s.Begin(t.Context())
		require.NoError(t, err)
		assert.Equal(t, ActionAllow, tool.Judge(run.Env(), "rm -rf docs").Decision)
		_, err = run.End(nil)
		require.NoError(t, err)
	})
}
