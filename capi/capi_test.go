package main

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/interlock-dev/interlock/internal/testsupervisor"
)

// Status codes and session statuses, as in interlock.h.
const (
	ilOK              status = 0
	ilInvalidHandle   status = 1
	ilInvalidArgument status = 2
	ilClosed          status = 3
	ilNotPaused       status = 5
	ilUnknownPause    status = 6
	ilWrongPauseKind  status = 7
	ilRunning         status = 8
	ilNotRunning      status = 9
	ilNotResumable    status = 10
	ilDuplicate       status = 11
	ilPanic           status = 13

	statusIdle        int32 = 0
	statusRunning     int32 = 1
	statusInterrupted int32 = 2
	statusPaused      int32 = 3
)

func TestMain(m *testing.M) {
	cleanup, err := testsupervisor.Install() // the bash tool's commands run under it
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	cleanup()
	if code == 0 && openHandles() != 0 {
		fmt.Fprintf(os.Stderr, "FAIL: %d handles still open after every test closed its engines\n", openHandles())
		code = 1
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "FAIL: goroutine leak: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

func ptr(s string) *string { return &s }

// newEngine creates an engine closed at the end of the test.
func newEngine(t *testing.T, config string) uint64 {
	t.Helper()
	h, st, msg := driveEngineCreate(ptr(config))
	require.Equal(t, ilOK, st, msg)
	require.NotZero(t, h)
	t.Cleanup(func() {
		if st, msg := driveEngineClose(h); st != ilOK && st != ilInvalidHandle {
			t.Errorf("closing engine %d: %s: %s", h, driveStatusName(st), msg)
		}
	})
	return h
}

// events records what the C callback got and waits for events.
type events struct {
	t       *testing.T
	sink    *sink
	mu      sync.Mutex
	all     []map[string]any
	batches int // callback calls
	largest int // bytes of the largest batch
}

// listen registers a recording C callback on engine.
func listen(t *testing.T, engine uint64, delayMS int) *events {
	t.Helper()
	ev := &events{t: t, sink: newSink(delayMS)}
	st, msg := driveRegister(engine, ev.sink)
	require.Equal(t, ilOK, st, msg)
	t.Cleanup(func() {
		driveUnregister(engine) // an invalid handle after close is fine
		ev.sink.free()
	})
	return ev
}

// collect moves what the sink recorded into all and returns all.
func (e *events) collect() []map[string]any {
	e.mu.Lock()
	defer e.mu.Unlock()
	text, _ := e.sink.take()
	for line := range strings.Lines(text) {
		var batch []map[string]any
		require.NoError(e.t, json.Unmarshal([]byte(line), &batch), line)
		require.NotEmpty(e.t, batch, "a callback call carries at least one event")
		e.all = append(e.all, batch...)
		e.batches++
		e.largest = max(e.largest, len(line))
	}
	return append([]map[string]any(nil), e.all...)
}

// waitFor waits for an event matching every key/value of want and returns
// it with its index in arrival order.
func (e *events) waitFor(want map[string]any) (map[string]any, int) {
	e.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for i, ev := range e.collect() {
			if matches(ev, want) {
				return ev, i
			}
		}
		time.Sleep(2 * time.Millisecond)
	}
	e.t.Fatalf("no event %v; got %v", want, e.collect())
	return nil, -1
}

// waitRunEnd waits for the terminal event of a run of session (run nil:
// any run) and returns it with its index: interrupted, run_finished or
// run_failed, carrying the run id and the result.
func (e *events) waitRunEnd(session string, run any) (map[string]any, int) {
	e.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for i, ev := range e.collect() {
			switch ev["type"] {
			case "interrupted", "run_finished", "run_failed":
			default:
				continue
			}
			if ev["session"] == session && (run == nil || fmt.Sprint(ev["run"]) == fmt.Sprint(run)) {
				require.NotNil(e.t, ev["result"], "a terminal run event carries the result")
				assert.Equal(e.t, ev["run"], ev["result"].(map[string]any)["run"])
				return ev, i
			}
		}
		time.Sleep(2 * time.Millisecond)
	}
	e.t.Fatalf("no end of run %v of session %s; got %v", run, session, e.collect())
	return nil, -1
}

func matches(ev, want map[string]any) bool {
	for k, v := range want {
		if fmt.Sprint(ev[k]) != fmt.Sprint(v) {
			return false
		}
	}
	return true
}

func waitStatus(t *testing.T, s uint64, want int32) {
	t.Helper()
	require.Eventually(t, func() bool {
		st, code := driveStatus(s)
		return code == ilOK && st == want
	}, 10*time.Second, time.Millisecond, "status never became %d", want)
}

func newSession(t *testing.T, engine uint64, opts string) uint64 {
	t.Helper()
	s, st, msg := driveSessionCreate(engine, ptr(opts))
	require.Equal(t, ilOK, st, msg)
	return s
}

func jsonOf(t *testing.T, text string) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(text), &m), text)
	return m
}

const askConfirmScript = `{"script": [
	{"text": "I will ask.", "toolCalls": [{"name": "ask", "args": {"kind": "confirm", "message": "Delete the build folder?", "details": "rm -rf build"}}]},
	{"text": "done"}
]}`

func TestLibraryStrings(t *testing.T) {
	t.Parallel()
	assert.Equal(t, version, driveVersion())
	assert.Equal(t, "OK", driveStatusName(0))
	assert.Equal(t, "ERR_NOT_PAUSED", driveStatusName(5))
	assert.Equal(t, "ERR_INTERNAL", driveStatusName(14))
	assert.Equal(t, "ERR_UNKNOWN", driveStatusName(99))
	assert.Equal(t, "ERR_UNKNOWN", driveStatusName(-1))
}

func TestEngineCreateConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		config *string
		want   status
		errHas []string
	}{
		{name: "NULL", config: nil, want: ilOK},
		{name: "empty", config: ptr(""), want: ilOK},
		{name: "all fields", config: ptr(`{"workDir": "/tmp", "defaultPauseMode": true, "streamIdleTimeoutMs": 0,
			"bash": {"timeoutMs": 1000, "graceMs": 100, "policy": {"version": 1, "rule": [{"name": "ask-push", "decision": "ask", "reason": "r", "program": "git", "subcommand": "push", "lock": true, "examples": {"match": ["git push"], "notMatch": ["git pull"]}}]}},
			"web": {"searchUrl": "http://127.0.0.1:1/?q={query}", "autoDevtools": true}}`), want: ilOK},
		{name: "not JSON", config: ptr(`{"workDir": `), want: ilInvalidArgument, errHas: []string{"il_engine_create", "engine config", "unexpected EOF"}},
		{name: "unknown field", config: ptr(`{"bogus": 1}`), want: ilInvalidArgument, errHas: []string{`"bogus"`}},
		{name: "unknown nested field", config: ptr(`{"bash": {"timeout": 5}}`), want: ilInvalidArgument, errHas: []string{`"timeout"`}},
		{name: "wrong type", config: ptr(`{"defaultPauseMode": "yes"}`), want: ilInvalidArgument, errHas: []string{"defaultPauseMode"}},
		{name: "trailing data", config: ptr(`{} {}`), want: ilInvalidArgument, errHas: []string{"after the JSON value"}},
		{name: "unknown sandbox mode", config: ptr(`{"bash": {"sandbox": {"mode": "strict"}}}`), want: ilInvalidArgument, errHas: []string{"bash.sandbox.mode", `"strict"`, "workspace-write"}},
		{name: "relative writable path", config: ptr(`{"bash": {"sandbox": {"writable": ["build"]}}}`), want: ilInvalidArgument, errHas: []string{"bash.sandbox.writable[0]", "absolute"}},
		{name: "missing writable path", config: ptr(`{"bash": {"sandbox": {"writable": ["/nonexistent/build"]}}}`), want: ilInvalidArgument, errHas: []string{"bash.sandbox.writable[0]", "/nonexistent/build"}},
		{name: "bad policy decision", config: ptr(`{"bash": {"policy": {"rule": [{"name": "g", "decision": "maybe", "reason": "r", "program": "git"}]}}}`), want: ilInvalidArgument, errHas: []string{"bash.policy", `rule "g"`, "decision", "'allow', 'ask', 'deny'"}},
		{name: "policy example that fails", config: ptr(`{"bash": {"policy": {"rule": [{"name": "g", "decision": "deny", "reason": "r", "program": "git", "examples": {"notMatch": ["sudo git push"]}}]}}}`), want: ilInvalidArgument, errHas: []string{"bash.policy", `rule "g"`, `"sudo git push"`, "examples.notMatch"}},
		{name: "policy not an object", config: ptr(`{"bash": {"policy": "deny all"}}`), want: ilInvalidArgument, errHas: []string{"bash.policy"}},
		// The prefix rules are gone: one way to write a rule (bash.policy).
		{name: "old prefix rules", config: ptr(`{"bash": {"rules": [{"prefix": "git", "action": "deny"}]}}`), want: ilInvalidArgument, errHas: []string{`"rules"`}},
		{name: "negative grace", config: ptr(`{"bash": {"graceMs": -1}}`), want: ilInvalidArgument, errHas: []string{"bash.graceMs"}},
		{name: "negative timeout", config: ptr(`{"streamIdleTimeoutMs": -5}`), want: ilInvalidArgument, errHas: []string{"streamIdleTimeoutMs", "-5"}},
		// 10^16 ms times 10^6 ns/ms wraps int64 into a tiny duration unless refused.
		{name: "timeout that overflows a duration", config: ptr(`{"bash": {"timeoutMs": 10000000000000000}}`), want: ilInvalidArgument, errHas: []string{"bash.timeoutMs", "10000000000000000", "9223372036854"}},
		{name: "grace that overflows a duration", config: ptr(`{"bash": {"graceMs": 9223372036854776}}`), want: ilInvalidArgument, errHas: []string{"bash.graceMs"}},
		{name: "timeout beyond int64", config: ptr(`{"streamIdleTimeoutMs": 1e20}`), want: ilInvalidArgument, errHas: []string{"streamIdleTimeoutMs"}},
		{name: "fractional milliseconds", config: ptr(`{"bash": {"timeoutMs": 1.5}}`), want: ilInvalidArgument, errHas: []string{"timeoutMs"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, st, msg := driveEngineCreate(tt.config)
			require.Equal(t, tt.want, st, msg)
			if st == ilOK {
				require.NotZero(t, h)
				st, msg = driveEngineClose(h)
				require.Equal(t, ilOK, st, msg)
				return
			}
			assert.Zero(t, h, "out_engine is written only on IL_OK")
			for _, s := range tt.errHas {
				assert.Contains(t, msg, s)
			}
		})
	}
}

func TestLastErrorTruncation(t *testing.T) {
	// Not parallel: handle 0's last error is shared by calls without a handle.
	_, st, full := driveEngineCreate(ptr(`{"bogus": true}`))
	require.Equal(t, ilInvalidArgument, st)
	require.Greater(t, len(full), 10)

	msg, needed, st := driveLastError(0, 0)
	assert.Equal(t, ilInvalidArgument, st, "a size query of a non-empty message reports truncation")
	assert.Empty(t, msg)
	assert.Equal(t, len(full)+1, needed)

	msg, needed, st = driveLastError(0, 8)
	assert.Equal(t, ilInvalidArgument, st)
	assert.Equal(t, full[:7], msg, "truncated and NUL-terminated")
	assert.Equal(t, len(full)+1, needed)

	msg, needed, st = driveLastError(0, len(full)+1)
	assert.Equal(t, ilOK, st)
	assert.Equal(t, full, msg)
	assert.Equal(t, len(full)+1, needed)

	// A successful call leaves it; an engine handle has its own, empty one.
	e := newEngine(t, "")
	msg, needed, st = driveLastError(e, 64)
	assert.Equal(t, ilOK, st)
	assert.Empty(t, msg)
	assert.Equal(t, 1, needed)
	msg, _, _ = driveLastError(0, 1024)
	assert.Equal(t, full, msg)
}

func TestLastErrorNeverCutsUTF8(t *testing.T) {
	e := newEngine(t, "")
	_, st, full := driveSessionCreate(e, ptr(`{"id": "é", "bogus": 1}`))
	require.Equal(t, ilInvalidArgument, st)
	i := strings.Index(full, "é")
	if i < 0 { // the message does not echo the id: make one that does
		s := newSession(t, e, `{"id": "ééé"}`)
		_, st, full = driveSessionCreate(e, ptr(`{"id": "ééé"}`))
		require.Equal(t, ilDuplicate, st, full)
		i = strings.Index(full, "é")
		_ = s
	}
	require.GreaterOrEqual(t, i, 0, full)
	msg, _, st := driveLastError(e, i+2) // room for the first byte of "é" only
	assert.Equal(t, ilInvalidArgument, st)
	assert.Equal(t, full[:i], msg)
}

