package main

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
	same := `{"script": [{"text": "one"}], "env": {"A": "1"}}`
	a := newSession(t, e, same)
	b := newSession(t, e, same)
	assert.NotEqual(t, a, b)
	ida, _, _ := driveSessionID(a)
	idb, _, _ := driveSessionID(b)
	assert.NotEqual(t, ida, idb, "each gets its own id")
	_, st, msg := driveSessionCreate(e, ptr(same[:len(same)-1])) // the same text cut short
	assert.Equal(t, ilInvalidArgument, st, msg)
	_, st, msg = driveSessionCreate(e, ptr(`{"script": [{"text": "one"}], "env": {"A": "1"}, "colour": 1}`))
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
