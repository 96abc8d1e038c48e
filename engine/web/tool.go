package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/interlock-dev/interlock/engine"
)

// Name is the tool name shown to the user in pauses ("WebSearch paused: ...").
const Name = "WebSearch"

// Tool is the web tool: search, open_page, find_in_page and
// capture_screenshot in a real Chromium driven by chromedp. Its browsers
// belong to the session that runs it (engine.Env.Local): they start on
// first use and stop when the session or the engine closes. A Tool holds
// only its settings, so one Tool serves any number of sessions.
type Tool struct {
	cfg config
}

// New returns a web tool. Register it with engine.WithTool("web", web.New()).
func New(opts ...Option) *Tool {
	t := &Tool{cfg: defaultConfig()}
	for _, o := range opts {
		o(&t.cfg)
	}
	return t
}

// browsersKey keys a Tool's browsers in a session's Env.Local: two Tools with
// different settings never share a browser.
type browsersKey struct{ tool *Tool }

// Run runs one call. Bad arguments, unreachable pages, timeouts and the like
// come back as a Result with IsError set, so the model can correct itself;
// an interrupt returns an error wrapping engine.ErrInterrupted, promptly:
// the page's chromedp context is cancelled at once.
func (t *Tool) Run(ctx context.Context, call engine.ToolCall, env *engine.Env) (engine.Result, error) {
	out, err := t.run(ctx, call, env)
	if err == nil {
		return engine.Result{Output: out}, nil
	}
	if ctx.Err() != nil {
		if !errors.Is(err, engine.ErrInterrupted) {
			err = fmt.Errorf("%w: %w", engine.ErrInterrupted, err)
		}
		return engine.Result{}, err
	}
	return engine.Result{Output: err.Error(), IsError: true}, nil
}

func (t *Tool) run(ctx context.Context, call engine.ToolCall, env *engine.Env) (string, error) {
	session := func() *browsers {
		return env.Local(browsersKey{t}, func() any { return newBrowsers(&t.cfg) }).(*browsers)
	}
	return t.call(ctx, call.Args, envHost{env}, session)
}

// call parses, validates and runs one call. session is asked for the
// session's browsers only once the arguments are valid.
func (t *Tool) call(ctx context.Context, raw json.RawMessage, h host, session func() *browsers) (string, error) {
	a, err := parseArgs(raw)
	if err != nil {
		return "", err
	}
	p, err := t.prepare(a, h)
	if err != nil {
		return "", err
	}
	return t.do(ctx, p, session(), h)
}

// HasSideEffects reports false: the actions only read pages (a screenshot
// rewrites its own file), so an interrupted call can be repeated safely.
func (t *Tool) HasSideEffects(engine.ToolCall) bool { return false }

// envHost is the engine's side of a call.
type envHost struct{ env *engine.Env }

func (h envHost) pause(ctx context.Context, message, details string) error {
	res, err := h.env.Pause(ctx, engine.PauseRequest{Kind: engine.PauseContinue, Tool: Name, Message: message, Details: details})
	if err != nil {
		return err
	}
	if !res.Approved() {
		return fmt.Errorf("pause ended with %s, not resumed", res.Answer)
	}
	return nil
}

func (h envHost) progress(chunk string)               { h.env.Progress(chunk) }
func (h envHost) dir() string                         { return h.env.Dir() }
func (h envHost) lookupEnv(key string) (string, bool) { return h.env.LookupEnv(key) }
func (h envHost) environ() []string {
	return append(h.env.ProcessEnviron(), h.env.Environ()...)
}