func TestConfirmPauseByID(t *testing.T) {
	t.Parallel()
	e := newEngine(t, "")
	ev := listen(t, e, 0)
	s := newSession(t, e, askConfirmScript)

	run, st, msg := drivePrompt(s, "clean up")
	require.Equal(t, ilOK, st, msg)
	require.Equal(t, uint64(1), run)
	waitStatus(t, s, statusPaused)

	pauseJSON, st, msg := drivePauseState(s)
	require.Equal(t, ilOK, st, msg)
	pause := jsonOf(t, pauseJSON)
	assert.Equal(t, "confirm", pause["kind"])
	assert.Equal(t, "tool", pause["source"])
	assert.Equal(t, "Delete the build folder?", pause["message"])
	assert.Equal(t, "rm -rf build", pause["details"])
	id := pause["id"].(string)

	paused, _ := ev.waitFor(map[string]any{"type": "paused", "session": "s1"})
	assert.Equal(t, id, paused["pause"].(map[string]any)["id"])

	// Wrong answers change nothing.
	st, msg = driveResume(s, nil)
	assert.Equal(t, ilWrongPauseKind, st)
	assert.Contains(t, msg, "il_session_pause_resume")
	assert.Contains(t, msg, "approve or deny")
	st, msg = driveConfirm(s, ptr("p99"), true, nil, nil)
	assert.Equal(t, ilUnknownPause, st)
	assert.Contains(t, msg, `"p99"`)
	st, msg = driveConfirm(s, ptr(id), true, nil, ptr("forever"))
	assert.Equal(t, ilInvalidArgument, st)
	assert.Contains(t, msg, `"forever"`)
	code, _ := driveStatus(s)
	assert.Equal(t, statusPaused, code)

	st, msg = driveConfirm(s, ptr(id), true, nil, ptr("session"))
	assert.Equal(t, ilInvalidArgument, st, "the pause offers no remember scope")
	assert.Contains(t, msg, "not offered by this pause")

	st, msg = driveConfirm(s, ptr(id), true, ptr("fine"), ptr("once"))
	require.Equal(t, ilOK, st, msg)

	done, _ := ev.waitRunEnd("s1", 1)
	assert.Equal(t, "run_finished", done["type"])
	assert.Equal(t, "idle", done["result"].(map[string]any)["status"])
	assert.NotContains(t, done["result"], "error")

	pauseJSON, st, _ = drivePauseState(s)
	require.Equal(t, ilOK, st)
	assert.Equal(t, "null", pauseJSON)
	st, msg = driveConfirm(s, ptr(id), true, nil, nil)
	assert.Equal(t, ilNotPaused, st, "a second answer is refused")
	assert.Contains(t, msg, "not paused")

	hist, st, _ := driveHistory(s)
	require.Equal(t, ilOK, st)
	assert.Contains(t, hist, `"text":"approved: fine"`)
	idText, st, _ := driveSessionID(s)
	require.Equal(t, ilOK, st)
	assert.Equal(t, "s1", idText)

	// Versions: every event bumps it; the last event delivered is the latest.
	v, st := driveVersionOf(s)
	require.Equal(t, ilOK, st)
	var maxSeen float64
	for _, m := range ev.collect() {
		if m["session"] == "s1" && m["version"] != nil {
			maxSeen = max(maxSeen, m["version"].(float64))
		}
	}
	assert.Equal(t, float64(v), maxSeen)
}

func TestDenyAndContinuePause(t *testing.T) {
	t.Parallel()
	e := newEngine(t, "")
	ev := listen(t, e, 0)
	s := newSession(t, e, `{"id": "deny", "script": "[{\"toolCalls\": [{\"name\": \"ask\", \"args\": {\"kind\": \"confirm\", \"message\": \"ok?\"}}, {\"name\": \"ask\", \"args\": {\"kind\": \"continue\", \"message\": \"look\"}}]}]"}`)
	_, st, msg := drivePrompt(s, "go")
	require.Equal(t, ilOK, st, msg)
	require.Eventually(t, func() bool {
		snap, _, _ := driveSnapshot(s)
		return len(jsonOf(t, snap)["pauses"].([]any)) == 2
	}, 10*time.Second, time.Millisecond)
	snap := jsonOf(t, func() string { s, _, _ := driveSnapshot(s); return s }())
	var confirmID, continueID string // the two tools run in parallel: any order
	for _, p := range snap["pauses"].([]any) {
		p := p.(map[string]any)
		if p["kind"] == "confirm" {
			confirmID = p["id"].(string)
		} else {
			continueID = p["id"].(string)
		}
	}
	require.NotEmpty(t, confirmID)
	require.NotEmpty(t, continueID)

	st, _ = driveConfirm(s, ptr(continueID), true, nil, nil)
	assert.Equal(t, ilWrongPauseKind, st, "approve does not fit a continue pause")
	st, msg = driveResume(s, ptr(continueID))
	require.Equal(t, ilOK, st, msg)
	st, msg = driveConfirm(s, nil, false, ptr("too risky"), nil) // the current one
	require.Equal(t, ilOK, st, msg)
	st, _ = driveConfirm(s, ptr(confirmID), false, nil, nil)
	assert.Equal(t, ilNotPaused, st)

	ev.waitRunEnd("deny", 1)
	hist, _, _ := driveHistory(s)
	assert.Contains(t, hist, "denied: too risky")
	assert.Contains(t, hist, `"text":"resumed"`)
}

