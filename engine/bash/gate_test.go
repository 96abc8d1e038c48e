package bash

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
)

// promptProvider runs the user's prompt as one Bash command, then ends the
// turn: one session can run many different commands.
type promptProvider struct{}

func (promptProvider) Stream(ctx context.Context, req engine.ModelRequest) (engine.Stream, error) {
	cmd := ""
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == engine.RoleUser {
			cmd = req.Messages[i].Text
			break
		}
	}
	args, err := json.Marshal(Args{Command: cmd})
	if err != nil {
		return nil, err
	}
	return engine.NewScriptedProvider([]engine.ScriptTurn{
		{ToolCalls: []engine.ScriptCall{{Name: "Bash", Args: args}}},
		{Text: "done"},
	}).Stream(ctx, req)
}

// shell is one session whose prompts are Bash commands, run in dir.
type shell struct {
	t   *testing.T
	s   *engine.Session
	sub *engine.Subscription[engine.Event]
	dir string
}

func newShell(t *testing.T, e *engine.Engine, dir string, environ ...string) *shell {
	t.Helper()
	s, err := e.NewSession(engine.SessionOptions{Dir: dir, Environ: environ, Provider: promptProvider{}})
	require.NoError(t, err)
	sub := s.Subscribe()
	t.Cleanup(sub.Close)
	return &shell{t: t, s: s, sub: sub, dir: dir}
}

func newGateEngine(t *testing.T, tool *Tool) *engine.Engine {
	t.Helper()
	e := engine.New(engine.WithTool("Bash", tool))
	t.Cleanup(func() { require.NoError(t, e.Close()) })
	return e
}

// result is the text of the last tool result.
func (sh *shell) result() engine.Message {
	h := sh.s.History()
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Role == engine.RoleTool {
			return h[i]
		}
	}
	sh.t.Fatal("no tool result")
	return engine.Message{}
}

func (sh *shell) finish(out <-chan engine.Outcome) {
	sh.t.Helper()
	select {
	case o := <-out:
		require.NoError(sh.t, o.Err)
	case <-time.After(20 * time.Second):
		sh.t.Fatal("run did not finish (a confirm pause nobody expected?)")
	}
}

// run runs cmd, which must not ask, and returns its result.
func (sh *shell) run(cmd string) engine.Message {
	sh.t.Helper()
	_, out, err := sh.s.Start(sh.t.Context(), cmd)
	require.NoError(sh.t, err)
	sh.finish(out)
	res := sh.result()
	require.NotContains(sh.t, res.Text, "Command denied", cmd)
	return res
}

// ask runs cmd, which must raise a confirm pause, answers it and returns
// the pause and the tool result.
func (sh *shell) ask(cmd string, answer engine.Answer, opts ...engine.AnswerOption) (*engine.Pause, engine.Message) {
	sh.t.Helper()
	since := sh.s.Version() // events of earlier runs are still queued
	_, out, err := sh.s.Start(sh.t.Context(), cmd)
	require.NoError(sh.t, err)
	ctx, cancel := context.WithTimeout(sh.t.Context(), 20*time.Second)
	defer cancel()
	for {
		ev, err := sh.sub.Next(ctx)
		require.NoError(sh.t, err, "no confirm pause for %q", cmd)
		if ev.Version <= since {
			continue
		}
		if ev.Type == engine.EventPaused && ev.Pause != nil {
			require.NoError(sh.t, sh.s.Confirm(ev.Pause.ID, answer == engine.AnswerApproved, opts...))
			sh.finish(out)
			return ev.Pause, sh.result()
		}
		if ev.Type == engine.EventRunFinished {
			sh.t.Fatalf("%q ran without a confirm pause: %s", cmd, sh.result().Text)
		}
	}
}

// victimWorkspace makes a workspace and, beside it, a victim folder with
// a file: an attack that works deletes or changes it.
func victimWorkspace(t *testing.T) (ws, victim string) {
	t.Helper()
	root := t.TempDir()
	ws, victim = filepath.Join(root, "ws"), filepath.Join(root, "victim")
	require.NoError(t, os.MkdirAll(ws, 0o755))
	require.NoError(t, os.MkdirAll(victim, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(victim, "keep.txt"), []byte("precious"), 0o644))
	return ws, victim
}

