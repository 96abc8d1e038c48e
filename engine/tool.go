package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// ToolCall is one call of a tool requested by the model.
type ToolCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

// Result is what a tool returns to the model.
type Result struct {
	Output  string `json:"output"`
	IsError bool   `json:"is_error,omitempty"` // the model sees a tool error, the run goes on
}

// Tool is one capability the model can call. Run must return promptly once
// ctx is done (the user pressed Esc); the Output it returns then (what it
// had printed) is kept in the call's result before the note "interrupted
// before completion". The session's Env gives it pauses, progress output,
// the working directory and session-scoped state.
type Tool interface {
	Run(ctx context.Context, call ToolCall, env *Env) (Result, error)
}

// ToolFunc adapts a function to the Tool interface.
type ToolFunc func(ctx context.Context, call ToolCall, env *Env) (Result, error)

// Run calls f.
func (f ToolFunc) Run(ctx context.Context, call ToolCall, env *Env) (Result, error) {
	return f(ctx, call, env)
}

// ToolSpec describes a tool to the model: what it does and the JSON Schema
// of its arguments.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"` // a JSON Schema object; nil means "any object"
}

// Describer is implemented by tools that describe themselves to the model.
// The registry fills in the name the tool is registered under, and asks
// once per registration: a tool describes itself the same way for as long
// as it is registered.
type Describer interface {
	Describe() ToolSpec
}

// Described returns t with a description and the JSON Schema of its
// arguments, for the model.
func Described(t Tool, description string, parameters json.RawMessage) Tool {
	return describedTool{Tool: t, spec: ToolSpec{Description: description, Parameters: parameters}}
}

type describedTool struct {
	Tool
	spec ToolSpec
}

func (d describedTool) Describe() ToolSpec { return d.spec }

// HasSideEffects passes the question on to the tool described.
func (d describedTool) HasSideEffects(call ToolCall) bool {
	se, ok := d.Tool.(SideEffecter)
	return ok && se.HasSideEffects(call)
}

// RunsProcesses passes the question on to the tool described.
func (d describedTool) RunsProcesses(call ToolCall) bool {
	pr, ok := d.Tool.(ProcessRunner)
	return ok && pr.RunsProcesses(call)
}

// AsksBeforeActing passes the question on to the tool described.
func (d describedTool) AsksBeforeActing(call ToolCall) bool {
	ab, ok := d.Tool.(AsksFirst)
	return ok && ab.AsksBeforeActing(call)
}

// SideEffecter is implemented by tools whose calls may change the outside
// world. Cutting such a call off makes a later Continue ask for confirmation.
type SideEffecter interface {
	HasSideEffects(call ToolCall) bool
}

// AsksFirst is implemented by tools with side effects whose calls
// raise their questions (Env.Pause, Env.Ask) before they change anything,
// as a confirm gate does (the bash tool). After a restart, a call cut
// while it waited on its question runs again to ask it anew: for a tool
// that does not say so, the call may have acted before it asked, and
// Continue first asks whether to repeat it.
type AsksFirst interface {
	AsksBeforeActing(call ToolCall) bool
}

// ProcessRunner is implemented by tools whose calls run processes and,
// once the call's context is done, end them, tree and all, before Run
// returns, within a bounded time (the bash tool: its grace). An emergency
// stop returns once the cut calls of such tools have returned, so that no
// process of them is left when it reports; other tools' cut calls (a JS
// tool's, which gets its abort) are not waited for.
type ProcessRunner interface {
	RunsProcesses(call ToolCall) bool
}

// Registry maps tool names to tools. The zero value is empty and ready.
type Registry struct {
	mu    sync.RWMutex
	tools map[string]Tool
	specs []ToolSpec // what Specs returns until the next Register; nil: not made yet
}

// Register adds or replaces the tool under name.
func (r *Registry) Register(name string, t Tool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tools == nil {
		r.tools = make(map[string]Tool)
	}
	r.tools[name] = t
	r.specs = nil
}

// Unregister removes the tool under name, if any: the model is no longer
// offered it, and a call of it is an unknown tool.
func (r *Registry) Unregister(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.tools, name)
	r.specs = nil
}

