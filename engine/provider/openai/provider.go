package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/shared"

	"github.com/interlock-dev/interlock/engine"
)

// maxRetryAfter caps how long a server's Retry-After can make a retry wait.
const maxRetryAfter = time.Minute

// What one response may send: a server that streams without end must not
// grow the host's memory without bound. A model turn of 128k tokens is
// about 40 MB of events; an error's body needs a few hundred bytes.
const (
	maxStreamBytes = 64 << 20
	maxErrorBytes  = 64 << 10
)

// Provider streams model turns from an OpenAI-compatible server. It holds
// only its settings: one Provider serves any number of sessions at once.
type Provider struct {
	cfg     config
	service oai.ChatCompletionService
}

// New returns a provider, or an error wrapping ErrConfig that says which
// setting is wrong.
func New(opts ...Option) (*Provider, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	hc := cfg.httpClient
	if hc == nil {
		hc = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	// NewChatCompletionService, unlike NewClient, reads nothing from the
	// environment (OPENAI_API_KEY, OPENAI_ORG_ID...): what is sent is what
	// was configured. Retries are ours, so an interrupt can cut them short.
	svcOpts := []option.RequestOption{
		option.WithBaseURL(strings.TrimSuffix(cfg.baseURL, "/") + "/"),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0),
		option.WithMiddleware(capBody(cfg.streamLimit)),
	}
	for k, v := range cfg.headers {
		svcOpts = append(svcOpts, option.WithHeader(k, v))
	}
	return &Provider{cfg: cfg, service: oai.NewChatCompletionService(svcOpts...)}, nil
}

// Name identifies the provider and model in snapshots: "openai:<model>".
func (p *Provider) Name() string { return "openai:" + p.cfg.model }

// Stream sends the history and tools and returns the streaming turn. 429,
// 5xx and connection failures are retried; ctx ending stops at once.
func (p *Provider) Stream(ctx context.Context, req engine.ModelRequest) (engine.Stream, error) {
	key := ""
	if p.cfg.apiKeyEnv != "" {
		lookup := req.LookupEnv
		if lookup == nil {
			lookup = os.LookupEnv
		}
		key, _ = lookup(p.cfg.apiKeyEnv)
		if key == "" {
			return nil, p.fail(&Error{Code: CodeMissingAPIKey, Message: fmt.Sprintf("environment variable %s is empty or unset", p.cfg.apiKeyEnv)})
		}
	}
	params := p.params(req)
	for attempt := 1; ; attempt++ {
		sctx, cancel := context.WithCancel(ctx)
		st := p.service.NewStreaming(sctx, params, option.WithAPIKey(key))
		err := st.Err()
		if err == nil {
			return newStream(p, st, cancel), nil
		}
		cancel()
		st.Close()
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		e, retryAfter := classifyResponse(err)
		e.Attempts = attempt
		if !e.retryable() || attempt > p.cfg.maxRetries {
			return nil, p.fail(e)
		}
		if err := sleep(ctx, p.wait(attempt, retryAfter)); err != nil {
			return nil, err
		}
	}
}

// capBody caps the body of every response: an error's is cut at
// maxErrorBytes (its start says what failed), a stream's reads fail past
// limit bytes.
func capBody(limit int64) option.Middleware {
	return func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		res, err := next(req)
		if err != nil || res.Body == nil {
			return res, err
		}
		if res.StatusCode >= 400 {
			res.Body = struct {
				io.Reader
				io.Closer
			}{io.LimitReader(res.Body, maxErrorBytes), res.Body}
		} else {
			res.Body = &cappedBody{ReadCloser: res.Body, limit: limit, left: limit}
		}
		return res, err
	}
}

// errTooLarge ends a stream that sent more than its limit.
var errTooLarge = errors.New("the response is too large")