func requireVictim(t *testing.T, victim string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(victim, "keep.txt"))
	require.NoError(t, err, "the victim is gone")
	require.Equal(t, "precious", string(data), "the victim was changed")
}

// TestGateStopsEachClass runs a real attack of every class through the
// tool in a temporary folder: it raises a confirm pause, the test denies
// it, and the victim beside the workspace survives. Each attack works when
// run without the gate (checked by TestAttacksWorkUngated).
func TestGateStopsEachClass(t *testing.T) {
	t.Parallel()
	for _, tc := range gateAttacks {
		t.Run(tc.class, func(t *testing.T) {
			t.Parallel()
			ws, victim := victimWorkspace(t)
			environ := tc.setup(t, ws)
			sh := newShell(t, newGateEngine(t, New(tracked(nil))), ws, environ...)
			for _, c := range tc.before {
				sh.run(c)
			}
			p, res := sh.ask(tc.attack, engine.AnswerDenied)
			assert.Equal(t, "Bash", p.Tool)
			assert.NotEmpty(t, p.Reasons)
			assert.True(t, res.IsError)
			assert.Contains(t, res.Text, "Command denied by user")
			requireVictim(t, victim)
		})
	}
}

// TestAttacksWorkUngated runs each attack with plain bash: the victim is
// hit, so the gate is what saved it above.
func TestAttacksWorkUngated(t *testing.T) {
	t.Parallel()
	for _, tc := range gateAttacks {
		if tc.hitsHost {
			continue // aimed at the process running the test
		}
		t.Run(tc.class, func(t *testing.T) {
			t.Parallel()
			ws, victim := victimWorkspace(t)
			environ := tc.setup(t, ws)
			for _, c := range append(append([]string{}, tc.before...), tc.attack) {
				cmd := exec.Command("bash", "-c", c)
				cmd.Dir = ws
				cmd.Env = append(os.Environ(), environ...)
				_ = cmd.Run() // some attacks exit non-zero after doing their work
			}
			data, err := os.ReadFile(filepath.Join(victim, "keep.txt"))
			assert.True(t, err != nil || string(data) != "precious", "the attack did nothing: %q", tc.attack)
		})
	}
}

type gateAttack struct {
	class    string
	setup    func(t *testing.T, ws string) []string // prepares the workspace; returns session environment
	before   []string                               // harmless calls first (the gate lets them run)
	attack   string
	hitsHost bool
}

func noSetup(*testing.T, string) []string { return nil }

// writeFile writes an executable file.
func writeFile(t *testing.T, p, text string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(text), 0o755))
}

// binOnPath puts a program named name, running script, in a directory on
// the session's PATH.
func binOnPath(name, script string) func(t *testing.T, ws string) []string {
	return func(t *testing.T, ws string) []string {
		bin := filepath.Join(filepath.Dir(ws), "bin")
		writeFile(t, filepath.Join(bin, name), "#!/bin/sh\n"+script+"\n")
		return []string{"PATH=" + bin + ":" + os.Getenv("PATH")}
	}
}

func gitRepo(t *testing.T, ws string) []string {
	t.Helper()
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "x"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = ws
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	return nil
}

