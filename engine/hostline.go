package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"
)

// HostLine drives host work — calls of tools the host registered, runs of
// the host's own loop — for a host in another language behind a binding
// (the C library): what the engine tells the host goes out as HostMessage
// JSON through Send, and the host's requests that wait (a pause, a step)
// return at once, their answers coming as messages too. The engine owns
// the messages, their format and the goroutines that wait; the binding
// gives each piece of work an id (Open) and carries the bytes.
//
// Set the fields before the first use; the zero value has no gate, drops
// messages while no Send is set and leaves error codes out.
type HostLine struct {
	// Feed takes the messages while no Send is set (the event stream,
	// after the events queued so far); nil drops them.
	Feed *Feed
	// Gate confirms a command for host work (a pause request with a
	// command): the engine's bash tool.
	Gate CommandGate
	// Open gives new work the id its messages carry (the binding's
	// handle for it). Nil numbers work from 1.
	Open func(*HostWork) uint64
	// Code names an error's kind in a message's "code" (the binding's
	// status names).
	Code func(error) string

	// mu is held across every Send call, so SetSend (which takes it)
	// waits until no call is in progress.
	mu      sync.Mutex
	send    func(msg []byte)
	closing bool // no new requests
	closed  bool // no more messages
	lastID  uint64
	buf     bytes.Buffer  // the message being sent
	enc     *json.Encoder // writes to buf
	wg      sync.WaitGroup
}

// CommandGate confirms a command before host work runs it, as the bash
// tool confirms its own commands (bash.Tool implements it).
type CommandGate interface {
	Confirm(ctx context.Context, env *Env, command string, req PauseRequest) (PauseResult, error)
}

// Host message types (HostMessage.Type).
const (
	HostToolCall  = "tool_call"  // run this tool: Tool, CallID, Args, Step
	HostAbort     = "host_abort" // the work was interrupted (Reason): abort it
	HostPauseDone = "pause_done" // the pause Request asked for was answered: Result, or Error
	HostStepDone  = "step_done"  // the step boundary Request asked for let the run go on (NewStep), or not (Error)
	HostApprove   = "approve"    // decide Approval (the host's approver): end the work with "allow", "deny" or "ask" as output
)

// HostMessage is what the engine tells the host about its work.
type HostMessage struct {
	Type    string          `json:"type"`
	Session string          `json:"session"`
	Host    uint64          `json:"host"`
	Tool    string          `json:"tool,omitempty"`
	CallID  string          `json:"callId,omitempty"`
	Args    json.RawMessage `json:"args,omitempty"`
	Step    int             `json:"step,omitempty"`
	Reason  Reason          `json:"reason,omitempty"`
	Request uint64          `json:"request,omitempty"`
	Result  *PauseResult    `json:"result,omitempty"`
	NewStep int             `json:"newStep,omitempty"`
	Error   string          `json:"error,omitempty"`
	Code    string          `json:"code,omitempty"`
	// Approval is what the host's approver is asked (HostApprove).
	Approval *ApprovalRequest `json:"approval,omitempty"`
}

// SetSend makes send (nil: none) the receiver of every later message,
// once no call of the previous one is in progress. send gets each
// message's JSON followed by a NUL byte (not counted in its length) and
// must not block or keep the slice. After Close it is never called.
func (l *HostLine) SetSend(send func(msg []byte)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		l.send = send
	}
}

// Close waits for the requests in progress (the engine must be closed:
// they end then) and stops every later message.
func (l *HostLine) Close() {
	l.mu.Lock()
	l.closing = true
	l.mu.Unlock()
	l.wg.Wait()
	l.mu.Lock()
	l.send, l.closed = nil, true
	l.mu.Unlock()
}

// keptHostMessageBytes is the largest message buffer kept for reuse.
const keptHostMessageBytes = 64 << 10

