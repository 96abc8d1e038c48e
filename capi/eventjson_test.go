package main

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
)

// plainEvent encodes an engine.Event with encoding/json's reflection,
// without Event's own MarshalJSON: the reference appendEventJSON matches.
type plainEvent engine.Event

func referenceEventJSON(t *testing.T, ev *engine.Event) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode((*plainEvent)(ev)))
	return string(appendCamelJSON(nil, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))))
}

func TestEventJSONMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 23, 20, 0, 0, 123456789, time.FixedZone("x", 3600))
	odd := "quote \" backslash \\ nl \n cr \r tab \t bs \b ff \f nul \x00 esc \x1b del \x7f <html> & é 日本 \u2028 \u2029 bad \xff\xfe end"
	pause := &engine.Pause{ID: "p3", Kind: engine.PauseConfirm, Source: engine.SourceTool, Tool: "bash", Message: odd, Details: "rm -rf build", Reasons: []string{"a", odd}, RememberScopes: []string{"session", "project"}, RememberKey: odd, Step: 4, Task: 2, At: at, Version: 9}
	events := []engine.Event{
		{},
		{Session: "s1", Version: 1, Type: engine.EventRunStarted, Status: engine.StatusRunning, Run: 7, Step: 0, At: at, MonoNS: 123456789012345},
		{Session: odd, Version: 3, Type: engine.EventPaused, Status: engine.StatusPaused, Pause: pause, Step: 4, At: at, MonoNS: -1, Tool: "bash", CallID: "c_1"},
		{Session: "s", Type: engine.EventPauseAnswered, Answered: &engine.Pause{ID: "p1"}, Answer: engine.AnswerDenied, AnswerReason: odd, Remember: "session", By: "tui"},
		{Session: "s", Type: engine.EventText, Text: odd, Coalesced: 12},
		{Session: "s", Type: engine.EventRunFinished, Run: 2, Result: &engine.RunResult{Run: 2, Status: engine.StatusIdle, Text: odd, Usage: engine.Usage{Input: 3, Output: 5}}},
		{Session: "s", Type: engine.EventRunFailed, Run: 2, Code: "rate_limited", Text: "429", Result: &engine.RunResult{Run: 2, Status: engine.StatusIdle, Error: odd, ErrorCode: "rate_limited"}},
		{Session: "s", Type: engine.EventInterrupted, Reason: engine.ReasonUserStop, Result: &engine.RunResult{Run: 1, Status: engine.StatusInterrupted,
			Interruption: &engine.Interruption{Reason: engine.ReasonUserStop, Label: "Stopped by you", At: at, Resumable: true, SideEffectCut: true}}},
		{Session: "s", Type: engine.EventWarning, Status: engine.Status(42), Tool: "bash", Text: "sandbox"},
		{Type: engine.EventGrantsChanged, Tool: "bash", Text: engine.GrantRevoked, At: at, Grant: &engine.Grant{Tool: "bash", Key: odd, Scope: engine.RememberSession, Session: odd, At: at}},
		{Type: engine.EventGrantsChanged, Tool: "deploy", Text: engine.GrantAdded, Grant: &engine.Grant{Tool: "deploy", Key: "k", Scope: engine.RememberProject, Root: "/p"}},
	}
	for i := range events {
		ev := &events[i]
		want := referenceEventJSON(t, ev)
		got := string(appendEventJSON(nil, ev))
		assert.Equal(t, want, got, "event %d (%s)", i, ev.Type)
		assert.True(t, json.Valid([]byte(got)), got)
	}
}

// Every JSON field of Event, Pause, RunResult and Grant is one appendEventJSON
// writes: a new field must be added there (and to this list).
func TestEventJSONKnowsEveryField(t *testing.T) {
	t.Parallel()
	known := map[reflect.Type][]string{
		reflect.TypeFor[engine.Event]():     {"session", "version", "type", "status", "run", "result", "pause", "answered", "answer", "answer_reason", "remember", "by", "reason", "step", "at", "mono_ns", "tool", "call_id", "text", "coalesced", "code", "grant", "-"},
		reflect.TypeFor[engine.Pause]():     {"id", "kind", "source", "tool", "message", "details", "reasons", "remember_scopes", "remember_key", "step", "task", "at", "version"},
		reflect.TypeFor[engine.RunResult](): {"run", "status", "interruption", "error", "error_code", "text", "usage"},
		reflect.TypeFor[engine.Grant]():     {"tool", "key", "scope", "session", "root", "at"},
	}
	for typ, names := range known {
		var tags []string
		for f := range typ.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			tags = append(tags, name)
		}
		assert.Equal(t, names, tags, "%s gained or lost a field: update appendEventJSON (capi/eventjson.go) and this list", typ)
	}
}

// il_engine_sessions_camel is il_engine_sessions with camelCase keys, byte
// for byte, for sessions in every state: paused, idle, interrupted,
// never run, with and without a sandbox.
func TestSessionsCamelMatchesSessions(t *testing.T) {
	t.Parallel()
	e := newEngine(t, `{"bash": {"sandbox": {"mode": "workspace-write"}}}`)
	paused := newSession(t, e, askConfirmScript)
	_, st, msg := drivePrompt(paused, "go")
	require.Equal(t, ilOK, st, msg)
	interrupted := newSession(t, e, `{"id": "odd \"id\"\n", "script": [{"text": "thinking", "hang": true}]}`)
	_, st, msg = drivePrompt(interrupted, "go")
	require.Equal(t, ilOK, st, msg)
	waitStatus(t, interrupted, statusRunning)
	st, msg = driveInterrupt(interrupted, nil)
	require.Equal(t, ilOK, st, msg)
	done := newSession(t, e, `{"script": [{"text": "hi"}]}`)
	_, st, msg = drivePrompt(done, "go")
	require.Equal(t, ilOK, st, msg)
	newSession(t, e, `{"sandbox": {"mode": "read-only"}}`)
	waitStatus(t, paused, statusPaused)
	waitStatus(t, interrupted, statusInterrupted)
	waitStatus(t, done, statusIdle)

	snake, st, msg := driveEngineSessions(e)
	require.Equal(t, ilOK, st, msg)
	camel, st, msg := driveEngineSessionsCamel(e)
	require.Equal(t, ilOK, st, msg)
	assert.Equal(t, string(appendCamelJSON(nil, []byte(snake))), camel)
	for _, key := range []string{`"runState"`, `"pauseRequested"`, `"interruption":{"reason":"user_stop"`, `"mode":"read-only"`, `"mode":"workspace-write"`} {
		assert.Contains(t, camel, key)
	}
}

func TestSnapshotJSONKnowsEveryField(t *testing.T) {
	t.Parallel()
	known := map[reflect.Type][]string{
		reflect.TypeFor[engine.Snapshot]():    {"id", "status", "version", "pause", "pauses", "interruption", "stopping", "run_state", "eligibility", "needs_input", "run", "step", "tokens", "model", "pause_requested", "last_error", "sandbox"},
		reflect.TypeFor[engine.Eligibility](): {"eligible", "reason", "repeats_side_effect", "asks_again"},
		reflect.TypeFor[engine.Usage]():       {"input", "output"},
	}
	for typ, names := range known {
		var tags []string
		for f := range typ.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			tags = append(tags, name)
		}
		assert.Equal(t, names, tags, "%s gained or lost a field: update snapshotEncoder (capi/eventjson.go) and this list", typ)
	}
}
