package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/bash"
	"github.com/interlock-dev/interlock/engine/provider/openai"
)

func TestPlainTextStreamsAndRecordsUsage(t *testing.T) {
	srv := server(t)
	t.Setenv("INTERLOCK_TEST_KEY", "sk-test-123")
	s, _ := setup(t, srv, "text", []openai.Option{
		openai.WithAPIKeyEnv("INTERLOCK_TEST_KEY"), openai.WithHeader("X-Title", "interlock"),
		openai.WithMaxTokens(64), openai.WithTemperature(0.2), openai.WithSystemPrompt("Be brief."),
	})
	sub := s.Subscribe()
	defer sub.Close()

	res, err := s.Prompt(t.Context(), "hi")
	require.NoError(t, err)
	assert.Equal(t, engine.StatusIdle, res.Status)
	evs := collect(t, sub, nil)
	assert.Equal(t, engine.EventRunFinished, evs[len(evs)-1].Type)

	var deltas []string
	for _, ev := range evs {
		if ev.Type == engine.EventText {
			deltas = append(deltas, ev.Text)
		}
	}
	assert.Equal(t, []string{"Hello", " from", " the", " test", " server."}, deltas, "each delta is its own event")
	h := s.History()
	require.Len(t, h, 2)
	assert.Equal(t, engine.Message{Role: engine.RoleAssistant, Text: "Hello from the test server."}, h[1])
	assert.Equal(t, engine.Usage{Input: 12, Output: 5}, s.Snapshot().Tokens, "the server's usage, not an estimate")
	assert.Equal(t, "openai:text", s.Snapshot().Model)

	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "Bearer sk-test-123", reqs[0].Header.Get("Authorization"), "the key is read from the named variable")
	assert.Equal(t, "interlock", reqs[0].Header.Get("X-Title"))
	b := decode(t, reqs[0])
	assert.True(t, b.Stream)
	assert.Equal(t, 64, b.MaxTokens)
	assert.InDelta(t, 0.2, *b.Temperature, 1e-9)
	assert.Equal(t, true, b.StreamOptions["include_usage"], "usage is asked for")
	assert.JSONEq(t, `{"role":"system","content":"Be brief."}`, string(b.Messages[0]))
	assert.JSONEq(t, `{"role":"user","content":"hi"}`, string(b.Messages[1]))
	names := map[string]string{}
	for _, tool := range b.Tools {
		assert.Equal(t, "function", tool.Type)
		assert.Equal(t, "object", tool.Function.Parameters["type"], "tool %s has a JSON Schema", tool.Function.Name)
		names[tool.Function.Name] = tool.Function.Description
	}
	assert.Contains(t, names, "sleep")
	assert.Contains(t, names, "ask")
	assert.NotEmpty(t, names["ask"], "tools are described")
}

// The key is read at every request, never kept: changing the variable
// changes what the next request sends.
func TestAPIKeyIsReadAtEveryRequest(t *testing.T) {
	srv := server(t)
	t.Setenv("INTERLOCK_TEST_KEY", "sk-first")
	s, _ := setup(t, srv, "text", []openai.Option{openai.WithAPIKeyEnv("INTERLOCK_TEST_KEY")})
	_, err := s.Prompt(t.Context(), "one")
	require.NoError(t, err)
	t.Setenv("INTERLOCK_TEST_KEY", "sk-second")
	_, err = s.Prompt(t.Context(), "two")
	require.NoError(t, err)
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, "Bearer sk-first", reqs[0].Header.Get("Authorization"))
	assert.Equal(t, "Bearer sk-second", reqs[1].Header.Get("Authorization"))

	t.Setenv("OPENAI_API_KEY", "sk-from-the-environment")
	s2, _ := setup(t, srv, "text", nil)
	_, err = s2.Prompt(t.Context(), "three")
	require.NoError(t, err)
	assert.Empty(t, srv.Requests()[2].Header.Get("Authorization"), "no key configured: OPENAI_API_KEY is not picked up behind the user's back")
}