// deliver sends m, or queues it on the feed while no Send is set.
func (l *HostLine) deliver(m *HostMessage) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.enc == nil {
		l.enc = json.NewEncoder(&l.buf)
	}
	l.buf.Reset()
	if err := l.enc.Encode(m); err != nil {
		// Only args can fail, and they were checked as JSON by the loop.
		panic(fmt.Sprintf("engine: encoding a %s host message: %v", m.Type, err))
	}
	b := l.buf.Bytes()
	switch {
	case l.send != nil:
		b[len(b)-1] = 0 // Encode's newline
		l.send(b[:len(b)-1])
	case l.Feed != nil && !l.closed:
		l.Feed.Add(json.RawMessage(bytes.Clone(b[:len(b)-1])))
	}
	if l.buf.Cap() > keptHostMessageBytes { // a call with large arguments: don't keep its memory
		l.buf, l.enc = bytes.Buffer{}, nil
	}
}

// open numbers new work.
func (l *HostLine) open(w *HostWork) {
	if l.Open != nil {
		w.id = l.Open(w)
		return
	}
	l.mu.Lock()
	l.lastID++
	w.id = l.lastID
	l.mu.Unlock()
}

// spawn runs wait (a request that blocks) on a goroutine Close waits for.
func (l *HostLine) spawn(wait func()) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closing {
		return fmt.Errorf("engine: %w: create a new engine", ErrClosed)
	}
	l.wg.Go(wait)
	return nil
}

// HostToolSpec is how the host describes a tool it registers (the JSON of
// registerTool's tool, without its functions).
type HostToolSpec struct {
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	// GraceMS is how long an interrupted call may take to end (default
	// DefaultHostGrace).
	GraceMS *int64 `json:"graceMs"`
}

// Tool makes a tool whose calls go to the host as tool_call messages,
// each an open HostWork until the host ends it.
func (l *HostLine) Tool(name string, spec HostToolSpec) (*HostTool, error) {
	if name == "" {
		return nil, fmt.Errorf("%w: tool name is empty: pass the name the model calls the tool by", ErrInvalidArgument)
	}
	if len(spec.Parameters) > 0 && string(spec.Parameters) != "null" {
		var schema map[string]any
		if json.Unmarshal(spec.Parameters, &schema) != nil {
			return nil, fmt.Errorf("%w: tool %q: parameters must be a JSON Schema object, got %s", ErrInvalidArgument, name, spec.Parameters)
		}
	}
	grace, err := Millis("graceMs", spec.GraceMS)
	if err != nil {
		return nil, err
	}
	return &HostTool{
		Spec:  ToolSpec{Description: spec.Description, Parameters: spec.Parameters},
		Grace: grace,
		Start: func(c *HostCall) (abort func()) {
			w := &HostWork{line: l, session: c.SessionID(), call: c}
			l.open(w)
			l.deliver(&HostMessage{Type: HostToolCall, Session: w.session, Host: w.id, Tool: c.call.Name,
				CallID: c.call.ID, Args: c.call.Args, Step: c.Step()})
			return w.abort
		},
	}, nil
}

// HostRunSpec is how the host begins a run of its own loop.
type HostRunSpec struct {
	// GraceMS is how long an interrupted run may take to end (default
	// DefaultHostGrace).
	GraceMS *int64 `json:"graceMs"`
}

// Begin begins a host run of s (see Session.Begin): once it is
// interrupted, the host gets a host_abort message.
func (l *HostLine) Begin(s *Session, spec HostRunSpec) (*HostWork, error) {
	var opts []HostRunOption
	if spec.GraceMS != nil {
		grace, err := Millis("graceMs", spec.GraceMS)
		if err != nil {
			return nil, err
		}
		opts = append(opts, WithHostGrace(grace))
	}
	run, err := s.Begin(context.Background(), opts...)
	if err != nil {
		return nil, err
	}
	w := &HostWork{line: l, session: s.ID(), run: run}
	l.open(w)
	w.unwatch = context.AfterFunc(run.Context(), w.abort)
	return w, nil
}

