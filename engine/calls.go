package engine

import (
	"errors"
	"fmt"
	"strings"
	"sync"
)

// interruptedResult is the result of call c cut by an interrupt: what the
// call had output by then (a command's lines so far, within the tool's
// cap), so the model and the person see what ran, and the note.
func interruptedResult(c ToolCall, output string) Message {
	text := interruptedNote
	if output != "" {
		text = strings.TrimSuffix(output, "\n") + "\n" + interruptedNote
	}
	return Message{Role: RoleTool, ToolCallID: c.ID, Text: text, IsError: true, Interrupted: true}
}

// runTools runs one turn's tool calls, in parallel when there are several
// (at most maxParallelTools at once), and records their results in call
// order. A lone call of a parkable run may park it at a question
// (Env.Ask): then it returns errParked and the answer carries the run on
// (Env.resume).
func (s *Session) runTools(r *run, calls []ToolCall) error {
	if len(calls) == 1 {
		env, msg := s.runTool(r, calls[0], s.nextStep(), r.parkable)
		if env.then != nil {
			return s.park(env)
		}
		return s.recordResults(r, msg)
	}
	results := make([]Message, len(calls))
	slots := make(chan struct{}, maxParallelTools)
	var wg sync.WaitGroup
	for i, c := range calls {
		step := s.nextStep()
		select {
		case slots <- struct{}{}:
		case <-r.ctx.Done():
		}
		if r.ctx.Err() != nil {
			results[i] = interruptedResult(c, "") // never started
			continue
		}
		wg.Go(func() {
			defer func() { <-slots }()
			_, results[i] = s.runTool(r, c, step, false)
		})
	}
	wg.Wait()
	return s.recordResults(r, results...)
}

// recordResults records a turn's tool results; the run goes on unless it
// was interrupted.
func (s *Session) recordResults(r *run, results ...Message) error {
	s.mu.Lock()
	s.appendResultsLocked(results...)
	s.mu.Unlock()
	if r.ctx.Err() != nil {
		return interruptErr(r.ctx)
	}
	return nil
}

// runTool runs one call and returns its result, or, when the call parked
// at a question (env.then set), nothing yet: park raises it.
func (s *Session) runTool(r *run, c ToolCall, step int, canPark bool) (*Env, Message) {
	env := &Env{session: s, run: r, call: c, step: step}
	tool, lookupErr := s.eng.tools.Lookup(c.Name)
	if lookupErr == nil && !s.offers(c.Name) {
		lookupErr = fmt.Errorf("%w: %q is not offered in this session (its tools: %s)", ErrUnknownTool, c.Name, strings.Join(s.tools, ", "))
	}
	s.mu.Lock()
	if lookupErr == nil {
		env.tool, env.canPark = tool, canPark
		s.callRunsLocked(env) // executing from its start event on
	}
	s.emitLocked(Event{Type: EventToolStarted, Tool: c.Name, CallID: c.ID, Step: step})
	s.mu.Unlock()
	if lookupErr != nil {
		return env, s.finishTool(env, Message{Role: RoleTool, ToolCallID: c.ID, Text: lookupErr.Error(), IsError: true})
	}
	res, err := protect("tool", c.Name, func() (Result, error) { return tool.Run(r.ctx, c, env) })
	env.canPark = false
	if errors.Is(err, errParked) && env.then != nil {
		return env, Message{}
	}
	env.then = nil
	return env, s.finishTool(env, s.toolResult(env, res, err))
}

// toolResult is what the model sees of a call that returned (res, err).
func (s *Session) toolResult(env *Env, res Result, err error) Message {
	r, c := env.run, env.call
	if r.ctx.Err() != nil {
		// Cut while waiting for the user's permission: nothing had started.
		if se, ok := env.tool.(SideEffecter); ok && se.HasSideEffects(c) && !env.cutAtPause.Load() {
			s.mu.Lock()
			r.sideEffectCut = true
			s.mu.Unlock()
		}
		return interruptedResult(c, res.Output)
	}
	if err != nil {
		return Message{Role: RoleTool, ToolCallID: c.ID, Text: err.Error(), IsError: true}
	}
	return Message{Role: RoleTool, ToolCallID: c.ID, Text: res.Output, IsError: res.IsError}
}

// finishTool emits the call's tool_finished and returns its result.
func (s *Session) finishTool(env *Env, msg Message) Message {
	var status string
	if msg.IsError {
		status = "error"
	}
	s.mu.Lock()
	s.callStopsLocked(env)
	s.emitLocked(Event{Type: EventToolFinished, Tool: env.call.Name, CallID: env.call.ID, Step: env.step, Text: status})
	s.mu.Unlock()
	return msg
}

// park raises the question env's call asked with Ask and leaves the run
// parked on it: the run's goroutine returns (errParked) and nothing of the
// run is left but its facts. The answer, an interrupt or Close continues
// the call on a fresh goroutine (Env.resume). Interrupted before the
// question was raised, the call ends here as Pause would have ended it.
func (s *Session) park(env *Env) error {
	r := env.run
	s.mu.Lock()
	s.callStopsLocked(env) // Run has returned: nothing of the call runs until the answer
	_, err := s.raisePauseLocked(r.ctx, r, *env.ask, SourceTool, env.step, 0, env, nil)
	env.ask = nil // the pause holds what the user is asked
	s.mu.Unlock()
	if err == nil {
		return errParked
	}
	return s.finishParked(env, Result{}, err, true)
}

// resume carries a run parked at env's question on once the question has
// ended: answered (res) or interrupted (pauseErr). It finishes the call
// with the tool's AskFunc, then drives the run as its first goroutine
// would have.
func (env *Env) resume(s *Session, res PauseResult, pauseErr error) {
	var out Result
	err := pauseErr
	if err == nil {
		then := env.then
		s.mu.Lock()
		s.callRunsLocked(env)
		s.mu.Unlock()
		out, err = protect("tool", env.call.Name, func() (Result, error) { return then(env.run.ctx, res) })
	}
	err = s.finishParked(env, out, err, pauseErr != nil)
	if err == nil {
		err = s.turns(env.run)
	}
	s.settle(env.run, err)
}

// finishParked ends a call that had parked (or was about to) with the
// outcome of its question, and records its result. atPause: err is the
// question's own (an interrupt), not the tool's.
func (s *Session) finishParked(env *Env, res Result, err error, atPause bool) error {
	env.ask, env.then = nil, nil
	if atPause && env.run.ctx.Err() != nil {
		env.cutAtPause.Store(true) // cut at the question: the action it guards had not started
	}
	return s.recordResults(env.run, s.finishTool(env, s.toolResult(env, res, err)))
}

// protect runs f and turns its panic into an error: a bad tool, provider or
// task function must not take the process (and the Node app hosting it) down.
// The error names what panicked, what and its name (if any): put together
// only then, not at every call.
func protect[T any](what, name string, f func() (T, error)) (v T, err error) {
	defer func() {
		if p := recover(); p != nil {
			if name != "" {
				what += " " + name
			}
			err = fmt.Errorf("%s panicked: %v", what, p)
		}
	}()
	return f()
}

// interruptedNote ends the result of a tool call cut by an interrupt.
const interruptedNote = "interrupted before completion"

// maxParallelTools bounds how many of a turn's tool calls run at once: a
// model (or a hostile server) asking for thousands in one turn must not
// start thousands of commands together. The others start in order as
// calls end.
const maxParallelTools = 10