// The key is read where the engine reads the environment
// (engine.WithEnvironment: the C library's in the Node addon), not from
// the Go runtime's copy.
func TestAPIKeyIsReadFromTheEngineEnvironment(t *testing.T) {
	srv := server(t)
	t.Setenv("INTERLOCK_TEST_KEY", "sk-go-copy")
	given := engine.Environment{LookupEnv: func(key string) (string, bool) {
		if key == "INTERLOCK_TEST_KEY" {
			return "sk-from-the-host", true
		}
		return "", false
	}}
	s, _ := setup(t, srv, "text", []openai.Option{openai.WithAPIKeyEnv("INTERLOCK_TEST_KEY")}, engine.WithEnvironment(given))
	_, err := s.Prompt(t.Context(), "hi")
	require.NoError(t, err)
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "Bearer sk-from-the-host", reqs[0].Header.Get("Authorization"))
}

// A full agent turn: the model calls bash with arguments split across
// chunks, the bash gate asks to confirm rm -rf, the user approves, the
// command runs and the model answers.
func TestToolCallWithConfirmApproved(t *testing.T) {
	t.Parallel()
	srv := server(t)
	s, dir := setup(t, srv, "tool_calls", nil, engine.WithTool("bash", bash.New()))
	build := filepath.Join(dir, "build")
	require.NoError(t, os.MkdirAll(filepath.Join(build, "obj"), 0o755))
	sub := s.Subscribe()
	defer sub.Close()

	_, out, err := s.Start(t.Context(), "clean up")
	require.NoError(t, err)
	var asked engine.Pause
	evs := collect(t, sub, func(ev engine.Event) {
		asked = *ev.Pause
		require.NoError(t, s.Confirm("", true))
	})
	o := <-out
	require.NoError(t, o.Err)
	assert.Equal(t, engine.EventRunFinished, evs[len(evs)-1].Type, "events: %v", types(evs))

	assert.Equal(t, engine.PauseConfirm, asked.Kind)
	assert.Equal(t, "rm -rf ./build", asked.Details)
	assert.Equal(t, `{"command": "rm -rf ./build"}`, texts(evs, engine.EventToolCallDelta), "argument pieces stream as events")
	for _, ev := range evs {
		if ev.Type == engine.EventToolCallDelta {
			assert.Equal(t, "bash", ev.Tool)
			assert.Equal(t, "call_rm1", ev.CallID)
		}
	}
	assert.NoDirExists(t, build, "the approved command ran")

	h := s.History()
	require.Len(t, h, 4)
	assert.Equal(t, []engine.ToolCall{{ID: "call_rm1", Name: "bash", Args: json.RawMessage(`{"command": "rm -rf ./build"}`)}}, h[1].ToolCalls)
	assert.Equal(t, "call_rm1", h[2].ToolCallID)
	assert.False(t, h[2].IsError, "tool result: %s", h[2].Text)
	assert.Equal(t, "Removed ./build.", h[3].Text)
	assert.Equal(t, engine.Usage{Input: 200, Output: 23}, s.Snapshot().Tokens, "usage of both turns")

	// The second request carries the tool call and its result.
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	b := decode(t, reqs[1])
	require.Len(t, b.Messages, 3)
	assert.JSONEq(t, `{"role":"assistant","tool_calls":[{"id":"call_rm1","type":"function","function":{"name":"bash","arguments":"{\"command\": \"rm -rf ./build\"}"}}]}`, string(b.Messages[1]))
	var toolMsg struct {
		ToolCallID string `json:"tool_call_id"`
	}
	require.NoError(t, json.Unmarshal(b.Messages[2], &toolMsg))
	assert.Equal(t, "call_rm1", toolMsg.ToolCallID)
	var bashTool bool
	for _, tool := range b.Tools {
		if tool.Function.Name == "bash" {
			bashTool = true
			assert.Contains(t, tool.Function.Parameters["required"], "command")
		}
	}
	assert.True(t, bashTool, "bash is described to the model")
}

