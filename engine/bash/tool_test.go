package bash

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
)

// harness drives one engine with a Bash tool; each session's model calls
// Bash once with a fixed command, then ends its turn.
type harness struct {
	t    *testing.T
	tool *Tool
	eng  *engine.Engine
}

func newHarness(t *testing.T, tool *Tool, opts ...engine.Option) *harness {
	t.Helper()
	e := engine.New(append([]engine.Option{engine.WithTool("Bash", tool)}, opts...)...)
	t.Cleanup(func() { require.NoError(t, e.Close()) })
	return &harness{t: t, tool: tool, eng: e}
}

// agent is one session whose model runs command.
type agent struct {
	h   *harness
	s   *engine.Session
	sub *engine.Subscription[engine.Event]
	dir string // the session's working directory
}

func (h *harness) session(command string, opts ...func(*engine.SessionOptions)) *agent {
	h.t.Helper()
	args, err := json.Marshal(Args{Command: command})
	require.NoError(h.t, err)
	o := engine.SessionOptions{
		Dir: h.t.TempDir(),
		Provider: engine.NewScriptedProvider([]engine.ScriptTurn{
			{ToolCalls: []engine.ScriptCall{{Name: "Bash", Args: args}}},
			{Text: "done"},
		}),
	}
	for _, f := range opts {
		f(&o)
	}
	s, err := h.eng.NewSession(o)
	require.NoError(h.t, err)
	sub := s.Subscribe()
	h.t.Cleanup(sub.Close)
	return &agent{h: h, s: s, sub: sub, dir: o.Dir}
}

// start runs one prompt in the background.
func (a *agent) start() <-chan engine.Outcome {
	a.h.t.Helper()
	_, out, err := a.s.Start(a.h.t.Context(), "go")
	require.NoError(a.h.t, err)
	return out
}

// waitFor reads events until one of type typ (and matching ok, if given).
func (a *agent) waitFor(typ engine.EventType, ok func(engine.Event) bool) engine.Event {
	a.h.t.Helper()
	ctx, cancel := context.WithTimeout(a.h.t.Context(), 20*time.Second)
	defer cancel()
	for {
		ev, err := a.sub.Next(ctx)
		require.NoError(a.h.t, err, "waiting for %s", typ)
		if ev.Type == typ && (ok == nil || ok(ev)) {
			return ev
		}
	}
}

// finish waits for the run's outcome.
func (a *agent) finish(out <-chan engine.Outcome) engine.Outcome {
	a.h.t.Helper()
	select {
	case o := <-out:
		return o
	case <-time.After(20 * time.Second):
		a.h.t.Fatal("run did not finish")
		return engine.Outcome{}
	}
}

// toolResult is the last tool message of the history.
func (a *agent) toolResult() engine.Message {
	a.h.t.Helper()
	h := a.s.History()
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Role == engine.RoleTool {
			return h[i]
		}
	}
	a.h.t.Fatal("no tool result in history")
	return engine.Message{}
}

// answered runs one prompt, answers the pause it raises and returns the
// pause and the tool result.
func (a *agent) answered(answer engine.Answer, opts ...engine.AnswerOption) (*engine.Pause, engine.Message) {
	a.h.t.Helper()
	out := a.start()
	p := a.waitFor(engine.EventPaused, nil).Pause
	require.NoError(a.h.t, a.s.Confirm(p.ID, answer == engine.AnswerApproved, opts...))
	require.NoError(a.h.t, a.finish(out).Err)
	return p, a.toolResult()
}

// run runs one prompt that must not pause and returns the tool result.
func (a *agent) run() engine.Message {
	a.h.t.Helper()
	o := a.finish(a.start())
	require.NoError(a.h.t, o.Err)
	return a.toolResult()
}

func TestToolRunsHarmlessCommand(t *testing.T) {
	t.Parallel()
	h := newHarness(t, New(tracked(nil)))
	a := h.session(`echo "$PWD"; echo "$GREETING"; exit 0`, func(o *engine.SessionOptions) {
		o.Environ = []string{"GREETING=hello from the session"}
	})
	res := a.run()
	assert.False(t, res.IsError)
	assert.Equal(t, a.dir+"\nhello from the session\n[exit code 0]", res.Text)
}

