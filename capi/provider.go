package main

/*
#include "interlock.h"
*/
import "C"

import (
	"bytes"
	"encoding/json"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/provider/openai"
)

// modelProvider returns the provider of a "provider" field, nil when it is
// absent: {"type": "openai", "baseUrl", "model", "apiKeyEnv", "headers",
// "maxTokens", "temperature", "system", "maxRetries", "retryWaitMs"}.
func modelProvider(field string, raw json.RawMessage) (engine.Provider, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var kind struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(raw, &kind); err != nil {
		return nil, errorf(C.IL_ERR_INVALID_ARGUMENT, "%s: %v: pass an object like {\"type\": \"openai\", \"baseUrl\": \"http://127.0.0.1:11434/v1\", \"model\": \"qwen2.5\"}", field, err)
	}
	if kind.Type != "openai" {
		return nil, errorf(C.IL_ERR_INVALID_ARGUMENT, "%s: type %q: the provider type must be \"openai\" (an OpenAI-compatible server); for scripted turns use \"script\"", field, kind.Type)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var cfg openai.Config
	if err := dec.Decode(&cfg); err != nil {
		return nil, errorf(C.IL_ERR_INVALID_ARGUMENT, "%s: %v: the fields are type, baseUrl, model, apiKeyEnv, headers, maxTokens, temperature, system, maxRetries, retryWaitMs", field, err)
	}
	p, err := openai.New(cfg.Options()...)
	if err != nil {
		return nil, errorf(C.IL_ERR_INVALID_ARGUMENT, "%s: %v", field, err)
	}
	return p, nil
}
