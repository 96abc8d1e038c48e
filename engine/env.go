package engine

import (
	"errors"
)

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
)

// chooseBuiltins applies WithBuiltinTools: each name must be a built-in
// tool; the others are unregistered.
func (e *Engine) chooseBuiltins() error {
	chosen := e.chosenBuiltins
	if chosen == nil {
		return nil
	}
	for _, n := range chosen {
		if !slices.Contains(e.builtins, n) {
			return fmt.Errorf("%w: tools: %q is not a built-in tool: choose among %s", ErrInvalidArgument, n, strings.Join(e.builtins, ", "))
		}
	}
	for _, n := range e.builtins {
		if !slices.Contains(chosen, n) {
			e.tools.Unregister(n)
		}
	}
	e.builtins = e.tools.Names()
	return nil
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

// sandboxOf is the first Sandboxer tool's report for s, nil if none.
func (e *Engine) sandboxOf(s *Session) *Sandbox {
	for _, name := range e.tools.Names() {
		if t, err := e.tools.Lookup(name); err == nil {
			if sb, ok := t.(Sandboxer); ok {
				r := sb.Sandbox(s)
				r.Tool = name
				return &r
			}
		}
	}
	return nil
}

// Warn emits a warning event for the session (EventWarning, Text): for
// what the user must know but that does not stop the call, such as a
// sandbox that is not fully in force.
func (e *Env) Warn(text string) {
	e.session.emitWarning(e.call, e.step, text)
}

func (s *Session) emitWarning(call ToolCall, step int, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.emitLocked(Event{Type: EventWarning, Tool: call.Name, CallID: call.ID, Step: step, Text: text})
}

// errParked is what Ask returns when the call parks on its question: Run
// returns it and the run's goroutine ends; the answer continues the call.
var errParked = errors.New("engine: the tool call is parked on a question (return Env.Ask's result from Run)")
