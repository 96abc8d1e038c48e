package webui

import "time"

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
}

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