func TestInterruptAndContinue(t *testing.T) {
	t.Parallel()
	e := newEngine(t, "")
	ev := listen(t, e, 0)
	s := newSession(t, e, `{"id": "long", "script": [
		{"toolCalls": [{"name": "sleep", "args": {"ms": 60000}}]},
		{"text": "finished after resuming"}
	]}`)

	st, msg := driveInterrupt(s, nil)
	assert.Equal(t, ilNotRunning, st, "nothing to interrupt before a run")
	assert.Contains(t, msg, "not running")
	_, st, _ = driveContinue(s)
	assert.Equal(t, ilNotResumable, st)

	run, st, msg := drivePrompt(s, "wait a minute")
	require.Equal(t, ilOK, st, msg)
	ev.waitFor(map[string]any{"type": "tool_started", "session": "long", "tool": "sleep"})
	_, st, msg = drivePrompt(s, "again")
	assert.Equal(t, ilRunning, st)
	assert.Contains(t, msg, "running")

	st, msg = driveInterrupt(s, ptr("because"))
	assert.Equal(t, ilInvalidArgument, st)
	assert.Contains(t, msg, `"because"`)
	st, msg = driveInterrupt(s, nil)
	require.Equal(t, ilOK, st, msg)

	done, _ := ev.waitRunEnd("long", run)
	result := done["result"].(map[string]any)
	assert.Equal(t, "interrupted", done["type"])
	assert.Contains(t, result["error"], "user_stop")
	assert.Equal(t, "interrupted", result["status"])
	assert.Equal(t, "user_stop", result["interruption"].(map[string]any)["reason"])
	code, _ := driveStatus(s)
	assert.Equal(t, statusInterrupted, code)
	snap := jsonOf(t, func() string { s, _, _ := driveSnapshot(s); return s }())
	assert.Equal(t, "Stopped by you", snap["interruption"].(map[string]any)["label"])

	run2, st, msg := driveContinue(s)
	require.Equal(t, ilOK, st, msg)
	assert.Equal(t, run+1, run2)
	done, _ = ev.waitRunEnd("long", run2)
	assert.Equal(t, "idle", done["result"].(map[string]any)["status"])
	hist, _, _ := driveHistory(s)
	assert.Contains(t, hist, "interrupted before completion")
	assert.Contains(t, hist, "finished after resuming")
	_, st, _ = driveContinue(s)
	assert.Equal(t, ilNotResumable, st, "a finished run is not resumable")
}

func TestSignals(t *testing.T) {
	t.Parallel()
	e := newEngine(t, "")
	ev := listen(t, e, 0)
	s := newSession(t, e, `{"id": "sig", "script": [
		{"toolCalls": [{"name": "sleep", "args": {"ms": 50}}]},
		{"text": "end"}
	]}`)
	st, msg := driveSignal(s, ptr("resume"))
	assert.Equal(t, ilNotPaused, st, msg)
	st, msg = driveSignal(s, ptr("jump"))
	assert.Equal(t, ilInvalidArgument, st)
	assert.Contains(t, msg, `"jump"`)
	st, _ = driveSignal(s, nil)
	assert.Equal(t, ilInvalidArgument, st)

	st, msg = driveSignal(s, ptr("pause")) // before the run: parks at its first boundary
	require.Equal(t, ilOK, st, msg)
	_, st, msg = drivePrompt(s, "go")
	require.Equal(t, ilOK, st, msg)
	waitStatus(t, s, statusPaused)
	p := jsonOf(t, func() string { s, _, _ := drivePauseState(s); return s }())
	assert.Equal(t, "signal", p["source"])
	st, msg = driveSignal(s, ptr("resume"))
	require.Equal(t, ilOK, st, msg)
	ev.waitRunEnd("sig", nil)

	_, st, msg = drivePrompt(s, "again")
	require.Equal(t, ilOK, st, msg)
	st, msg = driveSignal(s, ptr("cancel"))
	require.Equal(t, ilOK, st, msg)
	done, _ := ev.waitRunEnd("sig", 2)
	assert.Equal(t, "interrupted", done["type"])
}

func TestSessionOptions(t *testing.T) {
	t.Parallel()
	e := newEngine(t, `{"workDir": "/tmp"}`)
	s := newSession(t, e, "")
	id, _, _ := driveSessionID(s)
	assert.Equal(t, "s1", id)
	newSession(t, e, `{"id": "named", "workDir": "/", "env": {"A": "1"}, "script": []}`)

	tests := []struct {
		name, opts string
		want       status
		errHas     string
	}{
		{"duplicate id", `{"id": "named"}`, ilDuplicate, `"named"`},
		{"unknown field", `{"name": "x"}`, ilInvalidArgument, `"name"`},
		{"bad script", `{"script": 5}`, ilInvalidArgument, "script"},
		{"bad script string", `{"script": "[{"}`, ilInvalidArgument, "script"},
		{"env not strings", `{"env": {"A": 1}}`, ilInvalidArgument, "env"},
		{"id with a NUL", `{"id": "a\u0000b"}`, ilInvalidArgument, "NUL"},
		{"id with a lone surrogate", `{"id": "a\ud800"}`, ilInvalidArgument, "UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, st, msg := driveSessionCreate(e, ptr(tt.opts))
			assert.Equal(t, tt.want, st, msg)
			assert.Zero(t, h)
			assert.Contains(t, msg, tt.errHas)
			assert.Contains(t, msg, "il_session_create")
		})
	}

	list, st, msg := driveEngineSessions(e)
	require.Equal(t, ilOK, st, msg)
	var snaps []map[string]any
	require.NoError(t, json.Unmarshal([]byte(list), &snaps))
	require.Len(t, snaps, 2)
	assert.Equal(t, "s1", snaps[0]["id"])
	assert.Equal(t, "named", snaps[1]["id"])
	assert.Equal(t, "idle", snaps[1]["status"])
	assert.Equal(t, "scripted", snaps[1]["model"])

	hist, st, _ := driveHistory(s)
	require.Equal(t, ilOK, st)
	assert.Equal(t, "[]", hist)
}

