package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// StorableProvider is a Provider a store can keep: it describes itself as
// JSON with a "type" field, never with a secret (an API key stays in the
// environment variable the description names), and an engine with a
// ProviderLoader for that type makes it again after a restart. A session
// created with its own storable provider comes back with the same model; one
// whose provider is not storable comes back with the engine's provider.
type StorableProvider interface {
	Provider
	// ProviderSpec returns the description and, in words a user can act
	// on, what was left out of it because it looks secret (e.g. "header
	// Authorization"): after a restart the provider runs without it.
	ProviderSpec() (spec json.RawMessage, left []string)
}

// ProviderLoader makes a provider again from its stored description (see
// StorableProvider and WithProviderLoader).
type ProviderLoader func(spec json.RawMessage) (Provider, error)

// ProviderSpec describes a scripted provider: its turns.
func (p *ScriptedProvider) ProviderSpec() (json.RawMessage, []string) {
	spec, _ := json.Marshal(struct {
		Type  string       `json:"type"`
		Turns []ScriptTurn `json:"turns"`
	}{"script", p.turns})
	return spec, nil
}

// loadScript is the ProviderLoader of type "script".
func loadScript(spec json.RawMessage) (Provider, error) {
	var doc struct {
		Turns json.RawMessage `json:"turns"`
	}
	if err := json.Unmarshal(spec, &doc); err != nil {
		return nil, err
	}
	turns, err := ParseScript(doc.Turns)
	if err != nil {
		return nil, err
	}
	return NewScriptedProvider(turns), nil
}

// providerType is the "type" of a stored provider description.
func providerType(spec json.RawMessage) string {
	var t struct {
		Type string `json:"type"`
	}
	json.Unmarshal(spec, &t)
	return t.Type
}

// ErrProviderUnavailable: a restored session's own model could not be made
// again (see StorableProvider); its runs fail with this error.
var ErrProviderUnavailable = errors.New("the session's model is not available")

// unavailableProvider stands for a restored session's model that could not
// be made again: every turn fails with the reason.
type unavailableProvider struct{ err error }

func (u unavailableProvider) Stream(context.Context, ModelRequest) (Stream, error) {
	return nil, fmt.Errorf("%w: %w", ErrProviderUnavailable, u.err)
}