// HostWork is host work on a HostLine: one call of a line's tool or a
// host run.
type HostWork struct {
	line    *HostLine
	id      uint64
	session string
	call    *HostCall // a tool call, or
	run     *HostRun  // a host run
	unwatch func() bool
}

// ID is the id the work's messages carry.
func (w *HostWork) ID() uint64 { return w.id }

// Env is the work's view of its session.
func (w *HostWork) Env() *Env {
	if w.call != nil {
		return w.call.Env()
	}
	return w.run.Env()
}

func (w *HostWork) context() context.Context {
	if w.call != nil {
		return w.call.Context()
	}
	return w.run.Context()
}

// abort tells the host that the work was interrupted.
func (w *HostWork) abort() {
	reason, _ := ReasonOf(context.Cause(w.context()))
	w.line.deliver(&HostMessage{Type: HostAbort, Session: w.session, Host: w.id, Reason: reason})
}

// HostPauseRequest is a pause host work asks for.
type HostPauseRequest struct {
	Kind      PauseKind `json:"kind"`
	Tool      string    `json:"tool"`
	Message   string    `json:"message"`
	Details   string    `json:"details"`
	TimeoutMS *int64    `json:"timeoutMs"`
	// Command makes a confirm the bash tool's confirm of that command:
	// its reasons are shown and an approval the user remembers becomes
	// the session's or project's grant.
	Command string `json:"command"`
	// RememberKey and RememberScopes: see PauseRequest.
	RememberKey    string   `json:"rememberKey"`
	RememberScopes []string `json:"rememberScopes"`
}

// Pause raises a pause for the work and returns at once; its answer comes
// as a pause_done message with request.
func (w *HostWork) Pause(request uint64, r HostPauseRequest) error {
	req := PauseRequest{Kind: r.Kind, Tool: r.Tool, Message: r.Message, Details: r.Details, RememberKey: r.RememberKey, RememberScopes: r.RememberScopes}
	timeout, err := Millis("timeoutMs", r.TimeoutMS)
	if err != nil {
		return err
	}
	req.Timeout = timeout
	if r.Kind != PauseContinue && r.Kind != PauseConfirm {
		return fmt.Errorf("%w: pause request: kind %q: use \"continue\" or \"confirm\"", ErrInvalidArgument, r.Kind)
	}
	if r.Command != "" && r.Kind != PauseConfirm {
		return fmt.Errorf("%w: pause request: command %q with kind %q: a command is confirmed: use kind \"confirm\"", ErrInvalidArgument, r.Command, r.Kind)
	}
	if r.Command != "" && (r.RememberKey != "" || r.RememberScopes != nil) {
		return fmt.Errorf("%w: pause request: command %q with a remember key or scopes: the bash gate keys what an approval of a command covers itself: drop rememberKey and rememberScopes", ErrInvalidArgument, r.Command)
	}
	if r.Command != "" && w.line.Gate == nil {
		return fmt.Errorf("%w: pause request: command %q: this engine has no bash tool to confirm commands", ErrInvalidArgument, r.Command)
	}
	if r.Command != "" && req.Tool == "" { // who asks: the host's tool, else the bash gate
		req.Tool = "Bash"
		if w.call != nil {
			req.Tool = w.call.call.Name
		}
	}
	return w.line.spawn(func() {
		var res PauseResult
		var err error
		switch {
		case r.Command != "":
			res, err = w.line.Gate.Confirm(w.context(), w.Env(), r.Command, req)
		case w.call != nil:
			res, err = w.call.Pause(w.context(), req)
		default:
			res, err = w.run.Pause(context.Background(), req)
		}
		m := &HostMessage{Type: HostPauseDone, Session: w.session, Host: w.id, Request: request, Result: &res}
		w.line.failed(m, err)
		w.line.deliver(m)
	})
}

