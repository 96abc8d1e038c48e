package hub_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/bash"
	"github.com/interlock-dev/interlock/engine/hub"
)

// A confirm decided on a host by its approver (engine.SetApprover) shows
// in the hub's audit log as the approver's decision, with the policy rule
// that put the command to it (tier, rule and reason), after the rule's own
// entry; the hub's log is the host's.
func TestApproverDecisionInTheHubsAudit(t *testing.T) {
	t.Parallel()
	url := newDB(t)
	policy := filepath.Join(t.TempDir(), "policy.toml")
	if err := os.WriteFile(policy, []byte(`version = 1

[[rule]]
name = "ask-before-printing-the-date"
decision = "ask"
reason = "the date is secret here"
program = "date"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	script, _ := json.Marshal([]engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{{Name: "Bash", Args: json.RawMessage(`{"command": "date +%Y"}`)}}}, {Text: "Done."}})
	turns, err := engine.ParseScript(script)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := engine.Open(t.Context(), engine.WithStore(filepath.Join(t.TempDir(), "s.db")),
		engine.WithTool("Bash", bash.New(bash.WithUserPolicy(policy))), engine.WithProvider(engine.NewScriptedProvider(turns)),
		hub.With(hub.Config{URL: url, Host: "ci-runner"}))
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	eng.SetApprover(engine.ApproverFunc(func(_ context.Context, req engine.ApprovalRequest) (engine.Approval, error) {
		if strings.HasPrefix(req.Command, "date") {
			return engine.ApprovalAllow, nil
		}
		return engine.ApprovalAsk, nil
	}), 0)
	s, err := eng.NewSession(engine.SessionOptions{ID: "s"})
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.Prompt(t.Context(), "what year is it?")
	if err != nil || out.Error != "" {
		t.Fatalf("run: %v %s", err, out.Error)
	}
	f := openFleet(t, url)
	// The run's two decisions mirrored (the host may have connected after
	// the run: its resync writes the session, then the events).
	var all []hub.AuditEntry
	eventually(t, "the run's decisions mirrored", func() bool {
		if all, err = f.Audit(t.Context(), 100); err != nil {
			t.Fatal(err)
		}
		return len(all) >= 2
	})
	var got [][5]string
	for i := len(all) - 1; i >= 0; i-- { // oldest first
		a := all[i]
		if a.Host != "ci-runner" || a.Session != "s" {
			t.Fatalf("audit entry of %s/%s", a.Host, a.Session)
		}
		got = append(got, [5]string{a.Event, a.By, a.Answer, a.Message, a.Reason})
	}
	rule := `user rule "ask-before-printing-the-date" (the date is secret here)`
	want := [][5]string{
		{"decided", "rule", "", "date +%Y", rule},
		{"decided", "approver", "approved", "date +%Y", "asked by the " + rule},
	}
	if len(got) != len(want) {
		t.Fatalf("the hub's audit log:\n%q\nwant\n%q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("the hub's audit log:\n%q\nwant\n%q", got, want)
		}
	}
	local, err := eng.AuditLog(t.Context(), "s")
	if err != nil {
		t.Fatal(err)
	}
	if len(local) != 2 || local[1].By != "approver" || local[1].Reason != want[1][4] {
		t.Fatalf("the host's own audit log: %+v", local)
	}
}