// cappedBody is a response body whose reads fail with errTooLarge once it
// has given limit bytes.
type cappedBody struct {
	io.ReadCloser
	limit, left int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, fmt.Errorf("%w: more than %d MB, the most one model turn may send", errTooLarge, b.limit>>20)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

func (p *Provider) fail(e *Error) *Error {
	e.Model, e.BaseURL = p.cfg.model, p.cfg.baseURL
	return e
}

// wait is the pause before retry number attempt: the server's Retry-After
// if it sent one, else the first wait doubled per retry, with jitter.
func (p *Provider) wait(attempt int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return min(retryAfter, maxRetryAfter)
	}
	d := p.cfg.backoff << (attempt - 1)
	if d <= 0 {
		return 0
	}
	return d/2 + rand.N(d/2+1)
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// classifyResponse turns a failed request into an Error, with the wait the
// server asked for before a retry.
func classifyResponse(err error) (*Error, time.Duration) {
	var apiErr *oai.Error
	if !errors.As(err, &apiErr) {
		return &Error{Code: CodeConnection, Message: err.Error(), cause: err}, 0
	}
	e := &Error{Status: apiErr.StatusCode, Message: serverMessage(apiErr), cause: err}
	switch s := apiErr.StatusCode; {
	case s == http.StatusTooManyRequests:
		e.Code = CodeRateLimited
	case s >= 500:
		e.Code = CodeServerError
	case s == http.StatusUnauthorized || s == http.StatusForbidden:
		e.Code = CodeUnauthorized
	default:
		e.Code = CodeBadRequest
	}
	return e, retryAfter(apiErr.Response)
}

// serverMessage is the message of an error response: the "error.message"
// of a JSON body, else the start of the body.
func serverMessage(e *oai.Error) string {
	if e.Message != "" {
		return e.Message
	}
	if e.Response == nil || e.Response.Body == nil {
		return ""
	}
	body, _ := io.ReadAll(io.LimitReader(e.Response.Body, 512))
	return strings.TrimSpace(string(body))
}

// retryAfter reads retry-after-ms or Retry-After (seconds).
func retryAfter(res *http.Response) time.Duration {
	if res == nil {
		return 0
	}
	if ms, err := strconv.ParseFloat(res.Header.Get("Retry-After-Ms"), 64); err == nil && ms > 0 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	if s, err := strconv.ParseFloat(res.Header.Get("Retry-After"), 64); err == nil && s > 0 {
		return time.Duration(s * float64(time.Second))
	}
	return 0
}

// params builds the request: the history as Chat Completions messages and
// the tools with their schemas.
func (p *Provider) params(req engine.ModelRequest) oai.ChatCompletionNewParams {
	params := oai.ChatCompletionNewParams{
		Model:         p.cfg.model,
		Messages:      messages(p.cfg.system, req.Messages),
		StreamOptions: oai.ChatCompletionStreamOptionsParam{IncludeUsage: oai.Bool(true)},
	}
	if p.cfg.maxTokens > 0 {
		params.MaxTokens = oai.Int(int64(p.cfg.maxTokens))
	}
	if p.cfg.temperature != nil {
		params.Temperature = oai.Float(*p.cfg.temperature)
	}
	for _, t := range req.Tools {
		fn := shared.FunctionDefinitionParam{Name: t.Name, Parameters: schema(t.Parameters)}
		if t.Description != "" {
			fn.Description = oai.String(t.Description)
		}
		params.Tools = append(params.Tools, oai.ChatCompletionFunctionTool(fn))
	}
	return params
}

// schema decodes a tool's JSON Schema; a tool without one takes any object.
func schema(raw json.RawMessage) shared.FunctionParameters {
	var s shared.FunctionParameters
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil || s == nil {
		return shared.FunctionParameters{"type": "object"}
	}
	return s
}

// messages converts the history. Markers ("Stopped by you", "Resumed") are for the
// people watching, not the model; an interrupted tool call already has its
// "interrupted before completion" result.
func messages(system string, history []engine.Message) []oai.ChatCompletionMessageParamUnion {
	var out []oai.ChatCompletionMessageParamUnion
	if system != "" {
		out = append(out, oai.SystemMessage(system))
	}
	for _, m := range history {
		switch m.Role {
		case engine.RoleUser:
			out = append(out, oai.UserMessage(m.Text))
		case engine.RoleTool:
			out = append(out, oai.ToolMessage(m.Text, m.ToolCallID))
		case engine.RoleAssistant:
			var a oai.ChatCompletionAssistantMessageParam
			if m.Text != "" {
				a.Content.OfString = param.NewOpt(m.Text)
			}
			for _, c := range m.ToolCalls {
				a.ToolCalls = append(a.ToolCalls, oai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &oai.ChatCompletionMessageFunctionToolCallParam{
						ID:       c.ID,
						Function: oai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: argsText(c.Args)},
					},
				})
			}
			out = append(out, oai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		}
	}
	return out
}

func argsText(args json.RawMessage) string {
	if len(args) == 0 {
		return "{}"
	}
	return string(args)
}

// item is what the reader goroutine hands to Recv: a chunk, or the end.
type item struct {
	chunk engine.Chunk
	err   error // io.EOF at the end of the turn
}

// stream is one model turn in flight. A goroutine reads the server's
// events and hands chunks to Recv, which also watches its own ctx: an
// interrupt returns at once, and Close cancels the request, which closes
// the connection.
type stream struct {
	p      *Provider
	sse    *ssestream.Stream[oai.ChatCompletionChunk]
	cancel context.CancelFunc
	items  chan item
	closed chan struct{} // closed by Close: the reader stops handing items
	exited chan struct{} // closed when the reader has returned
	end    error         // the final error once Recv has seen it
	once   sync.Once
}