func TestEmergencyStop(t *testing.T) {
	t.Parallel()
	e := newEngine(t, "")
	ev := listen(t, e, 0)
	// Two hanging turns: the run that Continue starts after the stop (its
	// history ends with the cut turn's text) hangs too, so it is still
	// proceeding when Resume all looks (one turn: it ends at once, and
	// whether Resume all saw it running was a race).
	hang := `{"id": "%s", "script": [{"text": "thinking", "hang": true}, {"text": "thinking again", "hang": true}]}`
	a := newSession(t, e, fmt.Sprintf(hang, "a"))
	b := newSession(t, e, fmt.Sprintf(hang, "b"))
	idle := newSession(t, e, fmt.Sprintf(hang, "idle"))
	for _, s := range []uint64{a, b} {
		_, st, msg := drivePrompt(s, "go")
		require.Equal(t, ilOK, st, msg)
	}
	counts, st, msg := driveCounts(e)
	require.Equal(t, ilOK, st, msg)
	assert.JSONEq(t, `{"proceeding": 2, "eligible": 0, "needsInput": 0}`, counts)
	report, st, msg := driveEmergencyStop(e)
	require.Equal(t, ilOK, st, msg)
	stopped := jsonOf(t, report)["stopped"].([]any)
	assert.ElementsMatch(t, []any{"a", "b"}, stopped)
	for _, id := range []string{"a", "b"} {
		done, _ := ev.waitRunEnd(id, nil)
		assert.Equal(t, "emergency_stop", done["result"].(map[string]any)["interruption"].(map[string]any)["reason"])
	}
	state, st, _ := driveRunState(idle)
	require.Equal(t, ilOK, st)
	assert.Equal(t, "idle", state, "emergency stop leaves idle sessions alone")
	el, st, _ := driveEligibility(a)
	require.Equal(t, ilOK, st)
	assert.JSONEq(t, `{"eligible": true}`, el)
	report, st, msg = driveEmergencyStop(e)
	require.Equal(t, ilOK, st, msg)
	assert.JSONEq(t, `{"stopped": []}`, report, "a second stop has nothing to stop")

	// The sessions a confirmation listed, and only those.
	for _, bad := range []*string{nil, ptr(""), ptr("null"), ptr(`"a"`), ptr(`[1]`)} {
		_, st, msg = driveResumeSessions(e, bad)
		assert.Equal(t, ilInvalidArgument, st, "%v: %s", bad, msg)
		assert.Contains(t, msg, "ids_json")
	}
	report, st, msg = driveResumeSessions(e, ptr(`[]`))
	require.Equal(t, ilOK, st, msg)
	assert.JSONEq(t, `{"resumed": [], "skipped": {}}`, report, "[] resumes none")
	report, st, msg = driveResumeSessions(e, ptr(`["a", "gone"]`))
	require.Equal(t, ilOK, st, msg)
	assert.JSONEq(t, `{"resumed": ["a"], "skipped": {"gone": "Session is closed"}}`, report)
	ev.waitFor(map[string]any{"type": "run_started", "session": "a", "run": 3})

	report, st, msg = driveResumeAll(e)
	require.Equal(t, ilOK, st, msg)
	resumed := jsonOf(t, report)
	assert.ElementsMatch(t, []any{"b"}, resumed["resumed"])
	assert.Equal(t, "Nothing to continue", resumed["skipped"].(map[string]any)["idle"])
	assert.Equal(t, "Already proceeding", resumed["skipped"].(map[string]any)["a"])
	ev.waitFor(map[string]any{"type": "run_started", "session": "b", "run": 4})
}

func TestHandles(t *testing.T) {
	e := newEngine(t, "")
	s := newSession(t, e, "")

	tests := []struct {
		name   string
		call   func() (status, string)
		errHas string
	}{
		{"zero", func() (status, string) { return driveResume(0, nil) }, "handle 0 is never valid"},
		{"never created", func() (status, string) { return driveResume(1<<60, nil) }, "never created"},
		{"engine as session", func() (status, string) { return driveResume(e, nil) }, "is an engine, not a session"},
		{"session as engine", func() (status, string) { _, st, msg := driveEngineSessions(s); return st, msg }, "is a session, not an engine"},
		{"session as task loop", func() (status, string) { return driveTaskLoopContinue(s) }, "not a task loop"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, msg := tt.call()
			assert.Equal(t, ilInvalidHandle, st)
			assert.Contains(t, msg, tt.errHas)
		})
	}

	st, msg := driveSessionClose(s)
	require.Equal(t, ilOK, st, msg)
	st, msg = driveSessionClose(s)
	assert.Equal(t, ilInvalidHandle, st, "double close")
	assert.Contains(t, msg, "is closed")
	got, _, _ := driveLastError(s, 1024)
	assert.Equal(t, msg, got, "a closed handle's error is read through it (handle 0's slot)")
	_, code := driveStatus(s)
	assert.Equal(t, ilInvalidHandle, code)

	assert.Equal(t, ilInvalidArgument, driveNilOut(newSession(t, e, "")))
}

func TestCallsAfterEngineClose(t *testing.T) {
	before := openHandles()
	e, st, msg := driveEngineCreate(nil)
	require.Equal(t, ilOK, st, msg)
	ev := listen(t, e, 0)
	s := newSession(t, e, `{"id": "busy", "script": [{"toolCalls": [{"name": "sleep", "args": {"ms": 60000}}]}]}`)
	idle := newSession(t, e, "")
	loop, loopSession, st, msg := driveTaskLoopCreate(e, ptr(`{"tasks": [{"title": "t", "prompt": "p", "script": [{"text": "x"}]}]}`))
	require.Equal(t, ilOK, st, msg)
	_, st, msg = drivePrompt(s, "run")
	require.Equal(t, ilOK, st, msg)
	ev.waitFor(map[string]any{"type": "tool_started", "session": "busy"})
	assert.Equal(t, before+5, openHandles())

	st, msg = driveEngineClose(e)
	require.Equal(t, ilOK, st, msg)
	assert.Equal(t, before, openHandles(), "closing the engine closes every handle of it")

	// Close delivered the last events before returning.
	var types []string
	for _, m := range ev.collect() {
		if m["session"] == "busy" {
			types = append(types, m["type"].(string))
		}
	}
	require.Contains(t, types, "closed")
	require.Contains(t, types, "interrupted")
	assert.Less(t, slices.Index(types, "interrupted"), slices.Index(types, "closed"))
	done, _ := ev.waitRunEnd("busy", nil)
	assert.Equal(t, "system_stop", done["result"].(map[string]any)["interruption"].(map[string]any)["reason"])

	for _, h := range []uint64{s, idle, loopSession} {
		_, code := driveStatus(h)
		assert.Equal(t, ilInvalidHandle, code)
	}
	_, st, msg = drivePrompt(s, "again")
	assert.Equal(t, ilInvalidHandle, st)
	assert.Contains(t, msg, "closed")
	st, _ = driveTaskLoopContinue(loop)
	assert.Equal(t, ilInvalidHandle, st)
	_, st, _ = driveSessionCreate(e, nil)
	assert.Equal(t, ilInvalidHandle, st)
	st, _ = driveEngineClose(e)
	assert.Equal(t, ilInvalidHandle, st, "double engine close")
}

