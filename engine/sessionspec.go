package engine

import (
	"encoding/json"
	"slices"
)

// SessionSpec is the JSON a binding creates a session from: the JS API's
// createSession options as the library takes them. The binding makes the
// model of Script (see ScriptProvider) or Provider and applies Sandbox (the
// bash tool's policy for the session).
type SessionSpec struct {
	ID      string `json:"id"`
	WorkDir string `json:"workDir"`
	// Env are the session's environment variables (KEY: value).
	Env      map[string]string `json:"env"`
	Script   json.RawMessage   `json:"script"`
	Provider json.RawMessage   `json:"provider"`
	Sandbox  json.RawMessage   `json:"sandbox"`
	Tools    *[]string         `json:"tools"`
}

// Environ is Env as SessionOptions.Environ takes it: KEY=value, by key.
func (spec SessionSpec) Environ() []string {
	if spec.Env == nil {
		return nil
	}
	env := make([]string, 0, len(spec.Env))
	for k, v := range spec.Env {
		env = append(env, k+"="+v)
	}
	slices.Sort(env)
	return env
}

// DecodeSessionSpec decodes text strictly (DecodeStrict). A host that makes
// many sessions alike (10,000 from one script) sends the same text again
// and again: the last text's decoding is reused (a SessionSpec is only
// read: the engine copies what it keeps).
func (e *Engine) DecodeSessionSpec(text string) (SessionSpec, error) {
	e.lastSpec.mu.Lock()
	defer e.lastSpec.mu.Unlock()
	if text != "" && text == e.lastSpec.text {
		return e.lastSpec.spec, nil
	}
	var spec SessionSpec
	if text == "" {
		return spec, nil
	}
	if err := DecodeStrict([]byte(text), &spec); err != nil {
		return spec, err
	}
	e.lastSpec.text, e.lastSpec.spec = text, spec
	return spec, nil
}

// ScriptProvider returns the scripted provider of a script given as JSON:
// turns as ParseScript reads them, or a JSON string holding them; nil for
// none (empty or null). Sessions created one after another with the same
// script share one provider (it holds no per-session state): 10,000
// sessions from one script parse it once and hold one copy.
func (e *Engine) ScriptProvider(script json.RawMessage) (Provider, error) {
	if len(script) == 0 || string(script) == "null" {
		return nil, nil
	}
	e.lastScript.mu.Lock()
	defer e.lastScript.mu.Unlock()
	if e.lastScript.p != nil && string(script) == e.lastScript.raw {
		return e.lastScript.p, nil
	}
	data := []byte(script)
	var text string
	if json.Unmarshal(script, &text) == nil {
		data = []byte(text)
	}
	turns, err := ParseScript(data)
	if err != nil {
		return nil, err
	}
	p := NewScriptedProvider(turns)
	e.lastScript.raw, e.lastScript.p = string(script), p
	return p, nil
}
