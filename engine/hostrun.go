package engine

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// HostRun is a run driven by the host's own agent loop (its own model
// client, its own tools): between Begin and End the session is proceeding,
// and the loop gets the engine's control plane — step boundaries where
// pause signals park it (Step), pauses answered with the same keys, Esc
// and emergency stop (Context ends), progress, events; a gate built for
// tools judges its actions in the session (Env). See Session.Begin.
type HostRun struct {
	s     *Session
	r     *run
	grace time.Duration
	once  sync.Once
	res   RunResult
	err   error
}

// HostRunOption configures Begin.
type HostRunOption func(*HostRun)

// WithHostGrace sets how long an interrupted host run may take to call End
// before the engine ends it (default DefaultHostGrace).
func WithHostGrace(d time.Duration) HostRunOption { return func(h *HostRun) { h.grace = d } }

// Begin marks the session proceeding for a loop the host drives itself and
// returns the run. The host calls End when its loop is done; on interrupt
// (Esc, emergency stop, Close) the run's Context ends, the status is
// stopping until End, and the engine ends the run by itself once the grace
// has passed. What prevents the run (closed, already running) is returned.
func (s *Session) Begin(ctx context.Context, opts ...HostRunOption) (*HostRun, error) {
	s.mu.Lock()
	r, err := s.beginLocked(ctx, func(r *run) { r.hostOwned = true })
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	h := &HostRun{s: s, r: r, grace: DefaultHostGrace}
	for _, o := range opts {
		o(h)
	}
	// Once interrupted, the host has the grace to call End. (The watch
	// also runs when End cancels the ctx; the run's end ends it then.)
	context.AfterFunc(r.ctx, func() {
		s.mu.Lock()
		done := r.doneLocked()
		s.mu.Unlock()
		t := time.NewTimer(h.grace)
		defer t.Stop()
		select {
		case <-t.C:
			h.finish(interruptErr(r.ctx))
		case <-done:
		}
	})
	return h, nil
}

// Context ends when the run is interrupted: the host's loop should stop.
func (h *HostRun) Context() context.Context { return h.r.ctx }

// Pause raises a pause (req.Tool names what asks, e.g. the host's tool) at
// the current step and blocks until it is answered, ctx ends or the run is
// interrupted.
func (h *HostRun) Pause(ctx context.Context, req PauseRequest) (PauseResult, error) {
	return h.Env().Pause(ctx, req)
}

// Step is a step boundary of the host's loop, the point where the engine's
// own loop checks its controls: call it before each model turn and each
// tool call. Once the run is interrupted (Esc, cancel, emergency stop) it
// returns an error wrapping ErrInterrupted: the loop should stop. When a
// pause was requested (Signal(SignalPause)) it parks the run there, with
// the same events as the engine's loop (paused with source "signal"), and
// returns when resumed (nil) or interrupted (error). Then the step index
// advances: it returns the new one, which later events carry. ctx ending
// also ends the wait.
func (h *HostRun) Step(ctx context.Context) (int, error) {
	if err := h.s.boundaryCtx(ctx, h.r); err != nil {
		return 0, err
	}
	h.s.mu.Lock()
	defer h.s.mu.Unlock()
	if h.s.run != h.r {
		return 0, fmt.Errorf("session %s: %w: the host run has ended", h.s.id, ErrNotRunning)
	}
	h.s.step++
	return h.s.step, nil
}

// Env is the run's view of its session, as a tool call has it: what a
// gate built for tools (the bash tool's Judge and Confirm) needs to judge
// and ask in this session. Its pauses belong to this run, at the current
// step.
func (h *HostRun) Env() *Env {
	h.s.mu.Lock()
	defer h.s.mu.Unlock()
	return &Env{session: h.s, run: h.r, step: h.s.step}
}

// Progress streams a chunk of the host's output (tool output, status) to
// observers, as a tool_progress event of tool (may be "").
func (h *HostRun) Progress(tool, text string) error {
	if text == "" {
		return nil
	}
	h.s.mu.Lock()
	defer h.s.mu.Unlock()
	if h.s.run != h.r {
		return fmt.Errorf("session %s: %w: the host run has ended", h.s.id, ErrNotRunning)
	}
	h.s.emitLocked(Event{Type: EventToolProgress, Tool: tool, Step: h.s.step, Text: text})
	return nil
}

// End ends the run: failure (non-nil) makes it run_failed, an interrupt
// makes it interrupted whatever failure says, else it finished. A second
// End returns ErrNotRunning.
func (h *HostRun) End(failure error) (RunResult, error) {
	if !h.finish(failure) {
		return RunResult{Status: h.s.Status()}, fmt.Errorf("session %s: %w: the host run already ended", h.s.id, ErrNotRunning)
	}
	return h.res, h.err
}

// finish ends the run once; it reports whether this call did.
func (h *HostRun) finish(failure error) bool {
	first := false
	h.once.Do(func() {
		first = true
		if failure == nil && h.r.ctx.Err() != nil {
			failure = interruptErr(h.r.ctx)
		}
		h.res, h.err = h.s.end(h.r, failure)
	})
	return first
}
