package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/internal/testsupervisor"
)

func TestMain(m *testing.M) {
	if os.Getenv(crashChildEnv) != "" {
		crashChild(os.Getenv(crashChildEnv)) // never returns
	}
	if scenario := os.Getenv(killChildEnv); scenario != "" {
		killChild(scenario, os.Getenv(killStoreEnv)) // never returns
	}
	cleanup, err := testsupervisor.Install() // the bash tool's commands run under it
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) { cleanup(); os.Exit(code) }))
}

// call is a scripted tool call.
func call(name string, args any) engine.ScriptCall {
	b, _ := json.Marshal(args)
	return engine.ScriptCall{Name: name, Args: b}
}

func ask(kind engine.PauseKind, msg string) engine.ScriptCall {
	return call("ask", map[string]string{"kind": string(kind), "message": msg})
}

// gate is a tool that reports it started, then blocks until released or
// interrupted; with holdAfterCancel it keeps blocking after the interrupt
// until released, so a test can observe the stopping status.
type gate struct {
	started, release chan struct{}
	holdAfterCancel  bool
}

func newGate() *gate { return &gate{started: make(chan struct{}, 16), release: make(chan struct{})} }

func (g *gate) Run(ctx context.Context, c engine.ToolCall, env *engine.Env) (engine.Result, error) {
	g.started <- struct{}{}
	select {
	case <-g.release:
		return engine.Result{Output: "gate released"}, nil
	case <-ctx.Done():
		if g.holdAfterCancel {
			<-g.release
		}
		return engine.Result{}, ctx.Err()
	}
}

func (g *gate) HasSideEffects(engine.ToolCall) bool { return true }

func newEngine(t *testing.T, turns []engine.ScriptTurn, opts ...engine.Option) (*engine.Engine, *engine.Session) {
	t.Helper()
	e := engine.New(append([]engine.Option{engine.WithProvider(engine.NewScriptedProvider(turns))}, opts...)...)
	t.Cleanup(func() { e.Close() })
	s, err := e.NewSession(engine.SessionOptions{})
	require.NoError(t, err)
	return e, s
}

// waitEvent reads sub until an event satisfies pred.
func waitEvent(t *testing.T, sub *engine.Subscription[engine.Event], pred func(engine.Event) bool) engine.Event {
	t.Helper()
	for {
		ev, err := sub.Next(t.Context())
		require.NoError(t, err, "waiting for an event")
		if pred(ev) {
			return ev
		}
	}
}

func isType(tp engine.EventType) func(engine.Event) bool {
	return func(ev engine.Event) bool { return ev.Type == tp }
}

// start runs a prompt in the background and returns its outcome channel.
func start(t *testing.T, s *engine.Session, text string) <-chan engine.Outcome {
	t.Helper()
	_, out, err := s.Start(t.Context(), text)
	require.NoError(t, err)
	return out
}

func lastTool(h []engine.Message) engine.Message {
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Role == engine.RoleTool {
			return h[i]
		}
	}
	return engine.Message{}
}
