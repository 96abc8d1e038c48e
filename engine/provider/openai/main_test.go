package openai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/provider/openai"
	"github.com/interlock-dev/interlock/engine/provider/openai/openaitest"
	"github.com/interlock-dev/interlock/internal/testsupervisor"
)

// TestMain builds the bash tool's command supervisor (interlock-run) for
// the agent-turn tests and checks for goroutine leaks.
func TestMain(m *testing.M) {
	cleanup, err := testsupervisor.Install()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	cleanup()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutine leak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// server starts a replay server for the test.
func server(t testing.TB) *openaitest.Server {
	t.Helper()
	srv, err := openaitest.Start("127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	return srv
}

// setup returns a session whose model is the recording named model, and
// its working directory.
func setup(t testing.TB, srv *openaitest.Server, model string, popts []openai.Option, eopts ...engine.Option) (*engine.Session, string) {
	t.Helper()
	p, err := openai.New(append([]openai.Option{openai.WithBaseURL(srv.URL), openai.WithModel(model), openai.WithRetries(2, time.Millisecond)}, popts...)...)
	require.NoError(t, err)
	e := engine.New(append([]engine.Option{engine.WithProvider(p)}, eopts...)...)
	t.Cleanup(func() { e.Close() })
	dir := t.TempDir()
	s, err := e.NewSession(engine.SessionOptions{Dir: dir})
	require.NoError(t, err)
	return s, dir
}

// collect reads sub until the run's terminal event, answering pauses with
// answer (nil: leave them).
func collect(t testing.TB, sub *engine.Subscription[engine.Event], answer func(engine.Event)) []engine.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var evs []engine.Event
	for {
		ev, err := sub.Next(ctx)
		require.NoError(t, err, "waiting for the run to end; events so far: %v", types(evs))
		evs = append(evs, ev)
		if ev.Type == engine.EventPaused && answer != nil {
			answer(ev)
		}
		if ev.Type.Terminal() {
			return evs
		}
	}
}

func types(evs []engine.Event) []engine.EventType {
	out := make([]engine.EventType, len(evs))
	for i, ev := range evs {
		out[i] = ev.Type
	}
	return out
}

// texts joins the events' texts of one type.
func texts(evs []engine.Event, tp engine.EventType) string {
	var s string
	for _, ev := range evs {
		if ev.Type == tp {
			s += ev.Text
		}
	}
	return s
}

// requestBody decodes a recorded request.
type requestBody struct {
	Model         string            `json:"model"`
	Stream        bool              `json:"stream"`
	MaxTokens     int               `json:"max_tokens"`
	Temperature   *float64          `json:"temperature"`
	StreamOptions map[string]any    `json:"stream_options"`
	Messages      []json.RawMessage `json:"messages"`
	Tools         []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string         `json:"name"`
			Description string         `json:"description"`
			Parameters  map[string]any `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
}

func decode(t testing.TB, r openaitest.Request) requestBody {
	t.Helper()
	var b requestBody
	require.NoError(t, json.Unmarshal(r.Body, &b))
	return b
}
