package engine_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
)

// deployTool asks before deploying to the environment its call names, with
// a remember key naming exactly that environment (none when args.keyless).
// It parks on the question (Env.Ask), as a tool of the engine's loop does.
var deployTool = engine.ToolFunc(func(ctx context.Context, c engine.ToolCall, env *engine.Env) (engine.Result, error) {
	var a struct {
		Env     string   `json:"env"`
		Keyless bool     `json:"keyless"`
		Scopes  []string `json:"scopes"`
	}
	if err := json.Unmarshal(c.Args, &a); err != nil {
		return engine.Result{}, err
	}
	req := engine.PauseRequest{Kind: engine.PauseConfirm, Message: "Deploy to " + a.Env + "?", RememberKey: "deploy to " + a.Env, RememberScopes: a.Scopes}
	if a.Keyless {
		req.RememberKey = ""
	}
	return env.Ask(ctx, req, func(ctx context.Context, ans engine.PauseResult) (engine.Result, error) {
		if !ans.Approved() {
			return engine.Result{Output: "not deployed", IsError: true}, nil
		}
		return engine.Result{Output: "deployed (" + ans.Remember + " " + ans.By + ")"}, nil
	})
})

func deployTurns(args map[string]any) []engine.ScriptTurn {
	return []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{call("deploy", args)}}, {Text: "done"}}
}

// deployer drives deploys in one session.
type deployer struct {
	t   *testing.T
	s   *engine.Session
	sub *engine.Subscription[engine.Event]
}

func newDeployer(t *testing.T, e *engine.Engine, dir string) *deployer {
	t.Helper()
	s, err := e.NewSession(engine.SessionOptions{Dir: dir})
	require.NoError(t, err)
	sub := s.Subscribe()
	t.Cleanup(func() { sub.Close() })
	return &deployer{t: t, s: s, sub: sub}
}

// asked runs a deploy that must pause, answers it with opts and returns the
// pause and what the tool returned.
func (d *deployer) asked(approve bool, opts ...engine.AnswerOption) (*engine.Pause, string) {
	d.t.Helper()
	out := start(d.t, d.s, "deploy")
	ev := waitEvent(d.t, d.sub, func(ev engine.Event) bool {
		require.NotEqual(d.t, engine.EventGranted, ev.Type, "approved by a grant: %s", ev.Text)
		return ev.Type == engine.EventPaused
	})
	require.NoError(d.t, d.s.Confirm(ev.Pause.ID, approve, opts...))
	require.NoError(d.t, (<-out).Err)
	return ev.Pause, lastTool(d.s.History()).Text
}

// granted runs a deploy that a grant must approve without a pause, and
// returns the granted event and what the tool returned.
func (d *deployer) granted() (engine.Event, string) {
	d.t.Helper()
	out := start(d.t, d.s, "deploy")
	ev := waitEvent(d.t, d.sub, func(ev engine.Event) bool {
		require.NotEqual(d.t, engine.EventPaused, ev.Type, "asked again: %+v", ev.Pause)
		return ev.Type == engine.EventGranted
	})
	require.NoError(d.t, (<-out).Err)
	return ev, lastTool(d.s.History()).Text
}

