package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/interlock-dev/interlock/engine"
)

// secretHeaderWords mark a header whose value is a credential: a header
// whose lower-case name contains one is never stored.
var secretHeaderWords = []string{"auth", "key", "token", "secret", "password", "cookie"}

// SecretHeader reports whether a header's value looks like a credential
// (Authorization, X-Api-Key, a token, a cookie...): such headers are not
// kept by a session store.
func SecretHeader(name string) bool {
	lower := strings.ToLower(name)
	return slices.ContainsFunc(secretHeaderWords, func(w string) bool { return strings.Contains(lower, w) })
}

// ProviderSpec describes the provider for a session store: its Config as
// JSON, with the API key's environment variable name (never its value),
// and without the headers that look secret (SecretHeader), which are
// listed in left. Load makes the provider again from it.
func (p *Provider) ProviderSpec() (json.RawMessage, []string) {
	c := Config{Type: "openai", BaseURL: p.cfg.baseURL, Model: p.cfg.model, APIKeyEnv: p.cfg.apiKeyEnv,
		MaxTokens: p.cfg.maxTokens, Temperature: p.cfg.temperature, System: p.cfg.system}
	if c.BaseURL == DefaultBaseURL {
		c.BaseURL = ""
	}
	d := defaultConfig()
	if p.cfg.maxRetries != d.maxRetries || p.cfg.backoff != d.backoff {
		n, ms := p.cfg.maxRetries, int(p.cfg.backoff.Milliseconds())
		c.MaxRetries, c.RetryWaitMS = &n, &ms
	}
	var left []string
	for k, v := range p.cfg.headers {
		if SecretHeader(k) {
			left = append(left, "header "+k)
			continue
		}
		if c.Headers == nil {
			c.Headers = map[string]string{}
		}
		c.Headers[k] = v
	}
	slices.Sort(left)
	spec, _ := json.Marshal(c)
	return spec, left
}

// Load makes a provider from a description made by ProviderSpec (or any
// Config as JSON): the engine's ProviderLoader for type "openai".
//
//	e, err := engine.Open(ctx, engine.WithStore(path), engine.WithProviderLoader("openai", openai.Load))
func Load(spec json.RawMessage) (engine.Provider, error) {
	dec := json.NewDecoder(bytes.NewReader(spec))
	dec.DisallowUnknownFields()
	var c Config
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("openai provider description: %w", err)
	}
	if c.Type != "openai" {
		return nil, fmt.Errorf("openai provider description: type %q, not \"openai\"", c.Type)
	}
	return New(c.Options()...)
}