func TestToolNonZeroExitIsToolError(t *testing.T) {
	t.Parallel()
	res := newHarness(t, New(tracked(nil))).session("echo oops >&2; exit 7").run()
	assert.True(t, res.IsError)
	assert.Equal(t, "oops\n[exit code 7]", res.Text)
}

func TestToolBadInput(t *testing.T) {
	t.Parallel()
	h := newHarness(t, New(tracked(nil)))
	tests := []struct {
		name, args, want string
	}{
		{"empty command", `{"command": "  "}`, "bash: command is empty"},
		{"no arguments", ``, "bash: command is empty"},
		{"not JSON", `{"command": `, `bash: arguments must be {"command": "...", "timeout_ms": N}`},
		{"wrong type", `{"command": 42}`, `bash: arguments must be {"command": "...", "timeout_ms": N}`},
		{"nul byte", `{"command": "echo a\u0000b"}`, "bash: command contains a NUL byte at offset 6"},
		{"huge", `{"command": "echo ` + strings.Repeat("a", MaxCommandBytes) + `"}`, "bash: command is 102405 bytes; the limit is 102400"},
		{"negative timeout", `{"command": "ls", "timeout_ms": -1}`, "bash: timeout_ms must be between 0 and 86400000 (24 h), got -1"},
		{"huge timeout", `{"command": "ls", "timeout_ms": 9223372036854775807}`, "bash: timeout_ms must be between 0 and 86400000 (24 h)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := h.eng.NewSession(engine.SessionOptions{Provider: engine.NewScriptedProvider([]engine.ScriptTurn{
				{ToolCalls: []engine.ScriptCall{{Name: "Bash", Args: json.RawMessage(tt.args)}}},
			})})
			require.NoError(t, err)
			_, err = s.Prompt(t.Context(), "go")
			require.NoError(t, err)
			hist := s.History()
			var res engine.Message
			for _, m := range hist {
				if m.Role == engine.RoleTool {
					res = m
				}
			}
			assert.True(t, res.IsError)
			assert.Contains(t, res.Text, tt.want)
		})
	}
}

func TestConfirmFlow(t *testing.T) {
	t.Parallel()
	h := newHarness(t, New(tracked(nil)))
	tests := []struct {
		name    string
		answer  func(a *agent, p *engine.Pause)
		wantErr bool
		result  string
		isError bool
		removed bool
	}{
		{"approve runs it", func(a *agent, p *engine.Pause) {
			require.NoError(t, a.s.Confirm(p.ID, true))
		}, false, "[exit code 0]", false, true},
		{"deny with a reason", func(a *agent, p *engine.Pause) {
			require.NoError(t, a.s.Confirm(p.ID, false, engine.WithReason("keep the build")))
		}, false, "Command denied by user: keep the build", true, false},
		{"deny without a reason", func(a *agent, p *engine.Pause) {
			require.NoError(t, a.s.Confirm("", false))
		}, false, "Command denied by user", true, false},
		{"interrupt during the pause", func(a *agent, p *engine.Pause) {
			require.NoError(t, a.s.Interrupt(engine.ReasonUserStop))
		}, true, "interrupted before completion", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := h.session("rm -rf victim")
			victim := filepath.Join(a.dir, "victim")
			require.NoError(t, os.MkdirAll(filepath.Join(victim, "sub"), 0o755))
			out := a.start()
			ev := a.waitFor(engine.EventPaused, nil)
			p := ev.Pause
			require.NotNil(t, p)
			assert.Equal(t, engine.PauseConfirm, p.Kind)
			assert.Equal(t, "Bash", p.Tool)
			assert.Equal(t, "Potentially dangerous command", p.Message)
			assert.Equal(t, "rm -rf victim", p.Details)
			assert.Equal(t, []string{"recursive deletion: rm -rf victim"}, p.Reasons)
			assert.Equal(t, engine.StatusPaused, a.s.Status())
			tt.answer(a, p)
			o := a.finish(out)
			if tt.wantErr {
				require.ErrorIs(t, o.Err, engine.ErrInterrupted)
				reason, ok := engine.ReasonOf(o.Err)
				assert.True(t, ok)
				assert.Equal(t, engine.ReasonUserStop, reason)
				assert.Equal(t, engine.StatusInterrupted, a.s.Status())
			} else {
				require.NoError(t, o.Err)
			}
			res := a.toolResult()
			assert.Equal(t, tt.result, res.Text)
			assert.Equal(t, tt.isError, res.IsError)
			_, err := os.Stat(victim)
			assert.Equal(t, tt.removed, os.IsNotExist(err), "victim removed")
		})
	}
}