// Lookup returns the tool registered under name.
func (r *Registry) Lookup(name string) (Tool, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.tools[name]
	if !ok {
		return nil, fmt.Errorf("%w: %q (registered: %v)", ErrUnknownTool, name, r.namesLocked())
	}
	return t, nil
}

// Names lists the registered tool names, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.namesLocked()
}

// Specs describes every registered tool to the model, sorted by name.
// Every model turn asks, so the answer is made once and shared until the
// next Register: read it, never modify it.
func (r *Registry) Specs() []ToolSpec {
	r.mu.RLock()
	specs := r.specs
	r.mu.RUnlock()
	if specs != nil {
		return specs
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.specs == nil {
		names := r.namesLocked()
		r.specs = make([]ToolSpec, len(names))
		for i, n := range names {
			if d, ok := r.tools[n].(Describer); ok {
				r.specs[i] = d.Describe()
			}
			r.specs[i].Name = n
		}
	}
	return r.specs
}

func (r *Registry) namesLocked() []string {
	names := make([]string, 0, len(r.tools))
	for n := range r.tools {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// sessionTools checks SessionOptions.Tools: each name must be one of the
// engine's built-in tools that it still has. The result is sorted and
// never nil when chosen is not (an empty choice offers no built-in tool).
func (e *Engine) sessionTools(chosen []string) ([]string, error) {
	if chosen == nil {
		return nil, nil
	}
	have := make([]string, 0, len(e.builtins))
	for _, n := range e.builtins {
		if _, err := e.tools.Lookup(n); err == nil {
			have = append(have, n)
		}
	}
	out := make([]string, 0, len(chosen))
	for _, n := range chosen {
		if !slices.Contains(have, n) {
			return nil, fmt.Errorf("%w: tools: %q is not a built-in tool of this engine: choose among %s", ErrInvalidArgument, n, strings.Join(have, ", "))
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out, nil
}

// offers reports whether session s offers the model the tool name: every
// tool unless its options chose among the built-in ones.
func (s *Session) offers(name string) bool {
	return s.tools == nil || slices.Contains(s.tools, name) || !slices.Contains(s.eng.builtins, name)
}

// toolSpecs is what s offers the model this turn.
func (s *Session) toolSpecs() []ToolSpec {
	all := s.eng.tools.Specs()
	if s.tools == nil {
		return all
	}
	specs := make([]ToolSpec, 0, len(all))
	for _, spec := range all {
		if s.offers(spec.Name) {
			specs = append(specs, spec)
		}
	}
	return specs
}

// Env is a tool call's view of its session. It is valid for the duration of
// the call only. Everything in it belongs to one session: pausing, progress
// and Local state never touch another session.
type Env struct {
	session *Session
	run     *run // the run making the call: its interrupt ends any pause
	call    ToolCall
	step    int
	// cutAtPause: the run was interrupted while the call waited on a pause
	// (a confirm gate): the action it guards had not started.
	cutAtPause atomic.Bool
	tool       Tool
	// canPark: Ask may park the run (a lone call of a background run,
	// while Run is in progress).
	canPark bool
	// What Ask parked on: the question and what finishes the call.
	ask  *PauseRequest
	then AskFunc
	// running: the call's code runs (counted in run.calls; processes: in
	// run.processCalls too). Guarded by the session's mu.
	running, processes bool
}

// AskFunc finishes a tool call with the user's answer to its question (see
// Env.Ask). ctx is the call's context.
type AskFunc func(ctx context.Context, answer PauseResult) (Result, error)

// errParked is what Ask returns when the call parks on its question: Run
// returns it and the run's goroutine ends; the answer continues the call.
var errParked = errors.New("engine: the tool call is parked on a question (return Env.Ask's result from Run)")

// SessionID is the id of the session running the tool.
func (e *Env) SessionID() string { return e.session.id }

// Env returns a view of s for judging a command outside a tool call (its
// directory, environment and Local state). It belongs to no run: it must
// not pause or report progress.
func (s *Session) Env() *Env { return &Env{session: s} }

// Dir is the session's working directory ("" means the process's).
func (e *Env) Dir() string { return e.session.dir }

// Environ is the session's extra environment ("KEY=value" entries) for
// processes the tool starts, on top of ProcessEnviron.
func (e *Env) Environ() []string { return e.session.environ }

// ProcessEnviron is the process's environment now ("KEY=value" entries),
// read where the engine was told to (WithEnvironment): what the processes
// a tool starts inherit, after any filter of the tool's.
func (e *Env) ProcessEnviron() []string { return e.session.eng.environment.Environ() }

// LookupEnv reads the variable key of the process's environment now
// (WithEnvironment).
func (e *Env) LookupEnv(key string) (string, bool) { return e.session.eng.environment.LookupEnv(key) }

// Step is the step index of this tool call.
func (e *Env) Step() int { return e.step }

// Pause blocks until the user answers the request or ctx is done. On
// interrupt it returns AnswerInterrupted and an error wrapping ErrInterrupted
// (use ReasonOf for the reason), also when ctx is not derived from the
// context the tool was given. A timed-out pause returns AnswerTimedOut and
// no error: callers must treat anything but Approved() as "no". Called after
// the tool call has ended, it returns ErrNotRunning and shows nothing.
//
// A confirm with a RememberKey that the user approved before with remember
// "session" or "project" is approved at once (By "grant"), without a pause.
func (e *Env) Pause(ctx context.Context, req PauseRequest) (PauseResult, error) {
	if res, done, err := e.remembered(ctx, &req); done {
		return res, err
	}
	res, err := e.session.pauseFor(ctx, e.run, req, SourceTool, e.step, 0, e)
	if err != nil && e.run.ctx.Err() != nil {
		e.cutAtPause.Store(true)
	}
	return res, err
}

// Ask asks the user req and finishes the call with then's result: the same
// as Pause followed by then (an interrupt, or ctx ending, returns the
// error without calling then), but while the user has not answered, the
// run holds no goroutine. A tool calls it last in Run, with the ctx Run
// got, and returns what it returns:
//
//	return env.Ask(ctx, req, func(ctx context.Context, ans engine.PauseResult) (engine.Result, error) { ... })
//
// Then the run parks on the question; the answer (or an interrupt, or the
// session closing) carries the call on, on another goroutine, with then
// called after Run has returned. Where the run cannot park (parallel tool
// calls, a task loop, a host's run, a blocking Prompt, a timeout on the
// question, a ctx of the tool's own making) Ask blocks as Pause does and
// calls then itself.
func (e *Env) Ask(ctx context.Context, req PauseRequest, then AskFunc) (Result, error) {
	if res, done, err := e.remembered(ctx, &req); done {
		if err != nil {
			return Result{}, err
		}
		return then(ctx, res)
	}
	if e.canPark && e.then == nil && req.Timeout <= 0 && ctx == e.run.ctx && req.Kind.valid() {
		e.ask, e.then = &req, then
		return Result{}, errParked
	}
	res, err := e.Pause(ctx, req)
	if err != nil {
		return Result{}, err
	}
	return then(ctx, res)
}

// remembered settles req without asking when it can't be asked (done, err)
// or a remembered grant approves it (done, approved). Otherwise it binds
// what an approval of req remembers to the tool and the session's project.
func (e *Env) remembered(ctx context.Context, req *PauseRequest) (res PauseResult, done bool, err error) {
	tool := e.call.Name // the registered name: what a grant is bound to
	if tool == "" {     // a host's own run
		tool = req.Tool
	}
	if err := e.session.prepareRemember(req, tool); err != nil {
		return PauseResult{Answer: AnswerInterrupted}, true, err
	}
	scope, err := e.session.granted(ctx, req)
	if err != nil {
		e.Warn(fmt.Sprintf("remembered approvals could not be read, asking instead: %v", err))
	}
	if scope == "" {
		return PauseResult{}, false, nil
	}
	res, err = e.session.approveByGrant(ctx, e.run, req, scope, e.step)
	return res, true, err
}

// Progress streams a chunk of output (stdout, status lines) to observers.
func (e *Env) Progress(chunk string) {
	if chunk == "" {
		return
	}
	e.session.emitProgress(e.call, e.step, chunk)
}

// Local returns the session-scoped value stored under key, creating it with
// create on first use. Values that implement io.Closer are closed when the
// session closes (browsers, caches). Use an unexported key type.
func (e *Env) Local(key any, create func() any) any { return e.session.Local(key, create) }