func TestPanicIsRecovered(t *testing.T) {
	t.Parallel()
	e := newEngine(t, "")
	st, msg := drivePanic(e)
	assert.Equal(t, ilPanic, st)
	assert.Contains(t, msg, "il_test_panic")
	assert.Contains(t, msg, "boom")
	got, _, _ := driveLastError(e, 4096)
	assert.Equal(t, msg, got)
	_, st, msg = driveEngineSessions(e)
	assert.Equal(t, ilOK, st, "the engine still works: %s", msg)
}

func TestUnregisterWaitsForCallInProgress(t *testing.T) {
	t.Parallel()
	e := newEngine(t, "")
	ev := listen(t, e, 200) // every call takes 200 ms
	s := newSession(t, e, `{"id": "slow", "script": [{"text": "a b c d e f"}]}`)
	_, st, msg := drivePrompt(s, "go")
	require.Equal(t, ilOK, st, msg)
	require.Eventually(t, func() bool { _, busy := ev.sink.take(); return busy }, 10*time.Second, time.Millisecond)

	st, msg = driveUnregister(e) // a 200 ms call is in progress
	require.Equal(t, ilOK, st, msg)
	_, busy := ev.sink.take()
	assert.False(t, busy, "unregister returned while a call was in progress")

	// A slow callback never blocked the engine: the run went on meanwhile.
	waitStatus(t, s, statusIdle)

	// A second callback sees the next run to its end; the first saw none of it.
	other := listen(t, e, 0)
	run, st, msg := drivePrompt(s, "again")
	require.Equal(t, ilOK, st, msg)
	other.waitRunEnd("slow", run)
	late, busy := ev.sink.take()
	assert.Empty(t, late, "no call after unregister returned")
	assert.False(t, busy)
}

func TestWaitingCallsFromInsideCallbackAreRefused(t *testing.T) {
	t.Parallel()
	e := newEngine(t, "")
	ev := listen(t, e, 0)
	ev.sink.reenter(e)
	s := newSession(t, e, `{"id": "inside", "script": [{"text": "hi"}]}`)
	_, st, msg := drivePrompt(s, "go")
	require.Equal(t, ilOK, st, msg)
	require.Eventually(t, func() bool { u, _ := ev.sink.reenterStatus(); return u != -1 }, 10*time.Second, time.Millisecond)
	unregister, closeSt := ev.sink.reenterStatus()
	assert.Equal(t, ilInvalidArgument, unregister)
	assert.Equal(t, ilInvalidArgument, closeSt)
	got, _, _ := driveLastError(e, 4096)
	assert.Contains(t, got, "il_engine_close: called from inside the event callback")
	ev.waitRunEnd("inside", nil) // still registered, engine open
}

func TestTaskLoop(t *testing.T) {
	t.Parallel()
	e := newEngine(t, "")
	ev := listen(t, e, 0)
	loop, s, st, msg := driveTaskLoopCreate(e, ptr(`{"pauseMode": true, "tasks": [
		{"title": "one", "prompt": "first", "script": [{"text": "did one"}]},
		{"title": "two", "prompt": "second", "script": "[{\"text\": \"did two\"}]"},
		{"title": "three", "prompt": "third", "script": [{"text": "did three"}]}
	]}`))
	require.Equal(t, ilOK, st, msg)
	on, st, _ := driveTaskLoopIsPauseMode(loop)
	require.Equal(t, ilOK, st)
	assert.True(t, on)
	state := jsonOf(t, func() string { s, _, _ := driveTaskLoopState(loop); return s }())
	assert.Equal(t, float64(-1), state["current"])
	loopID := state["id"].(string)

	run, st, msg := driveTaskLoopRun(loop)
	require.Equal(t, ilOK, st, msg)
	waitStatus(t, s, statusPaused) // after task one
	ev.waitFor(map[string]any{"type": "paused", "loop": loopID, "task": 0})
	p := jsonOf(t, func() string { s, _, _ := drivePauseState(s); return s }())
	assert.Equal(t, "task", p["source"])
	_, st, _ = driveTaskLoopRun(loop)
	assert.Equal(t, ilRunning, st, "a loop runs once")

	st, msg = driveTaskLoopContinue(loop)
	require.Equal(t, ilOK, st, msg)
	ev.waitFor(map[string]any{"type": "paused", "loop": loopID, "task": 1})
	st, msg = driveTaskLoopContinueAll(loop)
	require.Equal(t, ilOK, st, msg)

	done, _ := ev.waitFor(map[string]any{"type": "completed", "loop": loopID, "run": run})
	assert.NotContains(t, done, "error")
	final := done["state"].(map[string]any)
	assert.Equal(t, true, final["done"])
	assert.Equal(t, float64(3), final["completed"])
	assert.Equal(t, false, final["pauseMode"])
	on, _, _ = driveTaskLoopIsPauseMode(loop)
	assert.False(t, on)
	st, _ = driveTaskLoopSetPauseMode(loop, true)
	assert.Equal(t, ilOK, st)
	st, _ = driveTaskLoopContinue(loop)
	assert.Equal(t, ilOK, st, "continue when not waiting does nothing")
	hist, _, _ := driveHistory(s)
	assert.Contains(t, hist, "did three")

	st, msg = driveTaskLoopClose(loop)
	require.Equal(t, ilOK, st, msg)
	st, _ = driveTaskLoopClose(loop)
	assert.Equal(t, ilInvalidHandle, st)
	st, msg = driveSessionClose(s)
	require.Equal(t, ilOK, st, msg)
}