// TestSessionGrantStaysInItsSession: "remember for this session" skips the
// question in that session only.
func TestSessionGrantStaysInItsSession(t *testing.T) {
	t.Parallel()
	h := newHarness(t, New(tracked(nil)))
	const cmd = "mkdir -p victim && rm -rf victim"
	first := h.session(cmd)
	_, res := first.answered(engine.AnswerApproved, engine.Remember(ScopeSession))
	assert.False(t, res.IsError)

	grants := h.tool.SessionGrants(first.s).List()
	require.Len(t, grants, 1)
	granted := "rm -rf victim (in " + first.dir + ")"
	assert.Equal(t, granted, grants[0].Command)
	assert.Equal(t, ScopeSession, grants[0].Scope)
	assert.Empty(t, h.tool.ProjectGrants().List())

	// Same session, same command: no pause this time.
	assert.Equal(t, "[exit code 0]", first.run().Text)

	// Another session still asks.
	second := h.session(cmd)
	assert.Empty(t, h.tool.SessionGrants(second.s).List())
	p, res := second.answered(engine.AnswerDenied, engine.WithReason("not here"))
	assert.Equal(t, []string{"recursive deletion: rm -rf victim"}, p.Reasons)
	assert.Equal(t, "Command denied by user: not here", res.Text)

	// Revoked: the first session asks again.
	require.NoError(t, h.tool.SessionGrants(first.s).Revoke(granted))
	require.ErrorIs(t, h.tool.SessionGrants(first.s).Revoke(granted), ErrUnknownGrant)
	first.answered(engine.AnswerApproved)
}

