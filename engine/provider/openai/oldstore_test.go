package openai_test

import (
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/provider/openai"
)

// snakeKeys are the keys of a model's description that stores of schema
// 9 and before wrote snake_case (engine/store migration 10).
var snakeKeys = map[string]string{"baseUrl": "base_url", "apiKeyEnv": "api_key_env", "maxTokens": "max_tokens",
	"maxRetries": "max_retries", "retryWaitMs": "retry_wait_ms", "toolCalls": "tool_calls", "chunkDelayMs": "chunk_delay_ms"}

// oldForm writes a model's description as schema 9 did: its keys and its
// turns' keys snake_case (a tool call's args and the headers as they are).
func oldForm(t *testing.T, spec map[string]any) {
	t.Helper()
	rename := func(m map[string]any) {
		for k, v := range m {
			if old, ok := snakeKeys[k]; ok {
				delete(m, k)
				m[old] = v
			}
		}
	}
	rename(spec)
	turns, _ := spec["turns"].([]any)
	for _, turn := range turns {
		rename(turn.(map[string]any))
	}
}

// A store written before the engine took camelCase options (schema 9: a
// session's own model, a task's, in snake_case) opens, and its sessions
// behave as before: the script plays its tool call and its turns, the
// OpenAI-compatible model is the same server, model and settings. Without
// the migration, both models are unavailable after the restart.
func TestAStoreOfSnakeCaseModelsOpensAndBehavesTheSame(t *testing.T) {
	srv := server(t)
	path := filepath.Join(t.TempDir(), "s.db")
	loader := engine.WithProviderLoader("openai", openai.Load)
	e, err := engine.Open(t.Context(), engine.WithStore(path), loader)
	require.NoError(t, err)
	own, err := openai.New(openai.WithBaseURL(srv.URL), openai.WithModel("text"), openai.WithAPIKeyEnv("INTERLOCK_TEST_OLD_KEY"),
		openai.WithMaxTokens(5), openai.WithHeader("X-Title", "old_store"), openai.WithRetries(1, 7*time.Millisecond))
	require.NoError(t, err)
	_, err = e.NewSession(engine.SessionOptions{ID: "openai", Provider: own})
	require.NoError(t, err)
	script := engine.NewScriptedProvider([]engine.ScriptTurn{
		{ToolCalls: []engine.ScriptCall{{Name: "sleep", Args: json.RawMessage(`{"ms":1,"tool_calls":"the user's own"}`)}}},
		{Text: "slept and done", ChunkDelayMS: 1},
	})
	s, err := e.NewSession(engine.SessionOptions{ID: "script", Provider: script})
	require.NoError(t, err)
	_, err = s.NewTaskLoop([]engine.Task{{Title: "t", Prompt: "p", Provider: script}})
	require.NoError(t, err)
	require.NoError(t, e.Close())

	// The same file as schema 9 wrote it.
	db, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	downgrade := func(query, update string, path ...string) {
		rows, err := db.Query(query)
		require.NoError(t, err)
		var keys, values []string
		for rows.Next() {
			var key, text string
			require.NoError(t, rows.Scan(&key, &text))
			var doc map[string]any
			require.NoError(t, json.Unmarshal([]byte(text), &doc))
			spec := doc
			for _, p := range path {
				spec = spec[p].(map[string]any)
			}
			oldForm(t, spec)
			b, _ := json.Marshal(doc)
			keys, values = append(keys, key), append(values, string(b))
		}
		require.NoError(t, rows.Err())
		require.NotEmpty(t, keys)
		for i := range keys {
			_, err := db.Exec(update, values[i], keys[i])
			require.NoError(t, err)
		}
	}
	downgrade(`SELECT session, options FROM session_options`, `UPDATE session_options SET options = ? WHERE session = ?`, "provider")
	downgrade(`SELECT loop, provider FROM task_states WHERE provider IS NOT NULL`, `UPDATE task_states SET provider = ? WHERE loop = ?`)
	_, err = db.Exec(`PRAGMA user_version = 9`)
	require.NoError(t, err)
	var before string
	require.NoError(t, db.QueryRow(`SELECT group_concat(options) FROM session_options`).Scan(&before))
	for _, k := range []string{`"base_url"`, `"api_key_env"`, `"max_tokens"`, `"max_retries"`, `"retry_wait_ms"`, `"tool_calls":[`, `"chunk_delay_ms"`} {
		require.Contains(t, before, k, "the old form")
	}
	require.NoError(t, db.Close())

	e, err = engine.Open(t.Context(), engine.WithStore(path), loader)
	require.NoError(t, err)
	defer e.Close()
	s, err = e.Session("script")
	require.NoError(t, err)
	res, err := s.Prompt(t.Context(), "go")
	require.NoError(t, err)
	assert.Equal(t, "slept and done", res.Text, "the script's turns, its tool call included")
	var calls []string
	for _, m := range s.History() {
		for _, c := range m.ToolCalls {
			calls = append(calls, c.Name+" "+string(c.Args))
		}
	}
	assert.Equal(t, []string{`sleep {"ms":1,"tool_calls":"the user's own"}`}, calls, "a tool call's args are kept as written")

	o, err := e.Session("openai")
	require.NoError(t, err)
	t.Setenv("INTERLOCK_TEST_OLD_KEY", "sk-old")
	res, err = o.Prompt(t.Context(), "hi")
	require.NoError(t, err)
	assert.Equal(t, engine.StatusIdle, res.Status)
	reqs := srv.Requests()
	require.Len(t, reqs, 1, "the same server")
	assert.Equal(t, "text", reqs[0].Model)
	assert.Equal(t, "Bearer sk-old", reqs[0].Header.Get("Authorization"), "the key's variable")
	assert.Equal(t, "old_store", reqs[0].Header.Get("X-Title"))
	assert.Contains(t, string(reqs[0].Body), `"max_tokens":5`)
	require.NoError(t, e.Close())

	db, err = sql.Open("sqlite", path)
	require.NoError(t, err)
	defer db.Close()
	var after, task string
	require.NoError(t, db.QueryRow(`SELECT group_concat(options) FROM session_options`).Scan(&after))
	require.NoError(t, db.QueryRow(`SELECT provider FROM task_states WHERE provider IS NOT NULL`).Scan(&task))
	for _, text := range []string{after, task} {
		for _, k := range []string{`"base_url"`, `"api_key_env"`, `"max_tokens"`, `"max_retries"`, `"retry_wait_ms"`, `"tool_calls":[`, `"chunk_delay_ms"`} {
			assert.NotContains(t, text, k, "migrated")
		}
		assert.Contains(t, text, `"toolCalls":[{"args":{"ms":1,"tool_calls":"the user's own"},"name":"sleep"}]`, "a tool call's args as written")
	}
	assert.True(t, strings.Contains(after, `"retryWaitMs":7`) && strings.Contains(after, `"maxTokens":5`), after)
}