// Arguments with a key twice, or in two spellings, are read once: the
// confirm shows the command that would run (the last key, as
// encoding/json reads it), and a denial runs nothing.
func TestDuplicateArgumentKeysShowWhatRuns(t *testing.T) {
	t.Parallel()
	tests := []struct{ args, shown string }{
		{`{"command":"echo safe","command":"rm -rf ./build"}`, "rm -rf ./build"},
		{`{"command":"echo safe","COMMAND":"rm -rf ./build"}`, "rm -rf ./build"},
		{`{"command":"rm -rf ./build","Command":"echo safe"}`, ""}, // runs echo safe: nothing to ask
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			t.Parallel()
			call, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "finish_reason": "tool_calls", "delta": map[string]any{
				"tool_calls": []any{map[string]any{"index": 0, "id": "c1", "type": "function", "function": map[string]any{"name": "bash", "arguments": tt.args}}}}}}})
			var turns sync.Map
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				chunk := `{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`
				if _, again := turns.LoadOrStore("first", true); !again {
					chunk = string(call)
				}
				fmt.Fprintf(w, "data: %s\n\ndata: [DONE]\n\n", chunk)
			}))
			defer srv.Close()
			p, err := openai.New(openai.WithBaseURL(srv.URL+"/v1"), openai.WithModel("dup"))
			require.NoError(t, err)
			e := engine.New(engine.WithProvider(p), engine.WithTool("bash", bash.New()))
			defer e.Close()
			dir := t.TempDir()
			require.NoError(t, os.Mkdir(filepath.Join(dir, "build"), 0o755))
			s, err := e.NewSession(engine.SessionOptions{Dir: dir})
			require.NoError(t, err)
			sub := s.Subscribe()
			defer sub.Close()
			_, out, err := s.Start(t.Context(), "go")
			require.NoError(t, err)
			var shown string
			collect(t, sub, func(ev engine.Event) {
				shown = ev.Pause.Details
				require.NoError(t, s.Confirm(ev.Pause.ID, false))
			})
			require.NoError(t, (<-out).Err)
			assert.Equal(t, tt.shown, shown)
			assert.DirExists(t, filepath.Join(dir, "build"), "nothing denied ran")
		})
	}
}

func TestSeveralToolCallsInOneTurn(t *testing.T) {
	t.Parallel()
	srv := server(t)
	s, _ := setup(t, srv, "parallel_tools", nil)
	_, err := s.Prompt(t.Context(), "go")
	require.NoError(t, err)
	h := s.History()
	require.Len(t, h, 5)
	assert.Equal(t, "Running two tools.", h[1].Text)
	assert.Equal(t, []engine.ToolCall{
		{ID: "call_a", Name: "sleep", Args: json.RawMessage(`{"ms": 1}`)},
		{ID: "call_b", Name: "sleep", Args: json.RawMessage(`{"ms": 2}`)},
	}, h[1].ToolCalls, "interleaved argument pieces land in their own call")
	assert.Equal(t, "slept 1 ms", h[2].Text)
	assert.Equal(t, "slept 2 ms", h[3].Text)
	assert.Equal(t, "Both done.", h[4].Text)
}

func TestRateLimitIsRetried(t *testing.T) {
	t.Parallel()
	srv := server(t)
	s, _ := setup(t, srv, "rate_limited", nil)
	_, err := s.Prompt(t.Context(), "go")
	require.NoError(t, err)
	assert.Len(t, srv.Requests(), 3, "two 429s, then the answer")
	assert.Equal(t, "Retried fine.", s.History()[1].Text)
}

