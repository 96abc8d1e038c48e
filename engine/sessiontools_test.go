package engine_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
)

// offered records the tool names of every model request, then streams the
// scripted turns.
type offered struct {
	engine.Provider
	mu    sync.Mutex
	names [][]string
}

func (o *offered) Stream(ctx context.Context, req engine.ModelRequest) (engine.Stream, error) {
	var names []string
	for _, t := range req.Tools {
		names = append(names, t.Name)
	}
	o.mu.Lock()
	o.names = append(o.names, names)
	o.mu.Unlock()
	return o.Provider.Stream(ctx, req)
}

// A session that chooses its built-in tools offers the model only those
// (plus tools registered later, a host's), refuses a call of the others,
// and keeps the choice across a restart of the engine on its store.
func TestSessionChoosesItsBuiltinTools(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.db")
	e, err := engine.Open(t.Context(), engine.WithStore(path))
	require.NoError(t, err)
	e.Tools().Register("host_tool", engine.ToolFunc(func(context.Context, engine.ToolCall, *engine.Env) (engine.Result, error) {
		return engine.Result{Output: "host"}, nil
	}))

	_, err = e.NewSession(engine.SessionOptions{Tools: []string{"sleep", "bash"}})
	require.ErrorIs(t, err, engine.ErrInvalidArgument)
	require.ErrorContains(t, err, `tools: "bash" is not a built-in tool of this engine: choose among ask, sleep`)

	turns := []engine.ScriptTurn{
		{ToolCalls: []engine.ScriptCall{ask(engine.PauseConfirm, "may I?")}},
		{Text: "done"},
	}
	p := &offered{Provider: engine.NewScriptedProvider(turns)}
	s, err := e.NewSession(engine.SessionOptions{ID: "narrow", Tools: []string{"sleep"}, Provider: p})
	require.NoError(t, err)
	res, err := s.Prompt(t.Context(), "go")
	require.NoError(t, err)
	require.Equal(t, "done", res.Text)
	require.Equal(t, [][]string{{"host_tool", "sleep"}, {"host_tool", "sleep"}}, p.names)
	refused := lastTool(s.History())
	require.True(t, refused.IsError)
	require.Contains(t, refused.Text, `"ask" is not offered in this session (its tools: sleep)`)

	_, err = e.NewSession(engine.SessionOptions{ID: "none", Tools: []string{}})
	require.NoError(t, err)
	_, err = e.NewSession(engine.SessionOptions{ID: "all"})
	require.NoError(t, err)
	require.NoError(t, e.Close())

	// Restored from the store, each session offers what it chose, no more.
	p2 := &offered{Provider: engine.NewScriptedProvider([]engine.ScriptTurn{{Text: "ok"}})}
	e2, err := engine.Open(t.Context(), engine.WithStore(path), engine.WithProvider(p2))
	require.NoError(t, err)
	defer e2.Close()
	for _, id := range []string{"narrow", "none", "all"} {
		s, err := e2.Session(id)
		require.NoError(t, err)
		_, err = s.Prompt(t.Context(), "again")
		require.NoError(t, err)
	}
	require.Equal(t, [][]string{{"sleep"}, nil, {"ask", "sleep"}}, p2.names)
}

// The engine chooses its built-in tools (WithBuiltinTools): the model is
// offered those and tools registered later; its sessions choose among
// them; a name that is not a built-in tool is refused as written.
func TestEngineChoosesItsBuiltinTools(t *testing.T) {
	t.Parallel()
	_, err := engine.Open(t.Context(), engine.WithBuiltinTools("sleep", "shell"))
	require.ErrorIs(t, err, engine.ErrInvalidArgument)
	require.ErrorContains(t, err, `tools: "shell" is not a built-in tool: choose among ask, sleep`)

	p := &offered{Provider: engine.NewScriptedProvider([]engine.ScriptTurn{{Text: "ok"}})}
	e, err := engine.Open(t.Context(), engine.WithProvider(p), engine.WithBuiltinTools("sleep"))
	require.NoError(t, err)
	defer e.Close()
	e.Tools().Register("host_tool", engine.ToolFunc(func(context.Context, engine.ToolCall, *engine.Env) (engine.Result, error) {
		return engine.Result{}, nil
	}))
	_, err = e.NewSession(engine.SessionOptions{Tools: []string{"ask"}})
	require.ErrorContains(t, err, `tools: "ask" is not a built-in tool of this engine: choose among sleep`)
	s, err := e.NewSession(engine.SessionOptions{})
	require.NoError(t, err)
	_, err = s.Prompt(t.Context(), "go")
	require.NoError(t, err)
	require.Equal(t, [][]string{{"host_tool", "sleep"}}, p.names)

	none, err := engine.Open(t.Context(), engine.WithBuiltinTools())
	require.NoError(t, err)
	defer none.Close()
	require.Empty(t, none.Tools().Names())
}
