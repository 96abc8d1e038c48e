package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
)

// IL_EVENTS_RECORDS: a line per item, session events renamed to camelCase
// behind their type, everything else behind "*" as the library writes it.
func TestRecordsFormat(t *testing.T) {
	t.Parallel()
	var reported []string
	d := &dispatcher{reportTo: func(msg string) { reported = append(reported, msg) }}
	d.format.Store(1)
	at := time.Date(2026, 11, 23, 20, 0, 0, 0, time.UTC)
	items := []engine.FeedItem{
		{Event: engine.Event{Session: "s 1\n", Version: 3, Type: engine.EventPaused, Status: engine.StatusPaused, Step: 1, At: at, MonoNS: 42,
			Pause: &engine.Pause{ID: "p1", Kind: engine.PauseConfirm, Source: engine.SourceTool, Message: "line1\nline2", At: at}}},
		{Event: engine.Event{Session: "s", Type: engine.EventToolFinished, CallID: "c_1", At: at}},
		{Event: engine.Event{Session: "s", Type: engine.EventPauseAnswered, Pause: &engine.Pause{ID: "odd id", Kind: engine.PauseContinue}}},
		{Event: engine.Event{Session: "s", Type: engine.EventText, Pause: &engine.Pause{ID: "p7", Kind: engine.PauseContinue}}},
		{Extra: json.RawMessage(`{"type":"tool_call","call_id":"c","args":{"work_dir":"x"}}`)},
		{Event: engine.Event{Loop: &engine.TaskEvent{Loop: "l1", Type: "task_begin"}}},
	}
	d.hasCb.Store(true)
	d.beginBatch()
	d.addToBatch(items[:2])
	d.addToBatch(items[2:])
	out := d.endBatch()
	require.NotNil(t, out)
	require.Equal(t, byte(0), out[len(out)-1], "NUL-terminated")
	lines := strings.Split(strings.TrimSuffix(string(out[:len(out)-1]), "\n"), "\n")
	require.Len(t, lines, 6, "one line per item: %q", out)
	typ, rest, _ := strings.Cut(lines[0], " ")
	assert.Equal(t, "paused", typ)
	pause, body, _ := strings.Cut(rest, " ")
	assert.Equal(t, "confirm/p1", pause, "the current pause, without parsing")
	assert.True(t, strings.HasPrefix(body, `{"session":"s 1\n",`), "the JSON starts with the session: %s", body)
	var ev map[string]any
	require.NoError(t, json.Unmarshal([]byte(body), &ev))
	assert.Equal(t, "s 1\n", ev["session"])
	assert.Equal(t, "42", ev["monoNs"])
	assert.Equal(t, "line1\nline2", ev["pause"].(map[string]any)["message"])
	assert.NotContains(t, body, "_", "every key renamed")
	assert.Equal(t, `tool_finished - {"session":"s","version":0,"type":"tool_finished","status":"idle","step":0,"at":"2026-11-23T20:00:00Z","monoNs":"0","callId":"c_1"}`, lines[1])
	assert.True(t, strings.HasPrefix(lines[2], `pause_answered ? {`), "an id the token cannot hold: %s", lines[2])
	assert.True(t, strings.HasPrefix(lines[3], `text continue/p7 {`), lines[3])
	assert.Equal(t, `* {"type":"tool_call","call_id":"c","args":{"work_dir":"x"}}`, lines[4], "host messages as the library writes them")
	assert.True(t, strings.HasPrefix(lines[5], `* {"loop":"l1"`), lines[5])
	assert.Contains(t, lines[5], `"pauseMode":false`, "a task loop's event in the engine's wire format")
	assert.Empty(t, reported)
}

func TestSetEventFormatRejectsUnknown(t *testing.T) {
	t.Parallel()
	e := newEngine(t, `{}`)
	st, msg := driveSetEventFormat(e, 7)
	assert.Equal(t, ilInvalidArgument, st)
	assert.Contains(t, msg, "event format 7 is unknown")
	st, msg = driveSetEventFormat(e, 1)
	assert.Equal(t, ilOK, st, msg)
}

// Sessions made one after another with the same script share its parsed
// provider; a different script is never served from that cache.
func TestSessionScriptIsSharedOnlyWhenEqual(t *testing.T) {
	t.Parallel()
	e := newEngine(t, `{}`)
	texts := []string{"one", "one", "two", "one"}
	for i, text := range texts {
		s := newSession(t, e, fmt.Sprintf(`{"id": "sc%d", "script": [{"text": %q}]}`, i, text))
		_, st, msg := drivePrompt(s, "go")
		require.Equal(t, ilOK, st, msg)
		waitStatus(t, s, statusIdle)
		hist, st, msg := driveHistory(s)
		require.Equal(t, ilOK, st, msg)
		assert.Contains(t, hist, fmt.Sprintf(`"text":%q`, text), "session %d plays its own script", i)
	}
}

// Options repeated from one session to the next are decoded once; what
// differs (another script, an id, bad JSON) is decoded anew.
func TestSessionOptionsReusedOnlyWhenEqual(t *testing.T) {
	t.Parallel()
	e := newEngine(t, `{}`)
	same := `{"script": [{"text": "one"}], "env": ["A=1"]}`
	a := newSession(t, e, same)
	b := newSession(t, e, same)
	assert.NotEqual(t, a, b)
	ida, _, _ := driveSessionID(a)
	idb, _, _ := driveSessionID(b)
	assert.NotEqual(t, ida, idb, "each gets its own id")
	_, st, msg := driveSessionCreate(e, ptr(same[:len(same)-1])) // the same text cut short
	assert.Equal(t, ilInvalidArgument, st, msg)
	_, st, msg = driveSessionCreate(e, ptr(`{"script": [{"text": "one"}], "env": ["A=1"], "colour": 1}`))
	assert.Equal(t, ilInvalidArgument, st)
	assert.Contains(t, msg, "colour")
	c, idc, st, msg := driveSessionCreateID(e, ptr(`{"id": "named", "script": [{"text": "two"}]}`))
	require.Equal(t, ilOK, st, msg)
	assert.Equal(t, "named", idc, "the id comes with the handle")
	d, idd, st, msg := driveSessionCreateID(e, ptr(same))
	require.Equal(t, ilOK, st, msg)
	assert.NotContains(t, []string{ida, idb, idc}, idd, "reused options, a new id")
	if id, _, _ := driveSessionID(d); id != idd {
		t.Errorf("il_session_create gave id %q, il_session_id %q", idd, id)
	}
	for s, want := range map[uint64]string{a: "one", c: "two", d: "one"} {
		_, st, msg := drivePrompt(s, "go")
		require.Equal(t, ilOK, st, msg)
		waitStatus(t, s, statusIdle)
		hist, _, _ := driveHistory(s)
		assert.Contains(t, hist, fmt.Sprintf(`"text":%q`, want))
	}
	id, _, _ := driveSessionID(c)
	assert.Equal(t, "named", id)
}
