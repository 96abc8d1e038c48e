package engine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A snapshot in the wire format (as a fleet's hub keeps it) parses back to
// the same snapshot.
func TestParseWireJSONUndoesTheWireFormat(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 23, 20, 0, 0, 123456789, time.UTC)
	p1 := Pause{ID: "p1", Kind: PauseConfirm, Source: SourceTool, Tool: "bash", Message: "Potentially dangerous command", Details: "rm -rf build\nin /w", Reasons: []string{"a_b"}, RememberScopes: []string{"session", "project"}, RememberKey: "rm", Step: 2, At: at, Version: 4}
	in := Snapshot{ID: "build_1", Status: StatusPaused, Version: 5, Pause: &p1, Pauses: []Pause{p1}, RunState: RunBlocked,
		Interruption: &Interruption{Reason: ReasonSystemStop, Label: "x", At: at, Resumable: true, SideEffectCut: true},
		Eligibility:  Eligibility{Reason: NotEligibleNeedsInput, RepeatsSideEffect: true, AsksAgain: true}, NeedsInput: &p1, Run: 3, Step: 2,
		Tokens: Usage{Input: 10, Output: 20}, Model: "scripted", PauseRequested: true, LastError: "e",
		Sandbox: &Sandbox{Tool: "bash", Mode: "workspace-write", Filesystem: "landlock ABI 7", Network: "allow", Signals: "scoped", Tree: "pid-namespace", Warnings: []string{"w"}}}
	wire, err := AppendWireJSON(nil, in)
	require.NoError(t, err)
	var out Snapshot
	require.NoError(t, ParseWireJSON(wire, &out))
	assert.Equal(t, in, out)
	assert.Equal(t, `{"call_id":"c","args":{"workDir":1},"text":"aB"}`, string(appendSnakeJSON(nil, []byte(`{"callId":"c","args":{"workDir":1},"text":"aB"}`))))
}
