package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"
)

// Approval is what an Approver decides about a confirm.
type Approval string

// Approvals.
const (
	ApprovalAllow Approval = "allow" // run it without asking a person
	ApprovalDeny  Approval = "deny"  // refuse it without asking a person
	ApprovalAsk   Approval = "ask"   // ask a person, as without an approver
)

// ApprovalRequest is what an Approver is asked: a confirm about to be put
// to a person.
type ApprovalRequest struct {
	Session string `json:"session"`
	Dir     string `json:"dir"` // the session's working directory
	Tool    string `json:"tool"`
	// Command is the command as judged (the confirm's details).
	Command string `json:"command"`
	// Reasons are why it asks, as the person would see them.
	Reasons []string `json:"reasons"`
	// Rules are the policy rules that matched the command, if any.
	Rules []ApprovalRule `json:"rules,omitempty"`
}

// asked is why the approver was asked, for the audit log of its decision:
// the policy rules that matched (tier, rule and reason), else the gate's
// reasons.
func (req ApprovalRequest) asked() string {
	if len(req.Rules) == 0 {
		return "asked: " + strings.Join(req.Reasons, "; ")
	}
	var b strings.Builder
	for i, r := range req.Rules {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "asked by the %s rule %q (%s)", r.Tier, r.Rule, r.Reason)
	}
	return b.String()
}

// ApprovalRule is a policy rule that matched a command.
type ApprovalRule struct {
	Tier     string `json:"tier"`
	Rule     string `json:"rule"`
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
}

// Approver decides confirms before a person is asked: a CI bot, a chat
// bridge, a model reviewer. Approve must honour ctx: the engine stops
// waiting at its deadline (Engine.SetApprover's timeout) and asks the
// person.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) (Approval, error)
}

// ApproverFunc adapts a function to an Approver.
type ApproverFunc func(ctx context.Context, req ApprovalRequest) (Approval, error)

// Approve calls f.
func (f ApproverFunc) Approve(ctx context.Context, req ApprovalRequest) (Approval, error) {
	return f(ctx, req)
}

// DefaultApproverTimeout is how long the engine waits for an approver.
const DefaultApproverTimeout = 10 * time.Second

// approverSlot is the engine's approver and its timeout.
type approverSlot struct {
	a       Approver
	timeout time.Duration
}

// SetApprover makes a decide the confirms of tools that consult it (the
// bash tool) before a person is asked; nil removes it. A timeout <= 0 is
// DefaultApproverTimeout.
func (e *Engine) SetApprover(a Approver, timeout time.Duration) {
	if a == nil {
		e.approver.Store(nil)
		return
	}
	if timeout <= 0 {
		timeout = DefaultApproverTimeout
	}
	e.approver.Store(&approverSlot{a: a, timeout: timeout})
}

// ErrApprover wraps what went wrong with an approver: it failed, timed
// out or answered something else than allow, deny or ask.
var ErrApprover = errors.New("approver did not decide")

// Approve asks the engine's approver about req, filled in with the
// session and its directory. Without an approver it is ApprovalAsk. It
// fails closed: an approver that errs, panics, answers anything else or
// does not answer within its timeout is ApprovalAsk, with the error
// saying why. An allow or deny is recorded (EventDecided, by "approver").
func (e *Env) Approve(ctx context.Context, req ApprovalRequest) (Approval, error) {
	slot := e.session.eng.approver.Load()
	if slot == nil {
		return ApprovalAsk, nil
	}
	req.Session, req.Dir = e.session.id, e.session.dir
	if req.Tool == "" {
		req.Tool = e.call.Name
	}
	ctx, cancel := context.WithTimeoutCause(ctx, slot.timeout, fmt.Errorf("%w: no answer within %s", ErrApprover, slot.timeout))
	defer cancel()
	type answer struct {
		a   Approval
		err error
	}
	done := make(chan answer, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- answer{err: fmt.Errorf("%w: it panicked: %v", ErrApprover, p)}
			}
		}()
		a, err := slot.a.Approve(ctx, req)
		done <- answer{a, err}
	}()
	var got answer
	select {
	case got = <-done:
	case <-ctx.Done():
		return ApprovalAsk, context.Cause(ctx)
	}
	switch {
	case got.err != nil && errors.Is(got.err, ErrApprover):
		return ApprovalAsk, got.err
	case got.err != nil:
		return ApprovalAsk, fmt.Errorf("%w: %w", ErrApprover, got.err)
	case got.a == ApprovalAllow:
		e.Decided(req.Tool, req.Command, AnswerApproved, "approver", req.asked())
	case got.a == ApprovalDeny:
		e.Decided(req.Tool, req.Command, AnswerDenied, "approver", req.asked())
	case got.a == ApprovalAsk:
	default:
		return ApprovalAsk, fmt.Errorf("%w: it answered %q: answer \"allow\", \"deny\" or \"ask\"", ErrApprover, got.a)
	}
	return got.a, nil
}

// Decided records a confirm decided without a person (EventDecided): by
// "approver", by "rule" (the policy rule named in why), or what a rule in
// shadow mode would have decided (by "shadow"). answer is approved,
// denied, or "" when it was put to a person.
func (e *Env) Decided(tool, command string, answer Answer, by, why string) {
	s := e.session
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.emitLocked(Event{Type: EventDecided, Tool: tool, CallID: e.call.ID, Step: e.step, Text: command, Answer: answer, By: by, AnswerReason: why})
}

// approverHolder is embedded in the Engine.
type approverHolder = atomic.Pointer[approverSlot]