// failed records err (if any) in m.
func (l *HostLine) failed(m *HostMessage, err error) {
	if err == nil {
		return
	}
	m.Error = err.Error()
	if l.Code != nil {
		m.Code = l.Code(err)
	}
}

// Step is a step boundary of a host run (see HostRun.Step), returning at
// once; its outcome comes as a step_done message with request.
func (w *HostWork) Step(request uint64) error {
	if w.run == nil {
		return fmt.Errorf("%w: host work %d is a tool call: step boundaries belong to a host run", ErrInvalidArgument, w.id)
	}
	return w.line.spawn(func() {
		step, err := w.run.Step(context.Background())
		m := &HostMessage{Type: HostStepDone, Session: w.session, Host: w.id, Request: request, NewStep: step}
		w.line.failed(m, err)
		m.Reason, _ = ReasonOf(err)
		w.line.deliver(m)
	})
}

// Progress streams a chunk of the work's output (a tool_progress event).
func (w *HostWork) Progress(text string) error {
	if w.call != nil {
		w.call.Progress(text)
		return nil
	}
	return w.run.Progress("", text)
}

// HostResult is how host work ended: a tool's result, or a host run's
// failure.
type HostResult struct {
	Output  string `json:"output"`
	IsError bool   `json:"isError"`
	// Error makes a host run end failed.
	Error string `json:"error"`
}

// End ends the work: a tool call with r as its result (nil RunResult), a
// host run as r.Error says (see HostRun.End).
func (w *HostWork) End(r HostResult) (*RunResult, error) {
	if w.call != nil {
		return nil, w.call.End(Result{Output: r.Output, IsError: r.IsError})
	}
	w.unwatch()
	var failure error
	if r.Error != "" {
		failure = errors.New(r.Error)
	}
	res, err := w.run.End(failure)
	if err != nil && !errors.Is(err, ErrInterrupted) && failure == nil {
		return nil, err
	}
	if err != nil && res.Error == "" && res.Interruption == nil {
		return nil, fmt.Errorf("host run: %w", err)
	}
	return &res, nil
}

// maxMillis is the largest millisecond count a time.Duration holds (~292 years).
const maxMillis = int64(math.MaxInt64 / int64(time.Millisecond))

// Millis converts an optional field in milliseconds (nil: 0), refusing
// values that are negative or would overflow a time.Duration.
func Millis(field string, ms *int64) (time.Duration, error) {
	if ms == nil {
		return 0, nil
	}
	if *ms < 0 || *ms > maxMillis {
		return 0, fmt.Errorf("%w: %s is %d: it must be from 0 to %d milliseconds", ErrInvalidArgument, field, *ms, maxMillis)
	}
	return time.Duration(*ms) * time.Millisecond, nil
}

// Approver is the host's approver behind the line: each request goes out
// as an approve message, open work the host ends with its decision
// ("allow", "deny" or "ask") as the output, or an error. Set it with
// Engine.SetApprover; its timeout bounds the wait (the work is then
// aborted, and a late end is ignored).
func (l *HostLine) Approver() Approver { return hostApprover{l} }

type hostApprover struct{ l *HostLine }

func (a hostApprover) Approve(ctx context.Context, req ApprovalRequest) (Approval, error) {
	c := &HostCall{ctx: ctx, call: ToolCall{Name: "approver"}, answer: make(chan Result, 1)}
	w := &HostWork{line: a.l, session: req.Session, call: c}
	a.l.open(w)
	a.l.deliver(&HostMessage{Type: HostApprove, Session: req.Session, Host: w.id, Approval: &req})
	select {
	case res := <-c.answer:
		if res.IsError {
			return ApprovalAsk, errors.New(res.Output)
		}
		return Approval(res.Output), nil
	case <-ctx.Done():
		w.abort()
		return ApprovalAsk, context.Cause(ctx)
	}
}