func TestRememberedConfirm(t *testing.T) {
	t.Parallel()
	prod := deployTurns(map[string]any{"env": "production"})
	newEng := func(t *testing.T, turns []engine.ScriptTurn) *engine.Engine {
		e := engine.New(engine.WithProvider(engine.NewScriptedProvider(turns)), engine.WithTool("deploy", deployTool))
		t.Cleanup(func() { e.Close() })
		return e
	}

	t.Run("session grant: honoured in its session only", func(t *testing.T) {
		t.Parallel()
		e := newEng(t, prod)
		dir := t.TempDir()
		a := newDeployer(t, e, dir)
		p, out := a.asked(true, engine.Remember(engine.RememberSession))
		assert.Equal(t, []string{engine.RememberSession, engine.RememberProject}, p.RememberScopes, "a keyed confirm offers both scopes")
		assert.Equal(t, "deploy to production", p.RememberKey, "the pause says what is remembered")
		assert.Equal(t, "deployed (session )", out)
		ev, out := a.granted()
		assert.Equal(t, "deploy to production", ev.Text, "the event names the grant")
		assert.Equal(t, "deploy", ev.Tool)
		assert.Equal(t, engine.RememberSession, ev.Remember)
		assert.Equal(t, engine.AnswerApproved, ev.Answer)
		assert.Equal(t, "deployed (session grant)", out, "the tool learns a grant approved")
		assert.Equal(t, engine.StatusIdle, a.s.Status())

		b := newDeployer(t, e, dir) // same engine, same directory
		_, out = b.asked(false)
		assert.Equal(t, "not deployed", out, "another session's grant approves nothing here")
	})

	t.Run("a grant covers its key only", func(t *testing.T) {
		t.Parallel()
		turns := []engine.ScriptTurn{
			{ToolCalls: []engine.ScriptCall{call("deploy", map[string]any{"env": "production"})}},
			{ToolCalls: []engine.ScriptCall{call("deploy", map[string]any{"env": "staging"})}},
			{Text: "done"},
		}
		d := newDeployer(t, newEng(t, turns), t.TempDir())
		out := start(t, d.s, "deploy twice")
		p := waitEvent(t, d.sub, isType(engine.EventPaused)).Pause
		assert.Equal(t, "Deploy to production?", p.Message)
		require.NoError(t, d.s.Confirm(p.ID, true, engine.Remember(engine.RememberSession)))
		ev := waitEvent(t, d.sub, func(ev engine.Event) bool { return ev.Type == engine.EventPaused || ev.Type == engine.EventGranted })
		require.Equal(t, engine.EventPaused, ev.Type, "staging is not production: asked")
		assert.Equal(t, "Deploy to staging?", ev.Pause.Message)
		require.NoError(t, d.s.Confirm(ev.Pause.ID, false))
		require.NoError(t, (<-out).Err)
	})

	t.Run("once and key-less confirms are never remembered", func(t *testing.T) {
		t.Parallel()
		a := newDeployer(t, newEng(t, prod), t.TempDir())
		a.asked(true, engine.Remember(engine.RememberOnce))
		a.asked(true)

		k := newDeployer(t, newEng(t, deployTurns(map[string]any{"env": "production", "keyless": true})), t.TempDir())
		p, _ := k.asked(true)
		assert.Empty(t, p.RememberScopes, "nothing offered")
		k.asked(false)
	})

	t.Run("a scope the pause does not offer is refused", func(t *testing.T) {
		t.Parallel()
		for _, tt := range []struct {
			name    string
			args    map[string]any
			refused string
		}{
			{"key-less", map[string]any{"env": "production", "keyless": true}, engine.RememberSession},
			{"session only", map[string]any{"env": "production", "scopes": []string{"session"}}, engine.RememberProject},
		} {
			t.Run(tt.name, func(t *testing.T) {
				d := newDeployer(t, newEng(t, deployTurns(tt.args)), t.TempDir())
				out := start(t, d.s, "deploy")
				p := waitEvent(t, d.sub, isType(engine.EventPaused)).Pause
				err := d.s.Confirm(p.ID, true, engine.Remember(tt.refused))
				require.ErrorIs(t, err, engine.ErrInvalidArgument)
				assert.ErrorContains(t, err, "not offered by this pause")
				assert.Equal(t, engine.StatusPaused, d.s.Status(), "the pause still waits for an answer")
				require.NoError(t, d.s.Confirm(p.ID, false))
				require.NoError(t, (<-out).Err)
			})
		}
	})

	t.Run("a denial with a scope is refused: only an approval is remembered", func(t *testing.T) {
		t.Parallel()
		d := newDeployer(t, newEng(t, prod), t.TempDir())
		out := start(t, d.s, "deploy")
		p := waitEvent(t, d.sub, isType(engine.EventPaused)).Pause
		for _, scope := range []string{engine.RememberSession, engine.RememberProject} {
			err := d.s.Confirm(p.ID, false, engine.Remember(scope))
			require.ErrorIs(t, err, engine.ErrInvalidArgument, scope)
			assert.ErrorContains(t, err, "only an approval is remembered")
		}
		assert.Equal(t, engine.StatusPaused, d.s.Status(), "the pause still waits for an answer")
		require.NoError(t, d.s.Confirm(p.ID, false, engine.Remember(engine.RememberOnce)))
		require.NoError(t, (<-out).Err)
	})

	t.Run("a remember key on a continue pause is refused", func(t *testing.T) {
		t.Parallel()
		_, s := newEngine(t, nil)
		h, err := s.Begin(t.Context())
		require.NoError(t, err)
		_, err = h.Pause(t.Context(), engine.PauseRequest{Kind: engine.PauseContinue, Message: "next?", RememberKey: "next"})
		assert.ErrorIs(t, err, engine.ErrInvalidArgument)
		_, err = h.End(nil)
		require.NoError(t, err)
	})

	t.Run("a host's own loop", func(t *testing.T) {
		t.Parallel()
		_, s := newEngine(t, nil)
		sub := s.Subscribe()
		defer sub.Close()
		h, err := s.Begin(t.Context())
		require.NoError(t, err)
		req := engine.PauseRequest{Kind: engine.PauseConfirm, Tool: "email", Message: "Send the email?", RememberKey: "send to team@example.com"}
		answered := make(chan engine.PauseResult, 1)
		go func() {
			res, err := h.Pause(t.Context(), req)
			assert.NoError(t, err)
			answered <- res
		}()
		p := waitEvent(t, sub, isType(engine.EventPaused)).Pause
		require.NoError(t, s.Confirm(p.ID, true, engine.Remember(engine.RememberSession)))
		assert.Equal(t, engine.PauseResult{Answer: engine.AnswerApproved, Remember: engine.RememberSession}, <-answered)
		res, err := h.Pause(t.Context(), req)
		require.NoError(t, err)
		assert.Equal(t, engine.PauseResult{Answer: engine.AnswerApproved, Remember: engine.RememberSession, By: "grant"}, res)
		ev := waitEvent(t, sub, isType(engine.EventGranted))
		assert.Equal(t, "email", ev.Tool)
		_, err = h.End(nil)
		require.NoError(t, err)
	})
}

