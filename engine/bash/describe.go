package bash

import (
	"encoding/json"

	"github.com/interlock-dev/interlock/engine"
)

// Describe tells the model what the tool does and the JSON Schema of Args.
func (t *Tool) Describe() engine.ToolSpec {
	return engine.ToolSpec{
		Description: "Run a shell command in the session's working directory and return its output. " +
			"Dangerous commands ask the user to confirm first; a denied command returns an error.",
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"command":{"type":"string","description":"the shell command"},` +
			`"timeout_ms":{"type":"integer","minimum":0,"description":"a timeout in milliseconds (0: the default)"}},` +
			`"required":["command"]}`),
	}
}