// TestProjectGrants: "remember for the project" applies to every session of
// the tool in that project, is saved to the file, listed, and revoked.
func TestProjectGrants(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "grants.json")
	project := t.TempDir()
	inProject := func(o *engine.SessionOptions) { o.Dir = project }
	tool := New(tracked(nil), WithProjectGrantsFile(file))
	h := newHarness(t, tool)
	const cmd = "rm -f missing.txt"
	h.session(cmd, inProject).answered(engine.AnswerApproved, engine.Remember(ScopeProject))

	list := tool.ProjectGrants().List()
	require.Len(t, list, 1)
	granted := "rm -f missing.txt (in " + project + ")"
	assert.Equal(t, granted, list[0].Command)
	assert.Equal(t, project, list[0].Root)
	assert.Equal(t, ScopeProject, list[0].Scope)
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"root": "`+project+`"`)

	// Another session, and a new tool reading the same file, don't ask.
	assert.Equal(t, "[exit code 0]", h.session(cmd, inProject).run().Text)
	reloaded := New(tracked(nil), WithProjectGrantsFile(file))
	require.NoError(t, reloaded.ProjectGrants().Err())
	assert.Equal(t, list[0].Command, reloaded.ProjectGrants().List()[0].Command)
	assert.Equal(t, "[exit code 0]", newHarness(t, reloaded).session(cmd, inProject).run().Text)

	// Revoked: asked again, and gone from the file.
	require.NoError(t, tool.ProjectGrants().Revoke(granted))
	assert.Empty(t, tool.ProjectGrants().List())
	data, err = os.ReadFile(file)
	require.NoError(t, err)
	assert.NotContains(t, string(data), "missing.txt")
	b := h.session(cmd, inProject)
	out := b.start()
	b.waitFor(engine.EventPaused, nil)
	require.NoError(t, b.s.Interrupt(engine.ReasonUserStop))
	require.ErrorIs(t, b.finish(out).Err, engine.ErrInterrupted)
}

// TestProjectGrantsInTheEngineStore: with an engine store, project grants
// are read from and written to the store, not the tool's file: a grant
// given under one host is honoured after a restart (a new engine, a new
// tool) in its project only, and a revoke is gone after the next restart.
func TestProjectGrantsInTheEngineStore(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.db")
	file := filepath.Join(t.TempDir(), "grants.json")
	project, other := t.TempDir(), t.TempDir()
	in := func(dir string) func(*engine.SessionOptions) { return func(o *engine.SessionOptions) { o.Dir = dir } }
	host := func(tool *Tool) *harness {
		e, err := engine.Open(t.Context(), engine.WithStore(path), engine.WithTool("Bash", tool))
		require.NoError(t, err)
		return &harness{t: t, tool: tool, eng: e}
	}
	const cmd = "rm -f missing.txt"
	granted := "rm -f missing.txt (in " + project + ")"

	first := host(New(tracked(nil), WithProjectGrantsFile(file)))
	first.session(cmd, in(project)).answered(engine.AnswerApproved, engine.Remember(ScopeProject))
	require.Len(t, first.tool.ProjectGrants().List(), 1)
	require.NoError(t, first.eng.Close())
	_, err := os.Stat(file)
	require.ErrorIs(t, err, os.ErrNotExist, "the store is the one place: the file is not written")

	second := host(New(tracked(nil)))
	list := second.tool.ProjectGrants().List()
	require.Len(t, list, 1, "read from the store")
	assert.Equal(t, granted, list[0].Command)
	assert.Equal(t, project, list[0].Root)
	assert.Equal(t, "[exit code 0]", second.session(cmd, in(project)).run().Text, "honoured after the restart")
	asked := second.session(cmd, in(other)) // the same words in another project
	out := asked.start()
	asked.waitFor(engine.EventPaused, nil)
	require.NoError(t, asked.s.Interrupt(engine.ReasonUserStop))
	require.ErrorIs(t, asked.finish(out).Err, engine.ErrInterrupted)
	require.NoError(t, second.tool.ProjectGrants().Revoke(granted))
	require.NoError(t, second.eng.Close())

	third := host(New(tracked(nil)))
	defer third.eng.Close()
	assert.Empty(t, third.tool.ProjectGrants().List(), "the revoke was stored")
	asked = third.session(cmd, in(project))
	out = asked.start()
	asked.waitFor(engine.EventPaused, nil)
	require.NoError(t, asked.s.Interrupt(engine.ReasonUserStop))
	require.ErrorIs(t, asked.finish(out).Err, engine.ErrInterrupted)
}

func TestProjectGrantsCorruptFile(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "grants.json")
	require.NoError(t, os.WriteFile(file, []byte("{not json"), 0o600))
	g := New(WithProjectGrantsFile(file)).ProjectGrants()
	require.Error(t, g.Err())
	assert.Empty(t, g.List())
	require.Error(t, g.add([]string{"rm -rf x"}, "/p", "s1", time.Now()), "must not overwrite a file it could not read")
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, "{not json", string(data))
}

func TestDenyRuleNeverAsks(t *testing.T) {
	t.Parallel()
	h := newHarness(t, New(tracked(nil), enginePolicy(t, "no-push", "deny", `program = "git"