// A project grant is kept in the engine's store: after a restart it
// approves in its project, and only there.
func TestRememberedConfirmProjectGrantSurvivesARestart(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.db")
	projA, projB := t.TempDir(), t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(projA, ".git"), 0o755))
	require.NoError(t, os.Mkdir(filepath.Join(projA, "sub"), 0o755))
	open := func() *engine.Engine {
		e, err := engine.Open(t.Context(), engine.WithStore(path), engine.WithTool("deploy", deployTool),
			engine.WithProvider(engine.NewScriptedProvider(deployTurns(map[string]any{"env": "production"}))))
		require.NoError(t, err)
		return e
	}
	e := open()
	newDeployer(t, e, projA).asked(true, engine.Remember(engine.RememberProject), engine.AnsweredBy("tui"))
	newDeployer(t, e, projA).granted() // another session, same project
	require.NoError(t, e.Close())

	e = open()
	defer e.Close()
	ev, out := newDeployer(t, e, filepath.Join(projA, "sub")).granted() // the project is the git root above
	assert.Equal(t, engine.RememberProject, ev.Remember)
	assert.Equal(t, "deployed (project grant)", out)
	_, out = newDeployer(t, e, projB).asked(false)
	assert.Equal(t, "not deployed", out, "another project asks")

	audit, err := e.AuditLog(t.Context(), "")
	require.NoError(t, err)
	var granted int
	for _, a := range audit {
		if a.Event == "granted" {
			granted++
			assert.Equal(t, "deploy to production", a.Message)
			assert.Equal(t, "project", a.Remember)
		}
	}
	assert.Equal(t, 2, granted, "every approval by a grant is in the audit log")
}

// A session grant is kept with its session: after a restart it approves in
// that session (still no other), and a session its user closed takes its
// grants along (a new session of the same id asks).
func TestRememberedConfirmSessionGrantSurvivesARestart(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.db")
	dir := t.TempDir()
	open := func() *engine.Engine {
		e, err := engine.Open(t.Context(), engine.WithStore(path), engine.WithTool("deploy", deployTool),
			engine.WithProvider(engine.NewScriptedProvider(deployTurns(map[string]any{"env": "production"}))))
		require.NoError(t, err)
		return e
	}
	attach := func(t *testing.T, e *engine.Engine, id string) *deployer {
		s, err := e.Session(id)
		require.NoError(t, err)
		sub := s.Subscribe()
		t.Cleanup(func() { sub.Close() })
		return &deployer{t: t, s: s, sub: sub}
	}
	e := open()
	a := newDeployer(t, e, dir)
	a.asked(true, engine.Remember(engine.RememberSession))
	b := newDeployer(t, e, dir)
	require.NoError(t, e.Close())

	e = open()
	ev, _ := attach(t, e, a.s.ID()).granted()
	assert.Equal(t, engine.RememberSession, ev.Remember)
	attach(t, e, b.s.ID()).asked(false) // still only its own session

	require.NoError(t, attach(t, e, a.s.ID()).s.Close()) // closed by its user: forgotten, grants too
	again, err := e.NewSession(engine.SessionOptions{ID: a.s.ID(), Dir: dir})
	require.NoError(t, err)
	require.NoError(t, e.Close())
	e = open()
	defer e.Close()
	attach(t, e, again.ID()).asked(false)
}