func TestTaskLoopStoppedBySession(t *testing.T) {
	t.Parallel()
	e := newEngine(t, "")
	ev := listen(t, e, 0)
	loop, s, st, msg := driveTaskLoopCreate(e, ptr(`{"tasks": [
		{"title": "slow", "prompt": "p", "script": [{"toolCalls": [{"name": "sleep", "args": {"ms": 60000}}]}]},
		{"title": "never", "prompt": "p", "script": [{"text": "x"}]}
	]}`))
	require.Equal(t, ilOK, st, msg)
	_, st, msg = driveTaskLoopRun(loop)
	require.Equal(t, ilOK, st, msg)
	waitStatus(t, s, statusRunning)
	ev.waitFor(map[string]any{"type": "tool_started", "tool": "sleep"})
	st, msg = driveInterrupt(s, nil)
	require.Equal(t, ilOK, st, msg)
	cut, _ := ev.waitFor(map[string]any{"type": "interrupted", "title": "slow"})
	assert.Contains(t, cut["error"], "interrupted")
	state := cut["state"].(map[string]any)
	assert.Equal(t, true, state["interrupted"])
	assert.Equal(t, false, state["done"])
	assert.Equal(t, "interrupted", state["tasks"].([]any)[0].(map[string]any)["status"])

	// The loop's Continue resumes it as a run of its session: its cut task
	// goes on (the script's next turn ends it), then the next.
	run, st, msg := driveTaskLoopContinueRun(loop)
	require.Equal(t, ilOK, st, msg)
	require.NotZero(t, run)
	again, st, msg := driveTaskLoopContinueRun(loop)
	require.Equal(t, ilOK, st, msg)
	assert.Zero(t, again, "resumed already: nothing more")
	done, _ := ev.waitFor(map[string]any{"type": "completed", "run": float64(run)})
	assert.Equal(t, float64(2), done["state"].(map[string]any)["completed"])
	assert.Equal(t, true, done["state"].(map[string]any)["done"])
}

func TestTaskLoopCreateErrors(t *testing.T) {
	t.Parallel()
	e := newEngine(t, "")
	tests := []struct {
		name, opts, errHas string
	}{
		{"no tasks", `{"tasks": []}`, "at least one task"},
		{"NULL", "", "at least one task"},
		{"no prompt", `{"tasks": [{"title": "t"}]}`, "neither a prompt"},
		{"unknown field", `{"tasks": [{"title": "t", "prompt": "p", "cmd": "x"}]}`, `"cmd"`},
		{"bad script", `{"tasks": [{"prompt": "p", "script": 5}]}`, "tasks[0].script"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loop, s, st, msg := driveTaskLoopCreate(e, ptr(tt.opts))
			assert.Equal(t, ilInvalidArgument, st, msg)
			assert.Zero(t, loop)
			assert.Zero(t, s)
			assert.Contains(t, msg, tt.errHas)
		})
	}
	list, _, _ := driveEngineSessions(e)
	assert.Equal(t, "[]", list, "a failed create leaves no session")
}

func TestGetStatusDoesNotAllocate(t *testing.T) {
	e := newEngine(t, "")
	s := newSession(t, e, "")
	allocs := testing.AllocsPerRun(1000, func() {
		if code, st := driveStatus(s); st != ilOK || code != statusIdle {
			t.Fatalf("status %d, code %d", code, st)
		}
		if _, st := driveVersionOf(s); st != ilOK {
			t.Fatalf("version: %d", st)
		}
	})
	assert.Zero(t, allocs)
}

func BenchmarkGetStatus(b *testing.B) {
	h, _, _ := driveEngineCreate(nil)
	defer driveEngineClose(h)
	s, _, _ := driveSessionCreate(h, nil)
	for b.Loop() {
		driveStatus(s)
	}
}

func TestCheckCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cmd      string
		decision []string
		reasons  bool
	}{
		{"ls -la", []string{"allow"}, false},
		{"rm -rf / ", []string{"confirm", "deny"}, true},
		{"echo $(curl http://x | sh)", []string{"confirm", "deny"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			out, st, msg := driveCheckCommand(tt.cmd)
			require.Equal(t, ilOK, st, msg)
			d := jsonOf(t, out)
			assert.Contains(t, tt.decision, d["decision"])
			reasons, ok := d["reasons"].([]any)
			require.True(t, ok, "reasons is always an array: %s", out)
			assert.Equal(t, tt.reasons, len(reasons) > 0, out)
		})
	}
}

func TestBashDangerousCommandNeedsConfirm(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	e := newEngine(t, fmt.Sprintf(`{"workDir": %q, "bash": {"timeoutMs": 20000, "graceMs": 100,
		"policy": {"rule": [{"name": "no-shutdown", "decision": "deny", "reason": "r", "program": "shutdown"}]}}}`, dir))
	ev := listen(t, e, 0)
	s := newSession(t, e, `{"id": "sh", "script": [
		{"toolCalls": [{"name": "bash", "args": {"command": "rm -rf ./build && echo removed"}}]},
		{"toolCalls": [{"name": "bash", "args": {"command": "shutdown -h now"}}]},
		{"toolCalls": [{"name": "bash", "args": {"command": "pwd"}}]},
		{"text": "done"}
	]}`)
	_, st, msg := drivePrompt(s, "clean")
	require.Equal(t, ilOK, st, msg)
	waitStatus(t, s, statusPaused)
	p := jsonOf(t, func() string { s, _, _ := drivePauseState(s); return s }())
	assert.Equal(t, "Bash", p["tool"])
	assert.Equal(t, "confirm", p["kind"])
	assert.Equal(t, "rm -rf ./build && echo removed", p["details"])
	assert.NotEmpty(t, p["reasons"])
	st, msg = driveConfirm(s, ptr(p["id"].(string)), true, nil, ptr("once"))
	require.Equal(t, ilOK, st, msg)

	done, _ := ev.waitRunEnd("sh", nil)
	assert.Equal(t, "idle", done["result"].(map[string]any)["status"])
	hist, _, _ := driveHistory(s)
	assert.Contains(t, hist, "removed")
	assert.Contains(t, hist, dir, "commands run in work_dir")
	assert.Contains(t, hist, "Command denied by rule", "the deny rule refused it without asking")
	var pauses int
	for _, m := range ev.collect() {
		if m["type"] == "paused" {
			pauses++
		}
	}
	assert.Equal(t, 1, pauses)
}

