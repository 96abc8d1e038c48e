package webui

import "time"

// WithTimeouts shortens, for a test, how long a client may take over its
// request headers and an event stream over a write.
func WithTimeouts(header, streamWrite time.Duration) Option {
	return func(c *config) { c.headerTimeout, c.streamWriteTimeout = header, streamWrite }
}

// WithMaxStreams sets, for a test, how many event streams may be open at once.
func WithMaxStreams(n int32) Option { return func(c *config) { c.maxStreams = n } }

// WithOfflineAfter sets, for a test, how long a fleet's host may miss its
// heartbeat before it is shown offline.
func WithOfflineAfter(d time.Duration) Option { return func(c *config) { c.offlineAfter = d } }