// What was remembered can be listed and taken back: the next confirm asks
// again.
func TestGrantsListedAndRevoked(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.db")
	dir := t.TempDir()
	e, err := engine.Open(t.Context(), engine.WithStore(path), engine.WithTool("deploy", deployTool),
		engine.WithProvider(engine.NewScriptedProvider(deployTurns(map[string]any{"env": "production"}))))
	require.NoError(t, err)
	defer func() { e.Close() }() // the engine open at the end
	all := e.Subscribe()
	defer all.Close()
	a, b := newDeployer(t, e, dir), newDeployer(t, e, dir)
	a.asked(true, engine.Remember(engine.RememberSession))
	b.asked(true, engine.Remember(engine.RememberProject))

	grants, err := e.Grants(t.Context())
	require.NoError(t, err)
	require.Len(t, grants, 2)
	assert.Equal(t, engine.Grant{Tool: "deploy", Key: "deploy to production", Scope: "session", Session: a.s.ID(), At: grants[0].At}, grants[0])
	assert.Equal(t, engine.Grant{Tool: "deploy", Key: "deploy to production", Scope: "project", Root: dir, At: grants[1].At}, grants[1])
	assert.Equal(t, []grantChange{{engine.GrantAdded, grants[0]}, {engine.GrantAdded, grants[1]}}, grantChanges(t, all, 2), "every observer is told of each grant given")

	require.NoError(t, e.RevokeGrant(t.Context(), grants[1]))
	assert.Equal(t, []grantChange{{engine.GrantRevoked, grants[1]}}, grantChanges(t, all, 1), "a revoke by code is told at once")
	b.asked(false) // the project grant is gone
	a.granted()    // the session's own stays
	require.NoError(t, e.RevokeGrant(t.Context(), grants[0]))
	assert.Equal(t, []grantChange{{engine.GrantRevoked, grants[0]}}, grantChanges(t, all, 1))
	a.asked(false)
	grants, err = e.Grants(t.Context())
	require.NoError(t, err)
	assert.Empty(t, grants)

	// A session's grants end with it: closed, each is revoked for every observer.
	a.asked(true, engine.Remember(engine.RememberSession))
	given := grantChanges(t, all, 1)[0]
	require.NoError(t, a.s.Close())
	assert.Equal(t, []grantChange{{engine.GrantRevoked, given.grant}}, grantChanges(t, all, 1))
	grants, err = e.Grants(t.Context())
	require.NoError(t, err)
	assert.Empty(t, grants, "gone from the list when the event comes")

	err = e.RevokeGrant(t.Context(), engine.Grant{Tool: "deploy", Key: "deploy to production", Scope: "project", Root: dir})
	assert.ErrorIs(t, err, engine.ErrUnknownGrant)
	assert.ErrorContains(t, err, "deploy to production")
	assert.ErrorIs(t, e.RevokeGrant(t.Context(), engine.Grant{Scope: "forever"}), engine.ErrInvalidArgument)

	require.NoError(t, e.Close())
	e, err = engine.Open(t.Context(), engine.WithStore(path), engine.WithTool("deploy", deployTool))
	require.NoError(t, err)
	grants, err = e.Grants(t.Context())
	require.NoError(t, err)
	assert.Empty(t, grants, "revoked in the store too")
}

// A project grant is bound to the real directory: a symlink that pointed
// at the approved project and now points elsewhere approves nothing there.
func TestProjectGrantBoundToTheRealDirectory(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	projA, projB, link := filepath.Join(root, "a"), filepath.Join(root, "b"), filepath.Join(root, "current")
	require.NoError(t, os.Mkdir(projA, 0o755))
	require.NoError(t, os.Mkdir(projB, 0o755))
	require.NoError(t, os.Symlink(projA, link))
	e := engine.New(engine.WithTool("deploy", deployTool), engine.WithProvider(engine.NewScriptedProvider(deployTurns(map[string]any{"env": "production"}))))
	t.Cleanup(func() { e.Close() })
	newDeployer(t, e, link).asked(true, engine.Remember(engine.RememberProject))
	newDeployer(t, e, projA).granted() // the same project, by its real path
	require.NoError(t, os.Remove(link))
	require.NoError(t, os.Symlink(projB, link))
	newDeployer(t, e, link).asked(false)
}

// grantChange is what a grants_changed event says.
type grantChange struct {
	change string
	grant  engine.Grant
}

// grantChanges reads the engine's events until n grants_changed ones came:
// events of the engine, not of a session.
func grantChanges(t *testing.T, sub *engine.Subscription[engine.Event], n int) []grantChange {
	t.Helper()
	var out []grantChange
	for len(out) < n {
		ev := waitEvent(t, sub, isType(engine.EventGrantsChanged))
		assert.Empty(t, ev.Session, "the engine's event")
		assert.Zero(t, ev.Version)
		require.NotNil(t, ev.Grant)
		assert.Equal(t, ev.Grant.Tool, ev.Tool)
		out = append(out, grantChange{ev.Text, *ev.Grant})
	}
	return out
}
