package webui

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/netutil"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/hub"
)

// maxConns bounds the connections served at once (a tab holds an event
// stream and a few connections for its requests).
const maxConns = 1024

// Server is a running web UI. Close stops it; the engine and its runs are
// not affected.
type Server struct {
	eng     *engine.Engine // nil for a fleet view
	fleet   *fleetView     // WithFleet: the hub's sessions, not eng's
	cfg     config
	ln      net.Listener
	http    *http.Server
	url     string
	hosts   map[string]bool // allowed Host headers
	origins map[string]bool // allowed Origin headers
	// epoch identifies this server instance: pause ids and versions of
	// another instance (before a restart) are refused.
	epoch string

	streams atomic.Int32 // event streams open

	ctx    context.Context // ends SSE streams on Close
	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once
	err    error
}

// Serve starts the web UI for eng and returns once it listens. It stops
// when ctx ends or Close is called. With WithFleet it serves the fleet of a
// hub instead, and eng may be nil.
func Serve(ctx context.Context, eng *engine.Engine, opts ...Option) (*Server, error) {
	cfg := config{addr: "127.0.0.1:0", headerTimeout: 10 * time.Second, streamWriteTimeout: 30 * time.Second, maxStreams: 256,
		logf: func(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...) }}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.token == "" {
		cfg.token = randomHex(16)
	} else if len(cfg.token) < 16 {
		return nil, fmt.Errorf("webui: %w: %d characters, want at least 16 (or leave it empty for a random one)", ErrWeakToken, len(cfg.token))
	}
	host, _, err := net.SplitHostPort(cfg.addr)
	if err != nil {
		return nil, fmt.Errorf("webui: listen address %q: %w (want host:port, e.g. 127.0.0.1:0)", cfg.addr, err)
	}
	loopback := isLoopback(host)
	if !loopback && cfg.fleetURL != "" {
		return nil, fmt.Errorf("webui: listen address %q: %w: the fleet view answers and stops every host's sessions, and is served on loopback only; reach it from elsewhere through an SSH tunnel (ssh -L)", cfg.addr, ErrNonLoopback)
	}
	if !loopback && !cfg.allowRemote {
		return nil, fmt.Errorf("webui: listen address %q: %w: pass webui.AllowRemote() (engine.serve({host, allowRemote: true}) from JS) if every machine that can reach it may control the sessions", cfg.addr, ErrNonLoopback)
	}
	s := &Server{eng: eng, cfg: cfg, epoch: randomHex(8), hosts: map[string]bool{}, origins: map[string]bool{}}
	switch {
	case cfg.fleetURL != "":
		f, err := hub.Open(ctx, cfg.fleetURL)
		switch {
		case errors.Is(err, engine.ErrInvalidArgument):
			return nil, fmt.Errorf("webui: fleet view: %w: give the hub's PostgreSQL URL, e.g. postgres://interlock@db.internal/fleet", err)
		case errors.Is(err, hub.ErrNewerSchema):
			return nil, fmt.Errorf("webui: fleet view: %w", err)
		case err != nil:
			return nil, fmt.Errorf("webui: fleet view: %w: is PostgreSQL running there, and may this role connect to that database?", err)
		}
		if cfg.offlineAfter > 0 {
			f.OfflineAfter = cfg.offlineAfter
		}
		s.fleet = newFleetView(f, s.epoch)
		if err := s.fleet.read(ctx); err != nil {
			f.Close()
			return nil, fmt.Errorf("webui: fleet view: %w", err)
		}
	case eng == nil:
		return nil, fmt.Errorf("webui: %w: no engine to serve: pass one, or WithFleet(url) to serve the fleet of a hub", engine.ErrInvalidArgument)
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		s.closeFleet()
		return nil, fmt.Errorf("webui: listen on %q: %w (is the port in use?)", cfg.addr, err)
	}
	s.ln = ln
	port := ln.Addr().(*net.TCPAddr).Port
	names := []string{"127.0.0.1", "localhost", "[::1]"}
	if !loopback {
		names = append(names, hostForURL(host))
		cfg.logf("webui: WARNING: listening on %s, not loopback: anyone who can reach it with the token controls every session", ln.Addr())
	}
	for _, n := range names {
		hp := n + ":" + strconv.Itoa(port)
		s.hosts[hp] = true
		s.origins["http://"+hp] = true
	}
	urlHost := "127.0.0.1"
	if !loopback && host != "" && !net.ParseIP(host).IsUnspecified() {
		urlHost = hostForURL(host)
	}
	s.url = "http://" + urlHost + ":" + strconv.Itoa(port) + "/?token=" + url.QueryEscape(cfg.token)
	s.ctx, s.cancel = context.WithCancel(ctx)
	// Any local process can connect, token or not: one that never ends its
	// headers, or leaves a connection idle, is dropped, and at most
	// maxConns connections are served at once (the rest wait to be
	// accepted), so none can pile up connections until the host process,
	// the engine's own, has no descriptors left.
	s.http = &http.Server{Handler: s.guard(s.routes()), BaseContext: func(net.Listener) context.Context { return s.ctx },
		ReadHeaderTimeout: cfg.headerTimeout, IdleTimeout: 2 * time.Minute}
	s.wg.Add(2)
	if s.fleet != nil {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.fleet.watch(s.ctx, cfg.logf)
		}()
	}
	go func() {
		defer s.wg.Done()
		if err := s.http.Serve(netutil.LimitListener(ln, maxConns)); err != nil && !errors.Is(err, http.ErrServerClosed) {
			cfg.logf("webui: serve: %v", err)
		}
	}()
	go func() { // ctx ending closes the server like Close
		defer s.wg.Done()
		<-s.ctx.Done()
		s.err = s.http.Close()
	}()
	return s, nil
}

// URL is the address to open, token included ("http://127.0.0.1:PORT/?token=…").
func (s *Server) URL() string { return s.url }

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Close stops the server and ends every event stream. It is idempotent and
// waits for the server's goroutines.
func (s *Server) Close() error {
	s.once.Do(func() {
		s.cancel()
		s.wg.Wait()
		s.closeFleet()
	})
	return s.err
}

func (s *Server) closeFleet() {
	if s.fleet != nil {
		s.fleet.f.Close()
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on Linux
	}
	return hex.EncodeToString(b)
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func hostForURL(host string) string {
	if ip := net.ParseIP(host); ip != nil && ip.To4() == nil {
		return "[" + host + "]"
	}
	return host
}

func itoa(n int) string { return strconv.Itoa(n) }
