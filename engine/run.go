package engine

import (
	"context"
)

// run is one Prompt or Continue (or a whole task loop) in flight.
type run struct {
	id        uint64          // unique in the engine; in the run's events
	base      context.Context // the caller's: model turns derive from it (see modelTurn)
	loop      *TaskLoop
	loopAfter <-chan struct{} // the loop's previous run has been reported (see TaskLoop.bindLocked)
	loopEnded chan struct{}   // closed once this run of the loop has been reported
	hostOwned bool            // the host's own loop (Begin): only the host can resume it
	// startHistory is the length of the history before the run began: what
	// its start appended (a dropped question's results, a Prompt's prompt)
	// is stored with its start.
	startHistory  int
	resumed       bool // a Continue: "Resumed" is recorded once the model answers
	ctx           context.Context
	provider      Provider // the session's, or a task's own
	cancel        context.CancelCauseFunc
	stopOnDone    func() bool // unregisters the stop on the caller's ctx ending
	stopReason    Reason      // set by Interrupt; the run is stopping
	sideEffectCut bool        // a tool with side effects was cut off
	text          string      // the text of the run's last whole assistant message (RunResult.Text)
	startTokens   Usage       // the session's tokens when the run started (RunResult.Usage)
	// parkable: a lone tool call's Env.Ask parks the run instead of
	// blocking its goroutine (a background run of the engine's own loop).
	parkable bool
	outcome  chan Outcome // Start's: gets how the run ended (nil: nobody asked)
	// turnCancel ends the model turn in flight (nil between turns).
	turnCancel context.CancelCauseFunc
	// calls counts the tool calls whose code runs (Run, or an Ask's
	// AskFunc), a call waiting at its own pause included (pending.held);
	// processCalls those of them of a ProcessRunner, whose end callsDone,
	// when made, tells (see callsDoneLocked).
	calls, processCalls int
	callsDone           chan struct{}
	// done is closed when the run has ended; made by the first waiter
	// (doneLocked), as most runs end without one.
	done  chan struct{}
	ended bool
}

// closedChan is a channel that is always closed.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// doneLocked returns a channel closed when run r has ended.
func (r *run) doneLocked() <-chan struct{} {
	switch {
	case r.ended:
		return closedChan
	case r.done == nil:
		r.done = make(chan struct{})
	}
	return r.done
}

// endedLocked marks run r ended and wakes its waiters.
func (r *run) endedLocked() {
	r.ended = true
	if r.done != nil {
		close(r.done)
	}
}

// executingLocked reports whether something of run r is executing: a
// model turn streaming, or a tool call running that is not waiting at its
// own pause. A run executing is proceeding, whatever else waits.
func (s *Session) executingLocked(r *run) bool {
	if r.turnCancel != nil {
		return true
	}
	waiting := 0
	for _, p := range s.pauses {
		if p.held {
			waiting++
		}
	}
	return r.calls > waiting
}

// callRunsLocked counts env's call as running its code (see run.calls);
// the call's tool_started or the answer that carries a parked call on is
// the change observers see.
func (s *Session) callRunsLocked(env *Env) {
	if env.running {
		return
	}
	env.running = true
	env.run.calls++
	if pr, ok := env.tool.(ProcessRunner); ok && pr.RunsProcesses(env.call) {
		env.processes = true
		env.run.processCalls++
	}
}

// callStopsLocked counts env's call as no longer running: it has ended, or
// it parked at its question.
func (s *Session) callStopsLocked(env *Env) {
	if !env.running {
		return
	}
	env.running = false
	r := env.run
	r.calls--
	if env.processes {
		env.processes = false
		if r.processCalls--; r.processCalls == 0 && r.callsDone != nil {
			close(r.callsDone)
			r.callsDone = nil
		}
	}
}

// callsDoneLocked returns a channel closed once no call of run r to a
// ProcessRunner runs: a cut bash command's tree is gone by then.
func (r *run) callsDoneLocked() <-chan struct{} {
	if r.processCalls == 0 {
		return closedChan
	}
	if r.callsDone == nil {
		r.callsDone = make(chan struct{})
	}
	return r.callsDone
}