func newStream(p *Provider, sse *ssestream.Stream[oai.ChatCompletionChunk], cancel context.CancelFunc) *stream {
	s := &stream{p: p, sse: sse, cancel: cancel, items: make(chan item), closed: make(chan struct{}), exited: make(chan struct{})}
	go s.read()
	return s
}

// Recv returns the next chunk, io.EOF at the end of the turn, or the error
// that ended the stream.
func (s *stream) Recv(ctx context.Context) (engine.Chunk, error) {
	if s.end != nil {
		return engine.Chunk{}, s.end
	}
	select {
	case it := <-s.items:
		if it.err != nil {
			s.end = it.err
		}
		return it.chunk, it.err
	case <-ctx.Done():
		return engine.Chunk{}, context.Cause(ctx)
	}
}

// Close cancels the request (closing the connection) and waits for the
// reader to return. It is idempotent.
func (s *stream) Close() error {
	s.once.Do(func() {
		close(s.closed)
		s.cancel()
	})
	<-s.exited
	return nil
}

// send hands an item to Recv unless the stream was closed.
func (s *stream) send(it item) bool {
	select {
	case s.items <- it:
		return true
	case <-s.closed:
		return false
	}
}

// toolCall accumulates one streamed tool call.
type toolCall struct {
	id, name string
	args     strings.Builder
}

func (s *stream) read() {
	defer close(s.exited)
	defer s.sse.Close()
	calls := map[int64]*toolCall{}
	finished := false
	for s.sse.Next() {
		ch := s.sse.Current()
		if ch.JSON.Usage.Valid() && (ch.Usage.PromptTokens > 0 || ch.Usage.CompletionTokens > 0) {
			u := engine.Usage{Input: int(ch.Usage.PromptTokens), Output: int(ch.Usage.CompletionTokens)}
			if !s.send(item{chunk: engine.Chunk{Usage: &u}}) {
				return
			}
		}
		for _, choice := range ch.Choices {
			if choice.Index != 0 {
				continue
			}
			if choice.FinishReason != "" {
				finished = true
			}
			d := choice.Delta
			if text := d.Content + d.Refusal; text != "" {
				if !s.send(item{chunk: engine.Chunk{Text: text}}) {
					return
				}
			}
			for _, tc := range d.ToolCalls {
				c := calls[tc.Index]
				if c == nil {
					c = &toolCall{}
					calls[tc.Index] = c
				}
				if tc.ID != "" {
					c.id = tc.ID
				}
				if tc.Function.Name != "" {
					c.name += tc.Function.Name
				}
				c.args.WriteString(tc.Function.Arguments)
				if tc.Function.Arguments != "" {
					delta := &engine.ToolCallDelta{ID: c.id, Name: c.name, Args: tc.Function.Arguments}
					if !s.send(item{chunk: engine.Chunk{ToolCallDelta: delta}}) {
						return
					}
				}
			}
		}
	}
	if err := s.sse.Err(); err != nil || !finished {
		s.send(item{err: s.p.fail(classifyStream(err))})
		return
	}
	idx := make([]int64, 0, len(calls))
	for i := range calls {
		idx = append(idx, i)
	}
	sort.Slice(idx, func(a, b int) bool { return idx[a] < idx[b] })
	for _, i := range idx {
		c := calls[i]
		call := &engine.ToolCall{ID: c.id, Name: c.name, Args: toolArgs(c.args.String())}
		if !s.send(item{chunk: engine.Chunk{ToolCall: call}}) {
			return
		}
	}
	s.send(item{err: io.EOF})
}

// toolArgs keeps valid JSON arguments as they are; anything else is passed
// on as a JSON string, so the tool reports the bad arguments to the model
// and the history stays valid JSON.
func toolArgs(text string) json.RawMessage {
	if strings.TrimSpace(text) == "" {
		return json.RawMessage("{}")
	}
	if json.Valid([]byte(text)) {
		return json.RawMessage(text)
	}
	quoted, _ := json.Marshal(text)
	return quoted
}

// classifyStream names what ended a stream early: nil means it ended
// cleanly but before the model finished its turn.
func classifyStream(err error) *Error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var event *ssestream.StreamError
	switch {
	case err == nil:
		return &Error{Code: CodeTruncated, Message: "no finish_reason before the end of the stream"}
	case errors.As(err, &event):
		return &Error{Code: CodeStreamError, Message: strings.TrimPrefix(event.Message, "received error while streaming: "), cause: err}
	case errors.As(err, &syntax), errors.As(err, &typ), errors.Is(err, errTooLarge):
		return &Error{Code: CodeMalformedStream, Message: err.Error(), cause: err}
	}
	return &Error{Code: CodeConnectionLost, Message: err.Error(), cause: err}
}