var gateAttacks = []gateAttack{
	{class: "environment that runs code", setup: func(t *testing.T, ws string) []string {
		writeFile(t, filepath.Join(ws, "p.sh"), "rm -rf ../victim\n")
		return nil
	}, attack: "BASH_ENV=./p.sh bash -c true"},
	{class: "code in a config value", setup: gitRepo, attack: `git -c alias.tidy='!rm -rf ../victim' tidy`},
	{class: "code in an option", setup: func(t *testing.T, ws string) []string {
		writeFile(t, filepath.Join(ws, "README.md"), "hi\n")
		return nil
	}, attack: `tar -cf /dev/null README.md --checkpoint=1 --checkpoint-action=exec='rm -rf ../victim'`},
	{class: "script written by one call, run through stdin by the next", setup: noSetup,
		before: []string{`echo cm0gLXJmIC4uL3ZpY3RpbQo= | base64 -d > tidy.sh`}, attack: "bash < tidy.sh"},
	{class: "script copied then run", setup: noSetup,
		before: []string{`printf 'rm -rf ../victim\n' > a.txt`}, attack: "cp a.txt b.sh && sh b.sh"},
	{class: "dangerous binary under another name (symlink)", setup: func(t *testing.T, ws string) []string {
		require.NoError(t, os.MkdirAll(filepath.Join(ws, "tools"), 0o755))
		rm, err := exec.LookPath("rm")
		require.NoError(t, err)
		require.NoError(t, os.Symlink(rm, filepath.Join(ws, "tools", "ls")))
		return nil
	}, attack: "tools/ls -rf ../victim"},
	{class: "dangerous binary under another name (copy)", setup: noSetup,
		before: []string{`cp "$(command -v rm)" ./lister`}, attack: "./lister -rf ../victim"},
	{class: "write outside the working directory", setup: noSetup, attack: "cp /dev/null ../victim/keep.txt"},
	{class: "delete outside after cd", setup: noSetup, attack: "cd .. && rm victim/keep.txt"},
	{class: "program the gate does not know", setup: binOnPath("tidy-up", `rm -rf "$1"`), attack: "tidy-up ../victim"},
	{class: "dangerous subcommand of a known CLI", setup: binOnPath("terraform", `rm -rf ../victim`), attack: "terraform apply -auto-approve"},
	{class: "makefile target written by an earlier call", setup: noSetup,
		before: []string{`printf 'tidy:\n\trm -rf ../victim\n' > Makefile`}, attack: "make tidy"},
	{class: "package.json script", setup: func(t *testing.T, ws string) []string {
		writeFile(t, filepath.Join(ws, "package.json"), `{"name": "x", "scripts": {"test": "rm -rf ../victim"}}`)
		return nil
	}, attack: "npm test"},
	{class: "abbreviated option", setup: func(t *testing.T, ws string) []string {
		writeFile(t, filepath.Join(ws, "README.md"), "hi\n")
		return nil
	}, attack: `tar -cf /dev/null README.md --checkpoint=1 --checkpoint-act=exec='rm -rf ../victim'`},
	{class: "alias defined on the line", setup: noSetup, attack: "shopt -s expand_aliases\nalias ls=rm\nls ../victim/keep.txt"},
	{class: "symlink made on the line, used as a directory", setup: noSetup, attack: "ln -s ../victim v && rm v/keep.txt"},
	{class: "file replaced by a compressor", setup: noSetup, attack: "gzip ../victim/keep.txt"},
	{class: "words xargs reads from its input", setup: noSetup, attack: "echo ../victim/keep.txt | xargs cp /dev/null"},
	{class: "cd inside eval", setup: noSetup, attack: "eval 'cd ..'; rm victim/keep.txt"},
	{class: "the host process", setup: noSetup, attack: "kill -TERM $PPID", hitsHost: true},
	{class: "the host's environment", setup: noSetup, attack: "cat /proc/$PPID/environ > ../victim/keep.txt"},
}

