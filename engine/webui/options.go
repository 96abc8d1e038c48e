package webui

import (
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/interlock-dev/interlock/engine"
)

// Option configures a Server.
type Option func(*config)

type config struct {
	addr        string
	allowRemote bool
	token       string
	logf        func(format string, args ...any)
	// headerTimeout: how long a client may take over its request headers;
	// streamWriteTimeout: how long an event stream's write may wait for a
	// client that does not read.
	headerTimeout, streamWriteTimeout time.Duration
	maxStreams                        int32 // event streams open at once
	fleetURL                          string
	policies                          ProjectPolicies // WithProjectPolicies
	offlineAfter                      time.Duration   // the fleet's hub.Fleet.OfflineAfter, for tests
}

// WithFleet serves the fleet of the hub at url (a PostgreSQL URL, as
// hub.Open takes it) instead of an engine's sessions: every host's
// sessions, with a host column and the host's connection state; answers,
// Continue, Resume all and the emergency stop go through the hub to the
// hosts. The server needs no engine (Serve's eng may be nil). It listens on
// loopback only, AllowRemote or not.
func WithFleet(url string) Option { return func(c *config) { c.fleetURL = url } }

// WithAddr sets the listen address (default "127.0.0.1:0", a free port on
// loopback). A non-loopback address also needs AllowRemote.
func WithAddr(addr string) Option { return func(c *config) { c.addr = addr } }

// WithPort listens on 127.0.0.1:port (0 picks a free port).
func WithPort(port int) Option {
	return func(c *config) { c.addr = "127.0.0.1:" + itoa(port) }
}

// AllowRemote permits a non-loopback listen address. Anyone who can reach
// it and has the token controls every session; a warning is logged.
func AllowRemote() Option { return func(c *config) { c.allowRemote = true } }

// WithToken sets the access token instead of a random one, e.g. to keep open
// tabs working across a restart of the server. It must be at least 16 characters.
func WithToken(token string) Option { return func(c *config) { c.token = token } }

// WithLogf sets where warnings go (default: standard error).
func WithLogf(logf func(format string, args ...any)) Option {
	return func(c *config) { c.logf = logf }
}

// Config is how a host asks for the web UI as JSON (the JS API's serve
// options): the listen host (default 127.0.0.1) and port (0 picks a free
// one), AllowRemote and the token; Fleet serves the fleet of the hub at
// HubURL (WithFleet).
type Config struct {
	Port        int    `json:"port"`
	Host        string `json:"host"`
	AllowRemote bool   `json:"allowRemote"`
	Token       string `json:"token"`
	Fleet       bool   `json:"fleet"`
	// HubURL is the hub's URL for Fleet: the engine's own hub, for
	// engine.serve({fleet: true}); the command's --url for agent-interlock hub.
	HubURL string `json:"hubUrl"`
}

// Options returns the options c asks for; a port out of range is an
// engine.ErrInvalidArgument.
func (c Config) Options() ([]Option, error) {
	if c.Port < 0 || c.Port > 65535 {
		return nil, fmt.Errorf("%w: port is %d: it must be 0 (a free port) to 65535", engine.ErrInvalidArgument, c.Port)
	}
	host := c.Host
	if host == "" {
		host = "127.0.0.1"
	}
	opts := []Option{WithAddr(net.JoinHostPort(host, strconv.Itoa(c.Port))), WithToken(c.Token)}
	if c.AllowRemote {
		opts = append(opts, AllowRemote())
	}
	if c.Fleet {
		if c.HubURL == "" {
			return nil, fmt.Errorf("%w: fleet: true serves the fleet of the engine's hub, and this engine has none: create it with a hub (new Engine({hub: {url, host}})), or run agent-interlock hub --url URL", engine.ErrInvalidArgument)
		}
		opts = append(opts, WithFleet(c.HubURL))
	}
	return opts, nil
}
