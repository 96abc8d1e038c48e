package engine_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
)

func TestParseScript(t *testing.T) {
	t.Parallel()
	want := []engine.ScriptTurn{{Text: "hi", ToolCalls: []engine.ScriptCall{{Name: "sleep", Args: []byte(`{"ms": 1}`)}}}, {Text: "done"}}
	for _, in := range []string{
		`[{"text": "hi", "tool_calls": [{"name": "sleep", "args": {"ms": 1}}]}, {"text": "done"}]`,
		` {"turns": [{"text": "hi", "tool_calls": [{"name": "sleep", "args": {"ms": 1}}]}, {"text": "done"}]} `,
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
		{`[{"tool_calls": [{"args": {}}]}]`, `turn 1, tool call 1 has no "name"`},
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