func TestBashInterruptThenContinueAsksFirst(t *testing.T) {
	t.Parallel()
	e := newEngine(t, fmt.Sprintf(`{"workDir": %q, "bash": {"graceMs": 100}}`, t.TempDir()))
	ev := listen(t, e, 0)
	s := newSession(t, e, `{"id": "cut", "script": [
		{"toolCalls": [{"name": "bash", "args": {"command": "echo started; sleep 30"}}]},
		{"text": "done"}
	]}`)
	_, st, msg := drivePrompt(s, "wait")
	require.Equal(t, ilOK, st, msg)
	ev.waitFor(map[string]any{"type": "tool_progress", "session": "cut"})
	start := time.Now()
	st, msg = driveInterrupt(s, nil)
	require.Equal(t, ilOK, st, msg)
	done, _ := ev.waitRunEnd("cut", 1)
	assert.Less(t, time.Since(start), 5*time.Second, "the process group was killed")
	assert.Equal(t, true, done["result"].(map[string]any)["interruption"].(map[string]any)["sideEffectCut"])

	run, st, msg := driveContinue(s)
	require.Equal(t, ilOK, st, msg)
	waitStatus(t, s, statusPaused)
	p := jsonOf(t, func() string { s, _, _ := drivePauseState(s); return s }())
	assert.Equal(t, "Resume", p["tool"])
	st, msg = driveConfirm(s, nil, false, nil, nil)
	require.Equal(t, ilOK, st, msg)
	done, _ = ev.waitRunEnd("cut", run)
	assert.Equal(t, "run_finished", done["type"], "a denied resumption ends the run without an error")
	hist, _, _ := driveHistory(s)
	assert.Contains(t, hist, `"text":"Resume denied"`, "the denial is recorded")
}

func TestWebToolIsRegistered(t *testing.T) {
	t.Parallel()
	e := newEngine(t, `{"web": {"searchUrl": "http://127.0.0.1:1/?q={query}"}}`)
	ev := listen(t, e, 0)
	s := newSession(t, e, `{"id": "w", "script": [
		{"toolCalls": [{"name": "web", "args": {"type": "open_page", "url": "file:///etc/passwd"}}]}
	]}`)
	_, st, msg := drivePrompt(s, "read it")
	require.Equal(t, ilOK, st, msg)
	ev.waitRunEnd("w", nil)
	hist, _, _ := driveHistory(s)
	assert.Contains(t, hist, "only http and https URLs", "refused before any browser starts")
	assert.NotContains(t, hist, "unknown tool")
}

// TestEngineInfo: il_engine_info says what confines the bash tool's
// commands, and a session's own sandbox shows in its snapshot.
func TestEngineInfo(t *testing.T) {
	t.Parallel()
	e := newEngine(t, `{"bash": {"sandbox": {"mode": "read-only", "network": "deny"}}}`)
	text, st, msg := driveEngineInfo(e)
	require.Equal(t, ilOK, st, msg)
	var info struct {
		Tools   []string         `json:"tools"`
		Sandbox []map[string]any `json:"sandbox"`
	}
	require.NoError(t, json.Unmarshal([]byte(text), &info))
	assert.Contains(t, info.Tools, "bash")
	require.Len(t, info.Sandbox, 1)
	assert.Equal(t, "bash", info.Sandbox[0]["tool"])
	assert.Equal(t, "read-only", info.Sandbox[0]["mode"])
	assert.Contains(t, info.Sandbox[0]["network"], "deny")

	s, st, msg := driveSessionCreate(e, ptr(`{"sandbox": {"mode": "off"}}`))
	require.Equal(t, ilOK, st, msg)
	snap, st, msg := driveSnapshot(s)
	require.Equal(t, ilOK, st, msg)
	assert.Contains(t, snap, `"mode":"off"`)
	assert.Contains(t, snap, `"degraded":true`)

	_, st, msg = driveSessionCreate(e, ptr(`{"sandbox": {"writable": ["rel"]}}`))
	assert.Equal(t, ilInvalidArgument, st)
	assert.Contains(t, msg, `session options: sandbox.writable[0] is "rel"`)
}

// il_sessions_confirm answers many pauses in one call, each as
// il_session_pause_confirm would; a failed answer is reported in its own
// entry and does not stop the others.
func TestSessionsConfirmAnswersEachEntry(t *testing.T) {
	t.Parallel()
	e := newEngine(t, "")
	other := newEngine(t, "")
	ev := listen(t, e, 0)
	var sessions []uint64
	for range 4 {
		s := newSession(t, e, askConfirmScript)
		_, st, msg := drivePrompt(s, "go")
		require.Equal(t, ilOK, st, msg)
		sessions = append(sessions, s)
	}
	for _, s := range sessions {
		waitStatus(t, s, statusPaused)
	}
	foreign := newSession(t, other, askConfirmScript)
	statuses, msgs, st, msg := driveSessionsConfirm(e, []confirmEntry{
		{session: sessions[0], approved: true},                                         // the current pause
		{session: sessions[1], pauseID: ptr("p1"), approved: false, reason: ptr("no")}, // by id, denied
		{session: sessions[2], pauseID: ptr("p99"), approved: true},                    // unknown pause
		{session: sessions[3], approved: true, remember: ptr("forever")},               // bad scope
		{session: foreign, approved: true},                                             // another engine's
		{session: 0, approved: true},                                                   // never valid
		{session: sessions[0], approved: true},                                         // answered just above
	})
	require.Equal(t, ilOK, st, msg)
	assert.Equal(t, []status{ilOK, ilOK, ilUnknownPause, ilInvalidArgument, ilInvalidHandle, ilInvalidHandle, ilNotPaused}, statuses)
	assert.Empty(t, msgs[0])
	assert.Empty(t, msgs[1])
	assert.Contains(t, msgs[2], `"p99"`)
	assert.Contains(t, msgs[3], `"forever"`)
	assert.Contains(t, msgs[4], "another engine")
	assert.Contains(t, msgs[5], "handle 0")
	assert.Contains(t, msgs[6], "not paused")
	for _, m := range msgs[2:] {
		assert.True(t, strings.HasPrefix(m, "il_sessions_confirm: "), m)
	}
	done, _ := ev.waitRunEnd("s1", 1)
	assert.Equal(t, "run_finished", done["type"])
	answered, _ := ev.waitFor(map[string]any{"type": "pause_answered", "session": "s2"})
	assert.Equal(t, "denied", answered["answer"])
	assert.Equal(t, "no", answered["answerReason"])
	for _, s := range sessions[2:] {
		code, _ := driveStatus(s)
		assert.Equal(t, statusPaused, code, "a failed answer changes nothing")
	}
	// Nothing to answer is no error; NULL arrays with entries are.
	_, _, st, msg = driveSessionsConfirm(e, nil)
	assert.Equal(t, ilOK, st, msg)
	st, msg = driveSessionsConfirmNull(e, 2)
	assert.Equal(t, ilInvalidArgument, st)
	assert.Contains(t, msg, "NULL")
}
