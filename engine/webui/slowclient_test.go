package webui_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/webui"
)

// closedByServer reads c to its end: the server closed it before deadline.
func closedByServer(t *testing.T, c net.Conn, deadline time.Duration) bool {
	t.Helper()
	require.NoError(t, c.SetReadDeadline(time.Now().Add(deadline)))
	_, err := io.Copy(io.Discard, c)
	return err == nil // EOF: closed; a timeout: still held
}

// A local process, without the token, opens connections and never ends
// its request headers (slowloris): each is closed after the header
// timeout, not held for good (they would pile up until the host process,
// the engine's own, has no descriptors left).
func TestAClientThatNeverEndsItsHeadersIsDropped(t *testing.T) {
	t.Parallel()
	srv := serve(t, newEngine(t), webui.WithTimeouts(200*time.Millisecond, time.Minute))
	c, err := net.Dial("tcp", srv.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	fmt.Fprintf(c, "GET /api/state HTTP/1.1\r\nHost: %s\r\nX-Slow: ", srv.Addr())
	assert.True(t, closedByServer(t, c, 5*time.Second), "the connection is still open")
}

// An event stream whose client stopped reading (a frozen tab, a script that
// hung) is ended once a write has waited the stream timeout: it does not
// hold its connection and goroutines for good (the engine and the other
// observers never wait for it: the engine coalesces a slow subscription).
// Streams are limited: one more is refused with a clear error while they
// are open, and taken again once the stalled one has been ended.
func TestAnEventStreamNobodyReadsIsEnded(t *testing.T) {
	t.Parallel()
	e := newEngine(t)
	// Every event carries the session's snapshot, its pause's 64 KB details
	// included: a few hundred fill the socket's buffers.
	s := newSession(t, e, "s", engine.ScriptTurn{ToolCalls: []engine.ScriptCall{ask(engine.PauseConfirm, "Run it?", strings.Repeat("x", 64<<10))}})
	sub := s.Subscribe()
	defer sub.Close()
	_, _, err := s.Start(t.Context(), "go")
	require.NoError(t, err)
	waitEvent(t, sub, isType(engine.EventPaused))
	srv := serve(t, e, webui.WithTimeouts(time.Minute, 200*time.Millisecond), webui.WithMaxStreams(1))
	c, err := net.Dial("tcp", srv.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	fmt.Fprintf(c, "GET /api/events?token=%s HTTP/1.1\r\nHost: %s\r\n\r\n", tokenOf(t, srv), srv.Addr())
	_, err = c.Read(make([]byte, 1)) // the stream has begun: it reads the events from here
	require.NoError(t, err)

	other := newClient(t, srv)
	r := other.do(http.MethodGet, "/api/events", nil, nil)
	assert.Equal(t, http.StatusServiceUnavailable, r.Status)
	assert.Contains(t, r.Body["error"], "too many event streams open (1)")

	for i := range 1000 { // 64 MB: far more than the socket buffers hold; fewer events than the engine keeps
		sig := engine.SignalPause
		if i%2 == 1 {
			sig = engine.SignalResume
		}
		require.NoError(t, s.Signal(sig))
	}
	// The stalled stream is ended: another one is taken. (2.7 s alone under
	// -race; the 64 MB of events took longer than 5 s at load average 22.)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, other.base+"/api/events", nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+other.token)
		res, err := other.http.Do(req)
		require.NoError(t, err, "the stalled stream was never ended")
		res.Body.Close()
		if res.StatusCode == http.StatusOK {
			break
		}
		require.Equal(t, http.StatusServiceUnavailable, res.StatusCode)
		select {
		case <-ctx.Done():
			t.Fatal("the stalled stream was never ended")
		case <-time.After(20 * time.Millisecond):
		}
	}
}