subcommand = "push"`)))
	a := h.session("git status; git push origin main")
	res := a.run()
	assert.True(t, res.IsError)
	assert.Equal(t, `Command denied by rule: denied by engine rule "no-push" (r): git push origin main`, res.Text)
	for _, ev := range drain(a) {
		assert.NotEqual(t, engine.EventPaused, ev.Type)
	}
}

// drain returns the events already published.
func drain(a *agent) []engine.Event {
	var evs []engine.Event
	ctx, cancel := context.WithCancel(a.h.t.Context())
	cancel() // Next returns what is there, then ctx's error
	for {
		ev, err := a.sub.Next(ctx)
		if err != nil {
			return evs
		}
		evs = append(evs, ev)
	}
}

// TestInterruptKillsProcessGroup: Interrupt while a command runs ends the
// run as interrupted only once every process of its group is gone.
func TestInterruptKillsProcessGroup(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, cmd string
		ignores   bool
	}{
		// "started" is written once the grandchild is forked and, in the
		// second case, SIGTERM is ignored: interrupting before the trap is
		// set would let sh die of SIGTERM within the grace.
		{"sleep in background and foreground", "sh -c 'sleep 30 & echo started; sleep 30; wait'", false},
		{"child ignores SIGTERM", "sh -c \"trap '' TERM; sleep 30 & echo started; sleep 30; wait\"", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			groups := make(chan int, 1)
			h := newHarness(t, New(tracked(func(pgid int) { groups <- pgid }), WithGrace(150*time.Millisecond)))
			a := h.session(tt.cmd)
			out := a.start()
			// Streaming: the first line arrives while the command still runs.
			a.waitFor(engine.EventToolProgress, func(ev engine.Event) bool { return strings.Contains(ev.Text, "started") })
			pgid := <-groups
			live, err := liveMembers(pgid)
			require.NoError(t, err)
			require.GreaterOrEqual(t, len(live), 2, "sh and its background sleep run: %v", live)

			start := time.Now()
			require.NoError(t, a.s.Interrupt(engine.ReasonUserStop))
			a.waitFor(engine.EventInterrupted, nil)
			elapsed := time.Since(start)
			requireGroupGone(t, pgid)
			if tt.ignores {
				assert.GreaterOrEqual(t, elapsed, 150*time.Millisecond, "SIGKILL only after the grace")
			}
			assert.Less(t, elapsed, 3*time.Second)

			o := a.finish(out)
			require.ErrorIs(t, o.Err, engine.ErrInterrupted)
			assert.Equal(t, engine.StatusInterrupted, a.s.Status())
			snap := a.s.Snapshot()
			require.NotNil(t, snap.Interruption)
			assert.True(t, snap.Interruption.SideEffectCut, "bash has side effects")
			assert.Equal(t, "started\ninterrupted before completion", a.toolResult().Text, "what it printed, then the note")
		})
	}
}

func TestToolTimeoutAndOutputCap(t *testing.T) {
	t.Parallel()
	h := newHarness(t, New(tracked(nil), WithOutputLimit(200)))
	tests := []struct {
		name string
		args Args
		want []string
	}{
		// A timeout long enough for the supervisor to start and echo on a busy machine.
		{"timeout", Args{Command: "echo before; sleep 30", TimeoutMS: 1500}, []string{"before\n[timed out after 1.5s; the command and its children were killed]"}},
		{"output cap", Args{Command: "seq 1 5000"}, []string{"1\n2\n3\n", "bytes omitted] ...\n", "4999\n5000\n[exit code 0]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args, err := json.Marshal(tt.args)
			require.NoError(t, err)
			s, err := h.eng.NewSession(engine.SessionOptions{Provider: engine.NewScriptedProvider([]engine.ScriptTurn{
				{ToolCalls: []engine.ScriptCall{{Name: "Bash", Args: args}}},
			})})
			require.NoError(t, err)
			_, err = s.Prompt(t.Context(), "go")
			require.NoError(t, err)
			var res engine.Message
			for _, m := range s.History() {
				if m.Role == engine.RoleTool {
					res = m
				}
			}
			for _, w := range tt.want {
				assert.Contains(t, res.Text, w)
			}
			assert.Less(t, len(res.Text), 400)
		})
	}
}

// The confirm says what [S] or [P] would remember, the command as judged
// (words resolved, directory): approved with it, the identical command
// runs without asking and a different one still asks. The bash tool keeps
// the grant itself: the engine lists it once, as the tool's, and every
// observer is told when it is given and taken back (grants_changed).
func TestConfirmSaysWhatItRemembers(t *testing.T) {
	t.Parallel()
	for _, scope := range []string{ScopeSession, ScopeProject} {
		t.Run(scope, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, New(tracked(nil)))
			all := h.eng.Subscribe()
			defer all.Close()
			script := func(o *engine.SessionOptions) {
				var calls []engine.ScriptCall
				for _, c := range []string{"rm -rf ./victim", "rm -rf other"} {
					args, err := json.Marshal(Args{Command: c})
					require.NoError(t, err)
					calls = append(calls, engine.ScriptCall{Name: "Bash", Args: args})
				}
				o.Provider = engine.NewScriptedProvider([]engine.ScriptTurn{{ToolCalls: calls[:1]}, {ToolCalls: calls[1:]}, {Text: "done"}})
			}
			a := h.session("", script)
			key := "rm -rf " + filepath.Join(a.dir, "victim") + " (in " + a.dir + ")"

			out := a.start()
			p := a.waitFor(engine.EventPaused, nil).Pause
			assert.Equal(t, "rm -rf ./victim", p.Details)
			assert.Equal(t, []string{ScopeSession, ScopeProject}, p.RememberScopes)
			assert.Equal(t, key, p.RememberKey, "the pause says what an approval remembers")
			require.NoError(t, a.s.Confirm(p.ID, true, engine.Remember(scope)))
			other := a.waitFor(engine.EventPaused, func(ev engine.Event) bool { return ev.Pause.ID != p.ID }).Pause
			assert.Equal(t, "rm -rf other", other.Details)
			require.NoError(t, a.s.Confirm(other.ID, false))
			require.NoError(t, a.finish(out).Err)

			grants, err := h.eng.Grants(t.Context())
			require.NoError(t, err)
			require.Len(t, grants, 1, "one grant, the tool's: the engine keeps no second one: %+v", grants)
			want := engine.Grant{Tool: "Bash", Key: key, Scope: scope, At: grants[0].At}
			if scope == ScopeSession {
				want.Session = a.s.ID()
			} else {
				want.Root = engine.ProjectRoot(a.dir)
			}
			assert.Equal(t, want, grants[0])
			added := waitGrantChange(t, all)
			assert.Equal(t, engine.GrantAdded, added.Text)
			assert.Equal(t, want, *added.Grant)

			// Again: the identical command is not asked, the other one is.
			out = a.start()
			again := a.waitFor(engine.EventPaused, nil).Pause
			assert.Equal(t, "rm -rf other", again.Details, "the approved command ran without asking")
			require.NoError(t, a.s.Confirm(again.ID, false))
			require.NoError(t, a.finish(out).Err)

			require.NoError(t, h.eng.RevokeGrant(t.Context(), grants[0]))
			revoked := waitGrantChange(t, all)
			assert.Equal(t, engine.GrantRevoked, revoked.Text)
			assert.Equal(t, want, *revoked.Grant)
			out = a.start()
			p = a.waitFor(engine.EventPaused, nil).Pause
			assert.Equal(t, "rm -rf ./victim", p.Details, "asked again once revoked")
			require.NoError(t, a.s.Confirm(p.ID, true, engine.Remember(scope)))
			assert.Equal(t, engine.GrantAdded, waitGrantChange(t, all).Text)
			require.NoError(t, a.s.Interrupt(engine.ReasonUserStop))
			a.finish(out)

			// A session's grants end with it, and every observer is told; a
			// project's stay.
			grants, err = h.eng.Grants(t.Context())
			require.NoError(t, err)
			require.Len(t, grants, 1)
			require.NoError(t, a.s.Close())
			if scope == ScopeSession {
				ended := waitGrantChange(t, all)
				assert.Equal(t, engine.GrantRevoked, ended.Text)
				assert.Equal(t, grants[0], *ended.Grant)
			}
			left, err := h.eng.Grants(t.Context())
			require.NoError(t, err)
			assert.Len(t, left, map[string]int{ScopeSession: 0, ScopeProject: 1}[scope])
		})
	}
}

// waitGrantChange reads the engine's events until a grants_changed one.
func waitGrantChange(t *testing.T, sub *engine.Subscription[engine.Event]) engine.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	for {
		ev, err := sub.Next(ctx)
		require.NoError(t, err, "waiting for grants_changed")
		if ev.Type == engine.EventGrantsChanged {
			assert.Empty(t, ev.Session, "the engine's event, no session's")
			require.NotNil(t, ev.Grant)
			return ev
		}
	}
}

// A confirm of several findings says every action an approval remembers,
// each once; one that can't be remembered offers nothing and says nothing.
func TestOfferRemember(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		keys   []string
		key    string
		scopes []string
	}{
		{"one action", []string{"rm -rf /p/build (in /p)"}, "rm -rf /p/build (in /p)", []string{ScopeSession, ScopeProject}},
		{"actions, one repeated", []string{"rm -rf /p/a (in /p)", "git push --force (in /p)", "rm -rf /p/a (in /p)"},
			"rm -rf /p/a (in /p); git push --force (in /p)", []string{ScopeSession, ScopeProject}},
		{"one that can't be remembered", []string{"rm -rf /p/a (in /p)", ""}, "", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req := engine.PauseRequest{RememberKey: "stale"}
			offerRemember(&req, tt.keys)
			assert.Equal(t, tt.key, req.RememberKey)
			assert.Equal(t, tt.scopes, req.RememberScopes)
			assert.True(t, req.ToolRemembers, "the tool keeps the grant, not the engine")
		})
	}
}
