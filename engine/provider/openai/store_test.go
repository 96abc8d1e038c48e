package openai_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/provider/openai"
)

// A session created with its own OpenAI-compatible model comes back after
// a restart talking to the same server and model, with the same settings;
// the API key stays in the variable it names and a header that looks
// secret is not stored (and the user is told). Without a loader for
// "openai" the session says so instead of using another model.
func TestSessionModelSurvivesARestart(t *testing.T) {
	srv := server(t)
	t.Setenv("INTERLOCK_TEST_KEY", "sk-env-secret-1")
	path := filepath.Join(t.TempDir(), "s.db")
	own, err := openai.New(openai.WithBaseURL(srv.URL), openai.WithModel("text"), openai.WithAPIKeyEnv("INTERLOCK_TEST_KEY"),
		openai.WithHeader("X-Title", "interlock"), openai.WithHeader("X-Api-Key", "sk-header-secret"), openai.WithSystemPrompt("be brief"))
	require.NoError(t, err)
	other := engine.NewScriptedProvider([]engine.ScriptTurn{{Text: "the engine's model"}})
	loader := engine.WithProviderLoader("openai", openai.Load)

	e, err := engine.Open(t.Context(), engine.WithStore(path), engine.WithProvider(other), loader)
	require.NoError(t, err)
	sub := e.Subscribe()
	s, err := e.NewSession(engine.SessionOptions{ID: "mine", Provider: own})
	require.NoError(t, err)
	warning, err := sub.Next(t.Context())
	require.NoError(t, err)
	sub.Close()
	assert.Equal(t, engine.EventWarning, warning.Type)
	assert.Contains(t, warning.Text, "header X-Api-Key")
	assert.Contains(t, warning.Text, "apiKeyEnv")
	_, err = s.Prompt(t.Context(), "hi")
	require.NoError(t, err)
	require.NoError(t, e.Close())

	var file []byte
	for _, f := range []string{path, path + "-wal"} {
		b, _ := os.ReadFile(f)
		file = append(file, b...)
	}
	require.NotEmpty(t, file)
	assert.NotContains(t, string(file), "sk-header-secret", "a secret-looking header is not stored")
	assert.NotContains(t, string(file), "sk-env-secret-1", "the key's value is not stored")
	assert.Contains(t, string(file), "INTERLOCK_TEST_KEY", "the key's variable name is")

	t.Setenv("INTERLOCK_TEST_KEY", "sk-env-secret-2")
	e, err = engine.Open(t.Context(), engine.WithStore(path), engine.WithProvider(other), loader)
	require.NoError(t, err)
	s, err = e.Session("mine")
	require.NoError(t, err)
	res, err := s.Prompt(t.Context(), "again")
	require.NoError(t, err)
	assert.Equal(t, engine.StatusIdle, res.Status)
	reqs := srv.Requests()
	require.Len(t, reqs, 2, "the restored session talks to the same server")
	second := reqs[1]
	assert.Equal(t, "text", second.Model)
	assert.Equal(t, "Bearer sk-env-secret-2", second.Header.Get("Authorization"), "the key is read from the variable, now")
	assert.Equal(t, "interlock", second.Header.Get("X-Title"))
	assert.Empty(t, second.Header.Get("X-Api-Key"), "the secret header was not kept")
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(second.Body, &body))
	require.NotEmpty(t, body.Messages)
	assert.Equal(t, "system", body.Messages[0].Role)
	assert.Equal(t, "be brief", body.Messages[0].Content)
	require.NoError(t, e.Close())

	// No loader for "openai": the run fails saying what to do; the
	// engine's model is not used in its place.
	e, err = engine.Open(t.Context(), engine.WithStore(path), engine.WithProvider(other))
	require.NoError(t, err)
	defer e.Close()
	s, err = e.Session("mine")
	require.NoError(t, err)
	_, err = s.Prompt(t.Context(), "and again")
	require.ErrorIs(t, err, engine.ErrProviderUnavailable)
	assert.Contains(t, err.Error(), "WithProviderLoader")
	assert.Len(t, srv.Requests(), 2)
	for _, m := range s.History() {
		assert.False(t, strings.Contains(m.Text, "the engine's model"), "never another model")
	}
}

func TestSecretHeader(t *testing.T) {
	t.Parallel()
	for name, secret := range map[string]bool{
		"Authorization": true, "Proxy-Authorization": true, "X-Api-Key": true, "api-key": true, "X-Auth-Token": true,
		"Cookie": true, "X-Client-Secret": true, "HTTP-Referer": false, "X-Title": false, "OpenAI-Organization": false,
	} {
		assert.Equal(t, secret, openai.SecretHeader(name), name)
	}
}