// Every way a turn can fail ends the run with run_failed, a code, the
// server's message and the code's sentinel; partial text is kept.
func TestErrorsEndTheRunWithTheirCode(t *testing.T) {
	t.Parallel()
	closed, err := net.Listen("tcp", "127.0.0.1:0") // an address where nothing answers
	require.NoError(t, err)
	refused := "http://" + closed.Addr().String() + "/v1"
	closed.Close()

	tests := []struct {
		name, model string
		opts        []openai.Option
		code        string
		sentinel    error
		message     string // in the error
		requests    int    // requests the server saw
		partial     string // assistant text kept
	}{
		{"429 after retries", "rate_limited_always", nil, openai.CodeRateLimited, openai.ErrRateLimited, "Rate limit reached for requests", 3, ""},
		{"500 after retries", "server_error", nil, openai.CodeServerError, openai.ErrServer, "The server had an error while processing your request", 3, ""},
		{"401 is not retried", "unauthorized", nil, openai.CodeUnauthorized, openai.ErrUnauthorized, "Incorrect API key provided", 1, ""},
		{"unknown model", "no-such-model", nil, openai.CodeBadRequest, openai.ErrBadRequest, `no recording for model "no-such-model"`, 1, ""},
		{"malformed chunk", "malformed", nil, openai.CodeMalformedStream, openai.ErrMalformedStream, "", 1, "Partial"},
		{"connection reset mid-stream", "reset", nil, openai.CodeConnectionLost, openai.ErrConnectionLost, "", 1, "Half a"},
		{"error event mid-stream", "error_event", nil, openai.CodeStreamError, openai.ErrStreamError, "The model is overloaded", 1, "Start"},
		{"stream ends early", "truncated", nil, openai.CodeTruncated, openai.ErrTruncated, "no finish_reason", 1, "Cut short"},
		{"missing key", "text", []openai.Option{openai.WithAPIKeyEnv("INTERLOCK_TEST_UNSET_KEY")}, openai.CodeMissingAPIKey, openai.ErrMissingAPIKey, "INTERLOCK_TEST_UNSET_KEY is empty or unset", 0, ""},
		{"nothing listening", "text", []openai.Option{openai.WithBaseURL(refused)}, openai.CodeConnection, openai.ErrConnection, "connection refused", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := server(t)
			s, _ := setup(t, srv, tt.model, tt.opts)
			sub := s.Subscribe()
			defer sub.Close()
			res, err := s.Prompt(t.Context(), "go")
			require.Error(t, err)
			assert.ErrorIs(t, err, tt.sentinel)
			assert.Equal(t, tt.code, engine.ErrorCode(err))
			assert.Contains(t, err.Error(), tt.message)
			assert.Equal(t, tt.code, res.ErrorCode)
			assert.Equal(t, engine.StatusIdle, s.Status(), "a failed run is not an interruption")

			evs := collect(t, sub, nil)
			last := evs[len(evs)-1]
			assert.Equal(t, engine.EventRunFailed, last.Type)
			assert.Equal(t, tt.code, last.Code)
			assert.Contains(t, last.Text, tt.message)
			assert.Len(t, srv.Requests(), tt.requests)
			h := s.History()
			if tt.partial != "" {
				require.Len(t, h, 2)
				assert.Equal(t, tt.partial, h[1].Text, "the text streamed before the failure is kept")
			} else {
				assert.Len(t, h, 1)
			}
		})
	}
}

// An interrupt while the model stalls mid-stream ends the run at once,
// closes the connection and keeps the partial text, marked interrupted.
func TestInterruptClosesAStalledStream(t *testing.T) {
	t.Parallel()
	srv := server(t)
	s, _ := setup(t, srv, "stall", nil)
	sub := s.Subscribe()
	defer sub.Close()
	_, out, err := s.Start(t.Context(), "think")
	require.NoError(t, err)
	var got string
	for got != "Thinking about it" {
		ev, err := sub.Next(t.Context())
		require.NoError(t, err)
		got += map[bool]string{true: ev.Text}[ev.Type == engine.EventText]
	}
	require.NoError(t, s.Interrupt(engine.ReasonUserStop))
	o := <-out
	assert.ErrorIs(t, o.Err, engine.ErrInterrupted)
	assert.Equal(t, engine.StatusInterrupted, o.Result.Status)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	require.NoError(t, srv.WaitClosed(ctx), "the server saw the client leave")

	h := s.History()
	require.Len(t, h, 3)
	assert.Equal(t, engine.Message{Role: engine.RoleAssistant, Text: "Thinking about it", Interrupted: true}, h[1])
	assert.Equal(t, "Stopped by you", h[2].Text)
	assert.Positive(t, s.Snapshot().Tokens.Output, "what was streamed is counted")
}

// A server that takes the connection and never answers (not even a
// status line) is silent like a stalled stream: the idle timeout ends the
// turn and the connection is closed. Before, the watch began at the first
// read and the run waited for the answer for ever.
func TestIdleTimeoutCoversTheWaitForAnAnswer(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var conns sync.WaitGroup // each ends when the client leaves
	conns.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Go(func() {
				defer c.Close()
				_, _ = io.Copy(io.Discard, c) // the request, then nothing until the client leaves
			})
		}
	})
	p, err := openai.New(openai.WithBaseURL("http://"+ln.Addr().String()+"/v1"), openai.WithModel("mute"))
	require.NoError(t, err)
	e := engine.New(engine.WithProvider(p), engine.WithStreamIdleTimeout(100*time.Millisecond))
	defer e.Close()
	s, err := e.NewSession(engine.SessionOptions{Dir: t.TempDir()})
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	res, err := s.Prompt(ctx, "go")
	require.ErrorIs(t, err, engine.ErrIdleTimeout)
	require.NotNil(t, res.Interruption)
	assert.Equal(t, engine.ReasonTimeout, res.Interruption.Reason)
	ln.Close()
	left := make(chan struct{})
	go func() {
		conns.Wait()
		close(left)
	}()
	select {
	case <-left:
	case <-ctx.Done():
		t.Fatal("a connection is still open")
	}
}

