package engine

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// plainEvent encodes an Event with encoding/json's reflection,
// without Event's own MarshalJSON: the reference appendEventJSON matches.
type plainEvent Event

func referenceEventJSON(t *testing.T, ev *Event) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode((*plainEvent)(ev)))
	return string(appendCamelJSON(nil, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))))
}

func TestWireEventMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 23, 20, 0, 0, 123456789, time.FixedZone("x", 3600))
	odd := "quote \" backslash \\ nl \n cr \r tab \t bs \b ff \f nul \x00 esc \x1b del \x7f <html> & é 日本 \u2028 \u2029 bad \xff\xfe end"
	pause := &Pause{ID: "p3", Kind: PauseConfirm, Source: SourceTool, Tool: "bash", Message: odd, Details: "rm -rf build", Reasons: []string{"a", odd}, RememberScopes: []string{"session", "project"}, RememberKey: odd, Step: 4, Task: 2, At: at, Version: 9}
	events := []Event{
		{},
		{Session: "s1", Version: 1, Type: EventRunStarted, Status: StatusRunning, Run: 7, Step: 0, At: at, MonoNS: 123456789012345},
		{Session: odd, Version: 3, Type: EventPaused, Status: StatusPaused, Pause: pause, Step: 4, At: at, MonoNS: -1, Tool: "bash", CallID: "c_1"},
		{Session: "s", Type: EventPauseAnswered, Answered: &Pause{ID: "p1"}, Answer: AnswerDenied, AnswerReason: odd, Remember: "session", By: "tui"},
		{Session: "s", Type: EventText, Text: odd, Coalesced: 12},
		{Session: "s", Type: EventRunFinished, Run: 2, Result: &RunResult{Run: 2, Status: StatusIdle}},
		{Session: "s", Type: EventRunFailed, Run: 2, Code: "rate_limited", Text: "429", Result: &RunResult{Run: 2, Status: StatusIdle, Error: odd, ErrorCode: "rate_limited"}},
		{Session: "s", Type: EventInterrupted, Reason: ReasonUserStop, ReasonLabel: "Stopped by you", Result: &RunResult{Run: 1, Status: StatusInterrupted,
			Interruption: &Interruption{Reason: ReasonUserStop, Label: "Stopped by you", At: at, Resumable: true, SideEffectCut: true}}},
		{Session: "s", Type: EventWarning, Status: Status(42), Tool: "bash", Text: "sandbox"},
		{Type: EventGrantsChanged, Tool: "bash", Text: GrantRevoked, At: at, Grant: &Grant{Tool: "bash", Key: odd, Scope: RememberSession, Session: odd, At: at}},
		{Type: EventGrantsChanged, Tool: "deploy", Text: GrantAdded, Grant: &Grant{Tool: "deploy", Key: "k", Scope: RememberProject, Root: "/p"}},
	}
	for i := range events {
		ev := &events[i]
		want := referenceEventJSON(t, ev)
		got := string(appendEventJSON(nil, ev))
		assert.Equal(t, want, got, "event %d (%s)", i, ev.Type)
		assert.True(t, json.Valid([]byte(got)), got)
	}
}

// Every JSON field of Event, Pause, RunResult, Grant (appendEventJSON) and
// of Snapshot, Eligibility, Usage (snapshotEncoder) is one they write: a
// new field must be added there (and to this list).
func TestWireKnowsEveryField(t *testing.T) {
	t.Parallel()
	known := map[reflect.Type][]string{
		reflect.TypeFor[Event]():       {"session", "version", "type", "status", "run", "result", "pause", "answered", "answer", "answer_reason", "remember", "by", "reason", "reason_label", "step", "at", "mono_ns", "tool", "call_id", "text", "coalesced", "code", "grant", "-"},
		reflect.TypeFor[Pause]():       {"id", "kind", "source", "tool", "message", "details", "reasons", "remember_scopes", "remember_key", "step", "task", "at", "version"},
		reflect.TypeFor[RunResult]():   {"run", "status", "interruption", "error", "error_code", "text", "usage"},
		reflect.TypeFor[Grant]():       {"tool", "key", "scope", "session", "root", "at"},
		reflect.TypeFor[Snapshot]():    {"id", "status", "version", "pause", "pauses", "interruption", "stopping", "run_state", "eligibility", "needs_input", "run", "step", "tokens", "model", "pause_requested", "last_error", "sandbox"},
		reflect.TypeFor[Eligibility](): {"eligible", "reason", "repeats_side_effect", "asks_again"},
		reflect.TypeFor[Usage]():       {"input", "output"},
	}
	for typ, names := range known {
		var tags []string
		for f := range typ.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			tags = append(tags, name)
		}
		assert.Equal(t, names, tags, "%s gained or lost a field: update wire.go, node/index.d.ts and this list", typ)
	}
}

