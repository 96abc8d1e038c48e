package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostLines parses what a sink recorded from the host callback: one JSON
// object per line.
func hostLines(t *testing.T, s *sink) []map[string]any {
	t.Helper()
	text, _ := s.take()
	var out []map[string]any
	for line := range strings.Lines(text) {
		out = append(out, jsonOf(t, strings.TrimSpace(line)))
	}
	return out
}

// waitHost reads s until a message of type typ arrives and returns it;
// earlier messages go to seen.
func waitHost(t *testing.T, s *sink, typ string, seen *[]map[string]any) map[string]any {
	t.Helper()
	var found map[string]any
	require.Eventually(t, func() bool {
		for _, m := range hostLines(t, s) {
			*seen = append(*seen, m)
			if found == nil && m["type"] == typ {
				found = m
			}
		}
		return found != nil
	}, 10*time.Second, time.Millisecond, "no %s message", typ)
	return found
}

const hostToolScript = `{"script": [{"toolCalls": [{"name": "c_tool", "args": {"x": 1}}]}, {"text": "done"}]}`

// With a host callback, a host tool's call goes to it, at once and alone,
// and never on the event stream; the host's il_host_end answers it.
func TestHostCallbackCarriesToolCalls(t *testing.T) {
	t.Parallel()
	e := newEngine(t, `{}`)
	ev := listen(t, e, 0)
	host := newSink(0)
	defer host.free()
	st, msg := driveRegisterHost(e, host)
	require.Equal(t, ilOK, st, msg)
	t.Cleanup(func() { driveRegisterHost(e, nil) })
	st, msg = driveRegisterTool(e, "c_tool", `{"description": "a tool in C"}`)
	require.Equal(t, ilOK, st, msg)

	s := newSession(t, e, hostToolScript)
	_, st, msg = drivePrompt(s, "go")
	require.Equal(t, ilOK, st, msg)
	var seen []map[string]any
	call := waitHost(t, host, "tool_call", &seen)
	assert.Equal(t, "c_tool", call["tool"])
	assert.Equal(t, map[string]any{"x": float64(1)}, call["args"])
	out, st, msg := driveHostEnd(uint64(call["host"].(float64)), `{"output": "done in C"}`)
	require.Equal(t, ilOK, st, msg)
	assert.Equal(t, "null", out)
	waitStatus(t, s, statusIdle)
	h, _, _ := driveHistory(s)
	assert.Contains(t, h, "done in C")

	require.Eventually(t, func() bool {
		for _, m := range ev.collect() {
			if m["type"] == "run_finished" {
				return true
			}
		}
		return false
	}, 10*time.Second, time.Millisecond)
	for _, m := range ev.collect() {
		assert.NotEqual(t, "tool_call", m["type"], "a host message on the event stream too")
	}
}

// Without a host callback the same messages come on the event stream, in
// event order (after the call's tool_started).
func TestHostMessagesFallBackToTheEventStream(t *testing.T) {
	t.Parallel()
	e := newEngine(t, `{}`)
	ev := listen(t, e, 0)
	st, msg := driveRegisterTool(e, "c_tool", `{}`)
	require.Equal(t, ilOK, st, msg)
	s := newSession(t, e, hostToolScript)
	_, st, msg = drivePrompt(s, "go")
	require.Equal(t, ilOK, st, msg)
	var call map[string]any
	var types []string
	require.Eventually(t, func() bool {
		types = types[:0]
		for _, m := range ev.collect() {
			types = append(types, m["type"].(string))
			if m["type"] == "tool_call" {
				call = m
			}
		}
		return call != nil
	}, 10*time.Second, time.Millisecond)
	assert.Less(t, indexOf(types, "tool_started"), indexOf(types, "tool_call"))
	_, st, msg = driveHostEnd(uint64(call["host"].(float64)), `{"output": "ok"}`)
	require.Equal(t, ilOK, st, msg)
	waitStatus(t, s, statusIdle)
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// A host-driven run through the C API: check judges with the engine's
// bash policy; a step parks on a pause signal until resume; an interrupt
// sends host_abort and a later step reports IL_ERR_INTERRUPTED.
func TestHostRunCheckAndSteps(t *testing.T) {
	t.Parallel()
	e := newEngine(t, `{"bash": {"policy": {"rule": [{"name": "no-shred", "decision": "deny", "reason": "r", "program": "shred"}]}}}`)
	host := newSink(0)
	defer host.free()
	st, msg := driveRegisterHost(e, host)
	require.Equal(t, ilOK, st, msg)
	t.Cleanup(func() { driveRegisterHost(e, nil) })
	s := newSession(t, e, `{}`)
	run, st, msg := driveBegin(s, nil)
	require.Equal(t, ilOK, st, msg)

	out, st, msg := driveHostCheck(run, "shred -u notes.txt")
	require.Equal(t, ilOK, st, msg)
	assert.Equal(t, "deny", jsonOf(t, out)["decision"], "the engine's rules apply")
	out, st, msg = driveHostCheck(run, "ls")
	require.Equal(t, ilOK, st, msg)
	assert.JSONEq(t, `{"decision": "allow", "reasons": []}`, out)

	st, msg = driveHostPause(run, 1, `{"kind": "continue", "command": "rm -rf build"}`)
	assert.Equal(t, ilInvalidArgument, st)
	assert.Contains(t, msg, `use kind "confirm"`)

	sig := "pause"
	st, msg = driveSignal(s, &sig)
	require.Equal(t, ilOK, st, msg)
	st, msg = driveHostStep(run, 7)
	require.Equal(t, ilOK, st, msg)
	waitStatus(t, s, statusPaused)
	sig = "resume"
	st, msg = driveSignal(s, &sig)
	require.Equal(t, ilOK, st, msg)
	var seen []map[string]any
	done := waitHost(t, host, "step_done", &seen)
	assert.Equal(t, float64(7), done["request"])
	assert.Equal(t, float64(1), done["newStep"])
	assert.Nil(t, done["error"])

	st, msg = driveInterrupt(s, nil)
	require.Equal(t, ilOK, st, msg)
	abort := waitHost(t, host, "host_abort", &seen)
	assert.Equal(t, "user_stop", abort["reason"])
	st, msg = driveHostStep(run, 8)
	require.Equal(t, ilOK, st, msg)
	done = waitHost(t, host, "step_done", &seen)
	assert.Equal(t, float64(8), done["request"])
	assert.Equal(t, "ERR_INTERRUPTED", done["code"])
	assert.Equal(t, "user_stop", done["reason"])

	out, st, msg = driveHostEnd(run, `{}`)
	require.Equal(t, ilOK, st, msg)
	var res struct{ Status string }
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	assert.Equal(t, "interrupted", res.Status)
	st, _ = driveHostStep(run, 9)
	assert.Equal(t, ilInvalidHandle, st, "the run's handle is closed by il_host_end")
}