// TestGrantsBoundToTheJudgedAction: a remembered approval covers the judged
// action only: the same text with a variable pointing elsewhere, the same
// command in another directory, a project grant in another project and an
// approval "once" all ask again; a session grant is invisible to another
// session; a command whose targets are only known at run time is never
// remembered, and the pause says why.
func TestGrantsBoundToTheJudgedAction(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	projA, projB := filepath.Join(root, "a"), filepath.Join(root, "b")
	for _, d := range []string{projA + "/.git", projA + "/sub", projB} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	tool := New(tracked(nil), WithProjectGrantsFile(filepath.Join(root, "grants.json")))
	e := newGateEngine(t, tool)
	sh := newShell(t, e, projA, "TARGET=src")

	const cmd = "mkdir -p src && rm -rf src"
	p, _ := sh.ask(cmd, engine.AnswerApproved, engine.Remember(ScopeSession))
	assert.Equal(t, []string{ScopeSession, ScopeProject}, p.RememberScopes, "what the user may choose")
	grants := tool.SessionGrants(sh.s).List()
	require.Len(t, grants, 1)
	assert.Equal(t, "rm -rf src (in "+projA+")", grants[0].Command, "the listing shows what the grant covers")
	sh.run(cmd) // granted: no pause

	t.Run("variable pointing elsewhere", func(t *testing.T) {
		sh.ask("D=other; mkdir -p $D && rm -rf $D", engine.AnswerDenied)
		p, _ := sh.ask(`rm -rf "$TARGET"`, engine.AnswerApproved)
		assert.Contains(t, p.Reasons[0], "an approval cannot be remembered: $TARGET is only known when it runs")
		assert.Empty(t, p.RememberScopes, "nothing to remember is offered")
		sh.ask(`rm -rf "$TARGET"`, engine.AnswerDenied) // still asks
		assert.Len(t, tool.SessionGrants(sh.s).List(), 1)
	})
	t.Run("redirect whose ~ points elsewhere", func(t *testing.T) {
		for _, h := range []string{"h1", "h2"} {
			require.NoError(t, os.MkdirAll(filepath.Join(root, h), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(root, h, "f.txt"), []byte("keep"), 0o644))
		}
		sh.ask("HOME="+root+"/h1; echo x > ~/f.txt", engine.AnswerApproved, engine.Remember(ScopeSession))
		sh.run("HOME=" + root + "/h1; echo x > ~/f.txt") // granted
		sh.ask("HOME="+root+"/h2; echo x > ~/f.txt", engine.AnswerDenied)
		data, err := os.ReadFile(filepath.Join(root, "h2", "f.txt"))
		require.NoError(t, err)
		assert.Equal(t, "keep", string(data))
	})
	t.Run("code fed on stdin", func(t *testing.T) {
		// The code a command reads from a here-document, a pipe or a file is
		// part of what was approved: other code asks again.
		sh.ask("python3 - <<'EOF'\nimport os; os.remove('a.txt')\nEOF", engine.AnswerApproved, engine.Remember(ScopeSession))
		sh.ask("python3 - <<'EOF'\nimport shutil; shutil.rmtree('../gone')\nEOF", engine.AnswerDenied)
		sh.ask(`echo 'import os; os.remove("a.txt")' | python3`, engine.AnswerApproved, engine.Remember(ScopeSession))
		sh.ask(`echo 'import shutil; shutil.rmtree("../gone")' | python3`, engine.AnswerDenied)
		sh.ask("sqlite3 a.db <<< 'drop table if exists t'", engine.AnswerApproved, engine.Remember(ScopeSession))
		sh.ask("sqlite3 a.db <<< 'drop table if exists users'", engine.AnswerDenied)
		require.NoError(t, os.WriteFile(filepath.Join(projA, "t.sql"), []byte("drop table if exists t;\n"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(projA, "users.sql"), []byte("drop table if exists users;\n"), 0o644))
		sh.ask("sqlite3 a.db < t.sql", engine.AnswerApproved, engine.Remember(ScopeSession))
		sh.ask("sqlite3 a.db < users.sql", engine.AnswerDenied)
	})
	t.Run("same command in another directory", func(t *testing.T) {
		sh.ask("cd sub && mkdir -p src && rm -rf src", engine.AnswerDenied)
	})
	t.Run("once", func(t *testing.T) {
		sh.ask("rm -rf sub/x", engine.AnswerApproved, engine.Remember(ScopeOnce))
		sh.ask("rm -rf sub/x", engine.AnswerDenied)
	})
	t.Run("session grant in another session", func(t *testing.T) {
		other := newShell(t, e, projA)
		other.ask(cmd, engine.AnswerDenied)
		assert.Empty(t, tool.SessionGrants(other.s).List())
	})
	t.Run("project grant", func(t *testing.T) {
		sh.ask("rm -f notes.txt", engine.AnswerApproved, engine.Remember(ScopeProject))
		list := tool.ProjectGrants().List()
		require.Len(t, list, 1)
		assert.Equal(t, projA, list[0].Root)
		assert.Equal(t, "rm -f notes.txt (in "+projA+")", list[0].Command)
		newShell(t, e, projA).run("rm -f notes.txt") // another session, same project
		newShell(t, e, projB).ask("rm -f notes.txt", engine.AnswerDenied)
		// A new tool reading the file keeps the binding.
		reloaded := New(tracked(nil), WithProjectGrantsFile(filepath.Join(root, "grants.json")))
		require.NoError(t, reloaded.ProjectGrants().Err())
		e2 := newGateEngine(t, reloaded)
		newShell(t, e2, projA).run("rm -f notes.txt")
		newShell(t, e2, projB).ask("rm -f notes.txt", engine.AnswerDenied)
	})
}

// TestFileLogAcrossCalls: a file written by one call is judged, in a later
// call, by what the session wrote, even when it is gone from disk by then;
// the log is the session's.
func TestFileLogAcrossCalls(t *testing.T) {
	t.Parallel()
	ws, _ := victimWorkspace(t)
	sc := newScope(ws)
	sc.files = newFileLog()
	p := filepath.Join(ws, "s.sh")
	sc.files.record([]fileWrite{{path: p, text: "rm -rf ../victim\n", known: true}})
	d := sc.check("sh s.sh")
	assert.Equal(t, ActionConfirm, d.Decision)
	assert.Equal(t, []string{"recursive deletion: rm -rf ../victim"}, d.Reasons[:1])

	sc.files.record([]fileWrite{{path: filepath.Join(ws, "i.sh"), download: true}})
	require.NoError(t, os.WriteFile(filepath.Join(ws, "i.sh"), []byte("echo hi\n"), 0o755))
	d = sc.check("bash i.sh")
	assert.Equal(t, ActionConfirm, d.Decision)
	assert.Contains(t, strings.Join(d.Reasons, "\n"), catScript)

	fresh := newScope(ws)
	assert.Equal(t, ActionAllow, fresh.check("bash i.sh").Decision, "another session has no log")
}

// TestCheckNeverBlocksOnSpecialFiles: a script that is a FIFO, a device or
// a terminal is not read (reading would block the check, or never end): it
// asks, at once.
func TestCheckNeverBlocksOnSpecialFiles(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	require.NoError(t, syscall.Mkfifo(filepath.Join(ws, "p"), 0o644))
	sc := newScope(ws)
	for _, cmd := range []string{"sh p", "cat p | sh", "./p", "bash < p", "source p", "cat /dev/zero | sh", "bash /dev/tty", "make -f p"} {
		done := make(chan Decision, 1)
		go func() { done <- sc.check(cmd) }()
		select {
		case d := <-done:
			assert.Equal(t, ActionConfirm, d.Decision, cmd)
		case <-time.After(10 * time.Second):
			t.Fatalf("check of %q blocked", cmd)
		}
	}
}

// TestDownloadThenRunAcrossCalls: a file one call downloads stays a
// download for the rest of the session: running it in a later call asks,
// whatever it holds; another session has no such record.
func TestDownloadThenRunAcrossCalls(t *testing.T) {
	t.Parallel()
	_, err := exec.LookPath("curl")
	require.NoError(t, err, "curl is needed (make test installs it)")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("echo installed\n"))
	}))
	t.Cleanup(srv.Close)
	ws := t.TempDir()
	e := newGateEngine(t, New(tracked(nil)))
	sh := newShell(t, e, ws)
	sh.run("curl -s -o install.sh " + srv.URL + "/install.sh")
	p, res := sh.ask("bash install.sh", engine.AnswerDenied)
	assert.Contains(t, p.Reasons[0], "script that cannot be judged (an earlier command of the session downloaded it): bash install.sh")
	assert.Contains(t, res.Text, "Command denied by user")
	assert.Contains(t, newShell(t, e, ws).run("bash install.sh").Text, "installed")
}
