package openaitest

import (
	"bufio"
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

//go:embed testdata
var recordings embed.FS

// Request is one request the server received.
type Request struct {
	Model  string
	Turn   int
	Header http.Header
	Body   []byte // the JSON request body
}

// Server replays recordings. Close it when done.
type Server struct {
	// URL is the API root to configure as base URL: "http://127.0.0.1:PORT/v1".
	URL string

	srv     *http.Server
	closing chan struct{}
	once    sync.Once
	serving sync.WaitGroup // the Serve loop

	mu       sync.Mutex
	attempts map[string]int // requests per model and turn
	requests []Request
	open     int           // responses being written
	changed  chan struct{} // closed and replaced at every change of requests or open
}

// Start listens on addr (a 127.0.0.1 or localhost address; port 0 picks a
// free one) and serves until Close.
func Start(addr string) (*Server, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || (host != "127.0.0.1" && host != "localhost") {
		return nil, fmt.Errorf("openaitest: address %q: listen on 127.0.0.1:PORT only (port 0 picks a free one)", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("openaitest: listen on %s: %w", addr, err)
	}
	s := &Server{URL: "http://" + ln.Addr().String() + "/v1", closing: make(chan struct{}), attempts: map[string]int{}, changed: make(chan struct{})}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.handle), ReadHeaderTimeout: 10 * time.Second}
	s.serving.Go(func() { _ = s.srv.Serve(ln) })
	return s, nil
}

// Close ends stalled streams, closes every connection and waits for the
// handlers. It is idempotent.
func (s *Server) Close() error {
	s.once.Do(func() { close(s.closing) })
	err := s.srv.Close()
	s.serving.Wait()
	_ = s.WaitClosed(context.Background()) // handlers return once closing is closed
	return err
}

// WaitRequests blocks until the server has received n requests or ctx ends.
func (s *Server) WaitRequests(ctx context.Context, n int) error {
	return s.waitUntil(ctx, func() bool { return len(s.requests) >= n }, fmt.Sprintf("%d requests", n))
}

// WaitClosed blocks until no response is being written (every stream has
// ended or its client has gone) or ctx ends.
func (s *Server) WaitClosed(ctx context.Context) error {
	return s.waitUntil(ctx, func() bool { return s.open == 0 }, "every stream closed")
}

func (s *Server) waitUntil(ctx context.Context, cond func() bool, what string) error {
	for {
		s.mu.Lock()
		ok, changed := cond(), s.changed
		s.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("openaitest: waiting for %s: %w", what, context.Cause(ctx))
		}
	}
}

// changeLocked wakes the waiters.
func (s *Server) changeLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.open++
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.open--
		s.changeLocked()
		s.mu.Unlock()
	}()
	s.serve(w, r)
}

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// Models lists the recorded models.
func Models() []string {
	entries, _ := fs.ReadDir(recordings, "testdata")
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		writeError(w, http.StatusNotFound, fmt.Sprintf("openaitest serves POST /v1/chat/completions only, not %s %s", r.Method, r.URL.Path), "invalid_request_error", "unknown_url", nil)
		return
	}
	body, err := io.ReadAll(r.Body)
	var req struct {
		Model    string    `json:"model"`
		Stream   bool      `json:"stream"`
		Messages []message `json:"messages"`
	}
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil || !req.Stream {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("openaitest: the body must be a streaming Chat Completions request (\"stream\": true): %v", err), "invalid_request_error", nil, nil)
		return
	}
	turn := 1
	for i := len(req.Messages) - 1; i >= 0 && req.Messages[i].Role != "user"; i-- {
		if req.Messages[i].Role == "assistant" {
			turn++
		}
	}
	s.mu.Lock()
	key := req.Model + "/" + strconv.Itoa(turn)
	s.attempts[key]++
	attempt := s.attempts[key]
	s.requests = append(s.requests, Request{Model: req.Model, Turn: turn, Header: r.Header.Clone(), Body: body})
	s.changeLocked()
	s.mu.Unlock()

	if why, param := invalidToolOrder(req.Messages); why != "" {
		writeError(w, http.StatusBadRequest, why, "invalid_request_error", nil, param)
		return
	}
	rec, err := recording(req.Model, turn, attempt)
	if err != nil {
		writeError(w, http.StatusNotFound, err.Error(), "invalid_request_error", "model_not_found", nil)
		return
	}
	s.replay(w, r, rec)
}

// recording finds and parses the response for a model's turn and attempt.
func recording(model string, turn, attempt int) (*http.Response, error) {
	dir := path.Join("testdata", path.Clean("/" + model)[1:])
	data, err := recordings.ReadFile(fmt.Sprintf("%s/%d-%d.http", dir, turn, attempt))
	if errors.Is(err, fs.ErrNotExist) {
		data, err = recordings.ReadFile(fmt.Sprintf("%s/%d.http", dir, turn))
	}
	if err != nil {
		return nil, fmt.Errorf("openaitest: no recording for model %q turn %d: use one of %v", model, turn, Models())
	}
	res, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(data)), nil)
	if err != nil {
		return nil, fmt.Errorf("openaitest: recording %s/%d: %w", dir, turn, err)
	}
	return res, nil
}

// replay writes a recording: event streams event by event, flushed.
func (s *Server) replay(w http.ResponseWriter, r *http.Request, rec *http.Response) {
	body, _ := io.ReadAll(rec.Body)
	then := rec.Header.Get("X-Replay-Then")
	delay, _ := strconv.Atoi(rec.Header.Get("X-Replay-Delay-Ms"))
	for k, v := range rec.Header {
		if !strings.HasPrefix(k, "X-Replay-") {
			w.Header()[k] = v
		}
	}
	w.WriteHeader(rec.StatusCode)
	rc := http.NewResponseController(w)
	if !strings.HasPrefix(rec.Header.Get("Content-Type"), "text/event-stream") {
		_, _ = w.Write(body)
		return
	}
	events := strings.SplitAfter(string(body), "\n\n")
	for i, ev := range events {
		if ev == "" {
			continue
		}
		if i > 0 && delay > 0 && !s.wait(r, time.Duration(delay)*time.Millisecond) {
			return
		}
		if _, err := io.WriteString(w, ev); err != nil {
			return
		}
		_ = rc.Flush()
	}
	switch then {
	case "stall":
		s.wait(r, -1)
	case "reset":
		conn, buf, err := rc.Hijack()
		if err != nil {
			panic(http.ErrAbortHandler)
		}
		_ = buf.Flush()
		if tcp, ok := conn.(*net.TCPConn); ok {
			_ = tcp.SetLinger(0) // close with RST, not FIN
		}
		_ = conn.Close()
	}
}

// wait sleeps d (forever if d < 0) unless the client leaves or the server
// closes; it reports whether the whole wait passed.
func (s *Server) wait(r *http.Request, d time.Duration) bool {
	var timeout <-chan time.Time
	if d >= 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-timeout:
		return true
	case <-r.Context().Done():
	case <-s.closing:
	}
	return false
}

func writeError(w http.ResponseWriter, status int, msg, typ string, code, param any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": param, "code": code}})
}