// A wait before a retry (here the server's Retry-After: 30 s) ends at once
// on interrupt.
func TestInterruptCutsTheRetryWait(t *testing.T) {
	t.Parallel()
	srv := server(t)
	s, _ := setup(t, srv, "rate_limited_slow", nil)
	_, out, err := s.Start(t.Context(), "go")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	require.NoError(t, srv.WaitRequests(ctx, 1))
	require.NoError(t, s.Interrupt(engine.ReasonUserStop))
	select {
	case o := <-out:
		assert.ErrorIs(t, o.Err, engine.ErrInterrupted)
		in := o.Result.Interruption
		require.NotNil(t, in)
		assert.Equal(t, engine.ReasonUserStop, in.Reason)
	case <-ctx.Done():
		t.Fatal("the run still waits for its retry after an interrupt")
	}
	assert.Len(t, srv.Requests(), 1, "no retry after the interrupt")
}

// A server that sends without end cannot grow the host's memory without
// bound: a stream is cut after 64 MB (here 1 MB), an error's body after
// its start.
// Before, one SSE event that never ended (data lines without the blank
// line) took the heap past 1 GB in 3 s, and an error body was read whole.
func TestEndlessResponsesAreCut(t *testing.T) {
	t.Parallel()
	const mb = 1 << 20
	tests := []struct {
		name   string
		status int
		piece  string // written again and again
		code   string
		want   string
	}{
		{"an event that never ends", 200, "data: " + strings.Repeat("x", mb) + "\n", openai.CodeMalformedStream, "the response is too large: more than 1 MB"},
		{"an error body without end", 500, strings.Repeat("x", mb), openai.CodeServerError, "xxx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var most int // bytes the server wrote in one response
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", map[bool]string{true: "text/event-stream", false: "application/json"}[tt.status == 200])
				w.WriteHeader(tt.status)
				n := 0
				for n < 512*mb {
					k, err := fmt.Fprint(w, tt.piece)
					n += k
					if err != nil {
						break
					}
				}
				mu.Lock()
				most = max(most, n)
				mu.Unlock()
			}))
			defer srv.Close()
			p, err := openai.New(openai.WithBaseURL(srv.URL+"/v1"), openai.WithModel("endless"), openai.WithRetries(1, 0), openai.WithStreamLimit(mb))
			require.NoError(t, err)
			e := engine.New(engine.WithProvider(p))
			defer e.Close()
			s, err := e.NewSession(engine.SessionOptions{Dir: t.TempDir()})
			require.NoError(t, err)

			_, err = s.Prompt(t.Context(), "go")
			require.Error(t, err)
			assert.Equal(t, tt.code, engine.ErrorCode(err), "%v", err)
			assert.Contains(t, err.Error(), tt.want)
			srv.Close() // the handlers have returned
			assert.Less(t, most, 64*mb, "the client left after the cap")
		})
	}
}

func TestConfigErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts []openai.Option
		want string
	}{
		{"no model", nil, "no model"},
		{"bad URL", []openai.Option{openai.WithModel("m"), openai.WithBaseURL("localhost:11434")}, `base URL "localhost:11434"`},
		{"negative max tokens", []openai.Option{openai.WithModel("m"), openai.WithMaxTokens(-1)}, "max tokens -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := openai.New(tt.opts...)
			require.ErrorIs(t, err, openai.ErrConfig)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	// Config (the JSON hosts pass) maps onto the same options.
	var c openai.Config
	require.NoError(t, json.Unmarshal([]byte(`{"type":"openai","baseUrl":"http://127.0.0.1:1/v1","model":"m","apiKeyEnv":"K","headers":{"A":"b"},"maxTokens":5,"temperature":0}`), &c))
	p, err := openai.New(c.Options()...)
	require.NoError(t, err)
	assert.Equal(t, "openai:m", p.Name())
	assert.True(t, strings.HasPrefix(openai.DefaultBaseURL, "https://"))
	assert.False(t, errors.Is(err, openai.ErrConfig))
}