func TestAppendCamelJSONRenamesKeysOnly(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"flat", `{"call_id":"c_1","mono_ns":"12","step":3}`, `{"callId":"c_1","monoNs":"12","step":3}`},
		{"nested", `{"pause":{"pause_id":"p","reasons":["a_b"]},"result":{"error_code":"x"}}`, `{"pause":{"pauseId":"p","reasons":["a_b"]},"result":{"errorCode":"x"}}`},
		{"a string value that looks like a key", `{"text":"\"a_b\":1","x_y":null}`, `{"text":"\"a_b\":1","xY":null}`},
		{"escapes before the closing quote", `{"text":"q\\","a_b":true}`, `{"text":"q\\","aB":true}`},
		{"opaque object kept", `{"args":{"work_dir":{"a_b":[1,{"c_d":2}]}},"call_id":"x"}`, `{"args":{"work_dir":{"a_b":[1,{"c_d":2}]}},"callId":"x"}`},
		{"opaque last", `{"tool_name":"t","skipped":{"s_1":"why"}}`, `{"toolName":"t","skipped":{"s_1":"why"}}`},
		{"opaque scalar", `{"args":"a_b","x_y":1}`, `{"args":"a_b","xY":1}`},
		{"digits and doubled underscores", `{"ratio_2x":1,"a__b":2,"trailing_":3}`, `{"ratio2x":1,"a_B":2,"trailing_":3}`},
		{"array of objects", `[{"a_b":1},{"c_d":[{"e_f":2}]}]`, `[{"aB":1},{"cD":[{"eF":2}]}]`},
		{"upper case after underscore kept", `{"a_B":1}`, `{"a_B":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, string(appendCamelJSON(nil, []byte(tt.in))))
		})
	}
}

// appendWireSnapshots writes what encoding/json writes for the snapshots, keys
// in camelCase, byte for byte: sessions in every state, with and without a
// sandbox (the second and third share one, the fourth has another).
func TestWireSnapshotsMatchEncodingJSON(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 23, 20, 0, 0, 123456789, time.UTC)
	odd := "odd \"id\"\n é \u2028 \xff"
	p1 := Pause{ID: "p1", Kind: PauseConfirm, Source: SourceTool, Tool: "bash", Message: "Potentially dangerous command", Details: "rm -rf build", Reasons: []string{odd}, RememberScopes: []string{"session"}, RememberKey: "rm", Step: 2, At: at, Version: 4}
	p2 := Pause{ID: "p2", Kind: PauseContinue, Source: SourceTask, Message: "next", Task: 3, At: at, Version: 5}
	box := &Sandbox{Tool: "bash", Mode: "workspace-write", Filesystem: "landlock ABI 7", Network: "allow", Signals: "scoped", Tree: "pid-namespace", Warnings: []string{odd}}
	other := &Sandbox{Tool: "bash", Mode: "read-only", Filesystem: "landlock ABI 7", Network: "deny", Tree: "subreaper"}
	snaps := []Snapshot{
		{},
		{ID: "paused", Status: StatusPaused, Version: 5, Pause: &p1, Pauses: []Pause{p1, p2}, RunState: RunBlocked, Eligibility: Eligibility{Reason: NotEligibleNeedsInput, AsksAgain: true}, Run: 3, Step: 2, Tokens: Usage{Input: 10, Output: 20}, Model: "scripted", Sandbox: box},
		{ID: odd, Status: StatusInterrupted, Version: 9, Pauses: []Pause{}, Interruption: &Interruption{Reason: ReasonSystemStop, Label: ReasonLabel(ReasonSystemStop), At: at, Resumable: true, SideEffectCut: true}, RunState: RunInterrupted, Eligibility: Eligibility{Eligible: true, RepeatsSideEffect: true}, Model: "m", PauseRequested: true, LastError: odd, Sandbox: box},
		{ID: "stopping", Status: StatusStopping, Stopping: &Stopping{Reason: ReasonUserStop, Label: "Stopped by you"}, RunState: RunProceeding, NeedsInput: &p2, Sandbox: other},
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(snaps))
	want := string(appendCamelJSON(nil, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))))
	got := string(appendWireSnapshots(nil, slices.Values(snaps)))
	assert.Equal(t, want, got)
	for _, key := range []string{`"runState":"blocked"`, `"pauseRequested":true`, `"interruption":{"reason":"system_stop","label":"Stopped by the system"`, `"repeatsSideEffect":true`, `"mode":"read-only"`} {
		assert.Contains(t, got, key)
	}
}
