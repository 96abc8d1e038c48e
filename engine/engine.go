package engine

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Engine owns sessions, their runs and task loops, the tool registry and
// the default provider, and publishes one event stream for all of them.
type Engine struct {
	tools       Registry
	provider    Provider
	idleTimeout time.Duration
	workDir     string
	// defaultPauseMode is default_pause_mode for task loops.
	defaultPauseMode bool

	runSeq atomic.Uint64 // run ids, unique in the engine

	mu       sync.Mutex
	sessions map[string]*Session
	created  map[*Session]uint64 // creation order, for listing
	seq      uint64
	closed   bool
	log      eventLog[Event] // every session's and task loop's events, in one order

	feeds      atomic.Pointer[feedList] // read without a lock when publishing
	coalesced  atomic.Uint64            // deltas merged in feeds (Stats)
	feedMu     sync.Mutex               // serializes changes of feeds
	feedsEnded bool
}

// New returns an engine. The built-in tools "sleep" and "ask" are registered;
// options may replace them.
func New(opts ...Option) *Engine {
	e := &Engine{
		idleTimeout: 2 * time.Minute,
		sessions:    make(map[string]*Session),
		created:     make(map[*Session]uint64),
		log:         eventLog[Event]{max: 4096},
	}
	e.tools.Register("sleep", Described(NewSleepTool(), "Wait for a number of milliseconds (a long-running tool the user can stop).",
		json.RawMessage(`{"type":"object","properties":{"ms":{"type":"integer","minimum":0,"description":"how long to wait, in milliseconds"}},"required":["ms"]}`)))
	e.tools.Register("ask", Described(NewAskTool(), "Ask the user to continue or to confirm something, and wait for the answer.",
		json.RawMessage(`{"type":"object","properties":{"kind":{"type":"string","enum":["continue","confirm"]},"message":{"type":"string"},"details":{"type":"string"}},"required":["kind","message"]}`)))
	for _, o := range opts {
		o(e)
	}
	return e
}

// Tools is the engine's tool registry.
func (e *Engine) Tools() *Registry { return &e.tools }

// NewSession creates a session.
func (e *Engine) NewSession(o SessionOptions) (*Session, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, fmt.Errorf("engine: %w", ErrClosed)
	}
	e.seq++
	id := o.ID
	if id == "" {
		id = "s" + strconv.FormatUint(e.seq, 10)
		for e.sessions[id] != nil { // a caller chose this id: take the next
			e.seq++
			id = "s" + strconv.FormatUint(e.seq, 10)
		}
	}
	if _, dup := e.sessions[id]; dup {
		return nil, fmt.Errorf("session %q: %w", id, ErrDuplicateSession)
	}
	p := o.Provider
	if p == nil {
		p = e.provider
	}
	dir := o.Dir
	if dir == "" {
		dir = e.workDir
	}
	s := &Session{id: id, eng: e, provider: p, dir: dir, environ: slices.Clone(o.Environ), log: eventLog[Event]{max: 256}}
	e.sessions[id] = s
	e.created[s] = e.seq
	return s, nil
}

// Session returns the session with id.
func (e *Engine) Session(id string) (*Session, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s, ok := e.sessions[id]
	if !ok {
		return nil, fmt.Errorf("session %q: %w", id, ErrUnknownSession)
	}
	return s, nil
}

// Sessions returns every open session in creation order.
func (e *Engine) Sessions() []*Session {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]*Session, 0, len(e.sessions))
	for _, s := range e.sessions {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *Session) int { return cmp.Compare(e.created[a], e.created[b]) })
	return out
}

// Subscribe returns a reader of every session's events from now on.
func (e *Engine) Subscribe() *Subscription[Event] { return e.log.subscribe() }

// Close closes every session (interrupting runs and waiting for them) and
// the engine. It is idempotent.
func (e *Engine) Close() error {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	var errs []error
	for _, s := range e.Sessions() {
		if err := s.Close(); err != nil && !errors.Is(err, ErrClosed) {
			errs = append(errs, err)
		}
	}
	e.log.close()
	e.endFeeds()
	return errors.Join(errs...)
}

func (e *Engine) forget(s *Session) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.sessions[s.id] == s {
		delete(e.sessions, s.id)
		delete(e.created, s)
	}
}
