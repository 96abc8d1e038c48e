package webui_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
)

// A body that is too big, not JSON, JSON followed by more, or not said to
// be JSON is refused with a 4xx saying what is wrong, and nothing is
// applied: the pause is still pending.
func TestABadRequestBodyIsRefusedAndAppliesNothing(t *testing.T) {
	t.Parallel()
	e := newEngine(t)
	s := newSession(t, e, "s", engine.ScriptTurn{ToolCalls: []engine.ScriptCall{ask(engine.PauseConfirm, "Run it?", "rm -rf build")}}, engine.ScriptTurn{Text: "ok"})
	sub := s.Subscribe()
	defer sub.Close()
	_, _, err := s.Start(t.Context(), "go")
	require.NoError(t, err)
	paused := waitEvent(t, sub, isType(engine.EventPaused))
	srv := serve(t, e)
	c := newClient(t, srv)
	answer := fmt.Sprintf(`{"epoch": %q, "version": %d, "pause_id": %q, "answer": "approved"}`, c.state().Epoch, paused.Version, paused.Pause.ID)

	tests := []struct {
		name, contentType, body string
		status                  int
		says                    string
	}{
		{"over 1 MB", "application/json", answer[:len(answer)-1] + `, "reason": "` + strings.Repeat("x", 2<<20) + `"}`, http.StatusRequestEntityTooLarge, "larger than 1 MB"},
		{"not JSON", "application/json", `epoch=x&answer=approved`, http.StatusBadRequest, "not the expected JSON"},
		{"cut short", "application/json", answer[:20], http.StatusBadRequest, "not the expected JSON"},
		{"a second value after it", "application/json", answer + ` {"answer": "denied"}`, http.StatusBadRequest, "more after the JSON"},
		{"a form's content type", "application/x-www-form-urlencoded", answer, http.StatusUnsupportedMediaType, "Content-Type: application/json"},
		{"text/plain (what a page may send anywhere without asking)", "text/plain", answer, http.StatusUnsupportedMediaType, "Content-Type: application/json"},
		{"no content type", "", answer, http.StatusUnsupportedMediaType, "Content-Type: application/json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, c.base+"/api/answer?session=s", bytes.NewReader([]byte(tt.body)))
			require.NoError(t, err)
			req.Header.Set("Authorization", "Bearer "+c.token)
			req.Header.Set("Origin", c.base)
			if tt.contentType != "" {
				req.Header.Set("Content-Type", tt.contentType)
			}
			res, err := c.http.Do(req)
			require.NoError(t, err)
			defer res.Body.Close()
			text, _ := io.ReadAll(res.Body)
			assert.Equal(t, tt.status, res.StatusCode, "%s", text)
			assert.Contains(t, string(text), tt.says)
			_, pending := s.Pause()
			assert.True(t, pending, "the pause was answered")
		})
	}
	r := c.do(http.MethodPost, "/api/answer?session=s", nil, map[string]string{"Content-Type": "application/json"})
	assert.Equal(t, http.StatusBadRequest, r.Status, "no body: %v", r.Body)
	_, pending := s.Pause()
	require.True(t, pending)
}
