package bash

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
)

// approverHarness is an engine with a store, the bash tool under a user
// policy that asks about date, and an approver.
func approverHarness(t *testing.T, a engine.Approver, timeout time.Duration) *harness {
	t.Helper()
	file := filepath.Join(t.TempDir(), "policy.toml")
	writeFile(t, file, userPolicy)
	tool := New(tracked(nil), WithUserPolicy(file))
	e, err := engine.Open(t.Context(), engine.WithStore(filepath.Join(t.TempDir(), "s.db")), engine.WithTool("Bash", tool))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Close()) })
	e.SetApprover(a, timeout)
	return &harness{t: t, tool: tool, eng: e}
}

// audit is the session's audit log as (event, by, answer) triples.
func audit(t *testing.T, h *harness, a *agent) [][3]string {
	t.Helper()
	log, err := h.eng.AuditLog(t.Context(), a.s.ID())
	require.NoError(t, err)
	var out [][3]string
	for _, e := range log {
		out = append(out, [3]string{e.Event, e.By, e.Answer})
	}
	return out
}

// TestApproverDecidesBeforeAPerson: the approver is asked with the
// command as judged, the rule that matched, the session and its
// directory; allow runs it and deny refuses it without a pause, ask puts
// it to the person; each is audited as the approver's (or the person's).
func TestApproverDecidesBeforeAPerson(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var asked []engine.ApprovalRequest
	answer := engine.ApprovalAllow
	h := approverHarness(t, engine.ApproverFunc(func(_ context.Context, req engine.ApprovalRequest) (engine.Approval, error) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, req)
		return answer, nil
	}), 0)

	a := h.session("date +%Y")
	assert.False(t, a.run().IsError, "allowed by the approver: no pause")
	mu.Lock()
	require.Len(t, asked, 1)
	assert.Equal(t, engine.ApprovalRequest{Session: a.s.ID(), Dir: a.dir, Tool: "Bash", Command: "date +%Y",
		Reasons: []string{`user rule "ask-before-printing-the-date" (the date is secret here): date +%Y`},
		Rules:   []engine.ApprovalRule{{Tier: "user", Rule: "ask-before-printing-the-date", Decision: "ask", Reason: "the date is secret here"}}}, asked[0])
	answer = engine.ApprovalDeny
	mu.Unlock()
	assert.Equal(t, [][3]string{{"decided", "rule", ""}, {"decided", "approver", "approved"}}, audit(t, h, a))

	a = h.session("date +%Y")
	res := a.run()
	assert.True(t, res.IsError)
	assert.Equal(t, "Command denied by the approver", res.Text)
	assert.Equal(t, [][3]string{{"decided", "rule", ""}, {"decided", "approver", "denied"}}, audit(t, h, a))

	mu.Lock()
	answer = engine.ApprovalAsk
	mu.Unlock()
	a = h.session("date +%Y")
	p, res := a.answered(engine.AnswerApproved)
	assert.Equal(t, []string{`user rule "ask-before-printing-the-date" (the date is secret here): date +%Y`}, p.Reasons)
	assert.False(t, res.IsError)
	assert.Equal(t, [][3]string{{"decided", "rule", ""}, {"raised", "", ""}, {"answered", "", "approved"}}, audit(t, h, a)[:3])

	// Harmless commands never reach the approver.
	mu.Lock()
	n := len(asked)
	mu.Unlock()
	h.session("echo hi").run()
	mu.Lock()
	assert.Len(t, asked, n)
	mu.Unlock()
}

// TestApproverFailsClosed: an approver that times out, errs, panics or
// answers something else leaves the decision to the person, who is told
// why.
func TestApproverFailsClosed(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		approve engine.ApproverFunc
		reason  string
	}{
		{"timeout", func(ctx context.Context, _ engine.ApprovalRequest) (engine.Approval, error) {
			<-ctx.Done()
			return engine.ApprovalAllow, nil // too late: not used
		}, "approver did not decide: no answer within 50ms"},
		{"error", func(context.Context, engine.ApprovalRequest) (engine.Approval, error) {
			return engine.ApprovalAllow, errors.New("review service down")
		}, "approver did not decide: review service down"},
		{"panic", func(context.Context, engine.ApprovalRequest) (engine.Approval, error) {
			panic("bad reviewer")
		}, "approver did not decide: it panicked: bad reviewer"},
		{"another answer", func(context.Context, engine.ApprovalRequest) (engine.Approval, error) {
			return "yes", nil
		}, `approver did not decide: it answered "yes": answer "allow", "deny" or "ask"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := approverHarness(t, tt.approve, 50*time.Millisecond)
			p, res := h.session("date").answered(engine.AnswerDenied)
			assert.Equal(t, []string{`user rule "ask-before-printing-the-date" (the date is secret here): date`, tt.reason}, p.Reasons)
			assert.Contains(t, res.Text, "Command denied by user")
		})
	}
}
