package webui_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/webui"
)

// call is a scripted tool call.
func call(name string, args any) engine.ScriptCall {
	b, _ := json.Marshal(args)
	return engine.ScriptCall{Name: name, Args: b}
}

func ask(kind engine.PauseKind, msg, details string) engine.ScriptCall {
	return call("ask", map[string]string{"kind": string(kind), "message": msg, "details": details})
}

func sleepFor(ms int) engine.ScriptCall { return call("sleep", map[string]int{"ms": ms}) }

func newEngine(t *testing.T) *engine.Engine {
	t.Helper()
	e := engine.New()
	t.Cleanup(func() { e.Close() })
	return e
}

func newSession(t *testing.T, e *engine.Engine, id string, turns ...engine.ScriptTurn) *engine.Session {
	t.Helper()
	s, err := e.NewSession(engine.SessionOptions{ID: id, Provider: engine.NewScriptedProvider(turns)})
	require.NoError(t, err)
	return s
}

func serve(t *testing.T, e *engine.Engine, opts ...webui.Option) *webui.Server {
	t.Helper()
	srv, err := webui.Serve(t.Context(), e, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	return srv
}

// client is an HTTP client that sends the printed URL's token as the page
// does (Authorization: Bearer).
type client struct {
	t     *testing.T
	http  *http.Client
	base  string // http://127.0.0.1:PORT
	token string
}

func newClient(t *testing.T, srv *webui.Server) *client {
	t.Helper()
	c := &client{t: t, http: &http.Client{}, base: strings.Split(srv.URL(), "/?")[0], token: tokenOf(t, srv)}
	t.Cleanup(c.http.CloseIdleConnections)
	return c
}

type reply struct {
	Status int
	Body   map[string]any
}

// do sends a request as the page does (same Origin) unless headers override.
func (c *client) do(method, path string, body any, headers map[string]string) reply {
	c.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(c.t, err)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(c.t.Context(), method, c.base+path, rd)
	require.NoError(c.t, err)
	if method == http.MethodPost {
		req.Header.Set("Origin", c.base)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
			continue
		}
		if v == "" {
			req.Header.Del(k)
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := c.http.Do(req)
	require.NoError(c.t, err)
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	out := reply{Status: res.StatusCode}
	if json.Unmarshal(raw, &out.Body) != nil {
		out.Body = map[string]any{"text": string(raw)}
	}
	return out
}

func (c *client) state() webui.State {
	c.t.Helper()
	req, err := http.NewRequestWithContext(c.t.Context(), http.MethodGet, c.base+"/api/state", nil)
	require.NoError(c.t, err)
	req.Header.Set("Authorization", "Bearer "+c.token)
	res, err := c.http.Do(req)
	require.NoError(c.t, err)
	defer res.Body.Close()
	require.Equal(c.t, http.StatusOK, res.StatusCode)
	var st webui.State
	require.NoError(c.t, json.NewDecoder(res.Body).Decode(&st))
	return st
}

func tokenOf(t *testing.T, srv *webui.Server) string {
	u, err := url.Parse(srv.URL())
	require.NoError(t, err)
	return u.Query().Get("token")
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
