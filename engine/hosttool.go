package engine

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// DefaultHostGrace is how long the engine waits, after an interrupt, for
// code running in the host (a JS tool, a host-driven loop) to stop by
// itself before it ends the run anyway.
const DefaultHostGrace = 2 * time.Second

// HostTool is a tool whose code runs in the host application, e.g. a
// JavaScript function: Start hands each call over and returns at once; the
// host answers through the HostCall. While the host works, its call can
// pause like any tool and stream progress. On interrupt the call's context
// ends (the host should abort); a host that does not answer within Grace is
// cut off: the run ends interrupted, and an answer that comes later is
// discarded and recorded in the history.
type HostTool struct {
	Spec  ToolSpec
	Grace time.Duration // 0: DefaultHostGrace
	// Start hands a call to the host and returns how to tell the host to
	// stop it (nil: nothing to tell; the call's Context ends anyway):
	// abort is called once if the run is interrupted while the host still
	// works on the call. Neither may block.
	Start func(call *HostCall) (abort func())
}

// Describe returns the tool's spec.
func (t *HostTool) Describe() ToolSpec { return t.Spec }

// HasSideEffects reports true: the engine cannot know what host code does,
// so continuing after one was cut off asks first.
func (t *HostTool) HasSideEffects(ToolCall) bool { return true }

// Run hands the call to the host and waits for its answer, or for the
// interrupt plus the grace.
func (t *HostTool) Run(ctx context.Context, call ToolCall, env *Env) (Result, error) {
	// The call's pauses end with it: one the host asked for and did not
	// wait for (an un-awaited ctx.pause) must not stay pending while the
	// run goes on.
	cctx, endCall := context.WithCancelCause(ctx)
	defer endCall(errCallEnded)
	c := &HostCall{ctx: cctx, call: call, env: env, answer: make(chan Result, 1)}
	abort := t.Start(c)
	select {
	case res := <-c.answer:
		c.mu.Lock()
		cut := c.cut
		c.mu.Unlock()
		if !cut {
			return res, nil
		}
		// The host answered after the interrupt, before this saw it.
		return Result{}, interruptErr(ctx)
	case <-ctx.Done():
	}
	if abort != nil {
		abort()
	}
	grace := t.Grace
	if grace <= 0 {
		grace = DefaultHostGrace
	}
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-c.answer: // stopped in time: the result of a cut call is not used
	case <-timer.C:
		c.mu.Lock()
		c.abandoned = true
		c.mu.Unlock()
	}
	return Result{}, interruptErr(ctx)
}

// errCallEnded ends a host call's context when the call has ended.
var errCallEnded = fmt.Errorf("%w: the tool call has ended", ErrNotRunning)

// HostCall is one call of a HostTool, in the hands of the host.
type HostCall struct {
	ctx    context.Context
	call   ToolCall
	env    *Env
	answer chan Result

	mu        sync.Mutex
	ended     bool
	abandoned bool // the run stopped waiting: a late answer is only recorded
	cut       bool // the answer came after the run was interrupted: not used
}

// Context is done when the run is interrupted (the host should abort) and
// once the call has ended.
func (c *HostCall) Context() context.Context { return c.ctx }

// Call is the model's call.
func (c *HostCall) Call() ToolCall { return c.call }

// SessionID is the id of the session making the call.
func (c *HostCall) SessionID() string { return c.env.SessionID() }

// Step is the step index of the call.
func (c *HostCall) Step() int { return c.env.Step() }

// Env is the call's view of its session, as any tool's call has it.
func (c *HostCall) Env() *Env { return c.env }

// Pause raises a pause like any tool's and blocks until it is answered or
// the run is interrupted (see Env.Pause). With the call's Context, a pause
// still pending when the call ends is withdrawn (answered interrupted), and
// one asked after the end is refused (ErrNotRunning).
func (c *HostCall) Pause(ctx context.Context, req PauseRequest) (PauseResult, error) {
	if req.Tool == "" {
		req.Tool = c.call.Name
	}
	return c.env.Pause(ctx, req)
}

// Progress streams a chunk of output to observers while the call runs.
func (c *HostCall) Progress(text string) {
	c.mu.Lock()
	ended := c.ended || c.abandoned
	c.mu.Unlock()
	if !ended {
		c.env.Progress(text)
	}
}

// End gives the call's result. Only the first End counts (ErrNotRunning
// after). A result that comes after the run stopped waiting is discarded
// and recorded in the history as a marker.
func (c *HostCall) End(res Result) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return fmt.Errorf("tool %s call %s: %w: it already ended", c.call.Name, c.call.ID, ErrNotRunning)
	}
	c.ended = true
	if c.abandoned {
		c.env.session.recordLate(c.call)
		return nil
	}
	c.cut = c.ctx.Err() != nil
	c.answer <- res // room for one, and only the first End sends
	return nil
}

// recordLate notes that a tool's answer came after its run was cut off.
func (s *Session) recordLate(call ToolCall) {
	s.record(Message{Role: RoleMarker, Text: fmt.Sprintf("Late result of %s (call %s) discarded: the run had been interrupted", call.Name, call.ID)})
}
