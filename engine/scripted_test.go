package engine_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
)

func TestParseScript(t *testing.T) {
	t.Parallel()
	want := []engine.ScriptTurn{{Text: "hi", ToolCalls: []engine.ScriptCall{{Name: "sleep", Args: []byte(`{"ms": 1}`)}}}, {Text: "done"}}
	for _, in := range []string{
		`[{"text": "hi", "toolCalls": [{"name": "sleep", "args": {"ms": 1}}]}, {"text": "done"}]`,
		` {"turns": [{"text": "hi", "toolCalls": [{"name": "sleep", "args": {"ms": 1}}]}, {"text": "done"}]} `,
	} {
		got, err := engine.ParseScript([]byte(in))
		require.NoError(t, err, in)
		assert.Equal(t, want, got)
	}
	empty, err := engine.ParseScript([]byte(`[]`))
	require.NoError(t, err)
	assert.Empty(t, empty)

	for _, tt := range []struct{ in, want string }{
		{``, "EOF"},
		{`nonsense`, "invalid character"},
		{`{"foo": 1}`, `unknown field "foo"`},
		{`{}`, `the object has no "turns"`},
		{`[{"txt": "typo"}]`, `unknown field "txt"`},
		{`[{"toolCalls": [{"args": {}}]}]`, `turn 1, tool call 1 has no "name"`},
		{`[{"text": 3}]`, "cannot unmarshal number"},
		{`[] []`, "unexpected data after the script"},
		{`"a string"`, "cannot unmarshal string"},
	} {
		_, err := engine.ParseScript([]byte(tt.in))
		require.ErrorIs(t, err, engine.ErrInvalidArgument, tt.in)
		assert.Contains(t, err.Error(), tt.want, tt.in)
		assert.Contains(t, err.Error(), "A script is a JSON array of turns", "the error says what a script looks like")
	}
}

// Sessions made one after another from one script share its provider; a
// script may come as a JSON string holding the turns.
func TestScriptProviderSharesTheLastScript(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, nil)
	script := json.RawMessage(`[{"text": "hi"}]`)
	p1, err := e.ScriptProvider(script)
	require.NoError(t, err)
	p2, err := e.ScriptProvider(json.RawMessage(`[{"text": "hi"}]`))
	require.NoError(t, err)
	assert.Same(t, p1, p2, "one provider for one script")
	p3, err := e.ScriptProvider(json.RawMessage(`"[{\"text\": \"bye\"}]"`))
	require.NoError(t, err)
	assert.NotSame(t, p1, p3)
	none, err := e.ScriptProvider(json.RawMessage(`null`))
	require.NoError(t, err)
	assert.Nil(t, none)
	_, err = e.ScriptProvider(json.RawMessage(`[{"txt": "typo"}]`))
	assert.ErrorIs(t, err, engine.ErrInvalidArgument)
}
