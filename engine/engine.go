package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/interlock-dev/interlock/engine/store"
)

// Engine owns sessions, their runs and task loops, the tool registry and
// the default provider, and publishes one event stream for all of them.
type Engine struct {
	tools    Registry
	builtins []string // the tools registered when the engine was made (sorted), or those WithBuiltinTools chose: SessionOptions.Tools chooses among them
	// chosenBuiltins is WithBuiltinTools's choice (never nil when made);
	// nil: every built-in tool.
	chosenBuiltins []string
	provider       Provider
	idleTimeout    time.Duration
	workDir        string
	// defaultPauseMode is default_pause_mode for task loops.
	defaultPauseMode bool
	storePath        string                    // WithStore
	environment      Environment               // WithEnvironment
	loaders          map[string]ProviderLoader // WithProviderLoader, by provider type
	store            *store.Store              // nil without WithStore: read here, written through journal
	// journal records every transition (the store's: storeJournal); nil
	// without a store.
	journal      journal
	shuttingDown atomic.Bool // Close: sessions closing now are kept in the store
	// afterCommit is called after each of the engine's writes to the store
	// has committed, with what it recorded (nil but in the kill-point
	// tests: see storeJournal).
	afterCommit func(what string)
	attachFns   []AttachFunc // WithAttachment
	attached    []io.Closer  // what they started; closed first by Close

	runSeq   atomic.Uint64  // run ids, unique in the engine
	runs     runner         // the goroutines of background runs
	grants   projectGrants  // remembered approvals of project scope (PauseRequest.RememberKey)
	approver approverHolder // SetApprover
	// lastScript is the script last parsed by ScriptProvider, and its provider.
	lastScript struct {
		mu  sync.Mutex
		raw string
		p   Provider
	}
	// lastSpec is the text last decoded by DecodeSessionSpec, and its spec.
	lastSpec struct {
		mu   sync.Mutex
		text string
		spec SessionSpec
	}

	mu       sync.Mutex
	sessions map[string]*Session
	created  map[*Session]uint64 // creation order, for listing
	onNew    []*sessionHook      // OnNewSession; replaced, never changed in place
	seq      uint64
	closed   bool
	log      eventLog[Event] // every session's and task loop's events, in one order

	feeds      atomic.Pointer[feedList] // read without a lock when publishing
	coalesced  atomic.Uint64            // deltas merged in feeds (Stats)
	feedMu     sync.Mutex               // serializes changes of feeds
	feedsEnded bool
}

// New returns an engine. The built-in tools "sleep" and "ask" are registered;
// options may replace them. It panics if an option fails, which only
// WithStore can: use Open with it.
func New(opts ...Option) *Engine {
	e, err := Open(context.Background(), opts...)
	if err != nil {
		panic(fmt.Sprintf("engine.New: %v (use engine.Open to get the error)", err))
	}
	return e
}

// Open returns an engine as New does, and with WithStore opens its store:
// the sessions stored there reappear, those that were proceeding when the
// store's previous owner died interrupted with server_restart. A store that
// cannot be opened is an error (wrapping store.ErrLocked, ErrCorrupt,
// ErrForeign, ErrNewerSchema or ErrReadOnly).
func Open(ctx context.Context, opts ...Option) (*Engine, error) {
	e := newEngine(opts...)
	if err := e.chooseBuiltins(); err != nil {
		return nil, err
	}
	if e.storePath == "" {
		if err := e.attach(ctx); err != nil {
			return nil, err
		}
		return e, nil
	}
	st, err := store.Open(ctx, e.storePath)
	if err != nil {
		return nil, err
	}
	e.store = st
	e.journal = &storeJournal{st: st, afterCommit: e.afterCommit}
	if err := e.recoverSessions(ctx); err != nil {
		st.Close()
		return nil, err
	}
	if err := e.giveGrantStores(); err != nil {
		st.Close()
		return nil, err
	}
	if err := e.attach(ctx); err != nil {
		st.Close()
		return nil, err
	}
	return e, nil
}

func newEngine(opts ...Option) *Engine {
	e := &Engine{
		idleTimeout: 2 * time.Minute,
		sessions:    make(map[string]*Session),
		created:     make(map[*Session]uint64),
		log:         eventLog[Event]{max: 4096},
		loaders:     map[string]ProviderLoader{"script": loadScript},
		environment: defaultEnvironment,
	}
	e.tools.Register("sleep", Described(NewSleepTool(), "Wait for a number of milliseconds (a long-running tool the user can stop).",
		json.RawMessage(`{"type":"object","properties":{"ms":{"type":"integer","minimum":0,"description":"how long to wait, in milliseconds"}},"required":["ms"]}`)))
	e.tools.Register("ask", Described(NewAskTool(), "Ask the user to continue or to confirm something, and wait for the answer.",
		json.RawMessage(`{"type":"object","properties":{"kind":{"type":"string","enum":["continue","confirm"]},"message":{"type":"string"},"details":{"type":"string"}},"required":["kind","message"]}`)))
	for _, o := range opts {
		o(e)
	}
	e.builtins = e.tools.Names()
	return e
}

// Tools is the engine's tool registry.
func (e *Engine) Tools() *Registry { return &e.tools }

// NewSession creates a session.
func (e *Engine) NewSession(o SessionOptions) (*Session, error) {
	s, hooks, err := e.newSession(o)
	if err != nil {
		return nil, err
	}
	for _, h := range hooks {
		h.fn(s)
	}
	return s, nil
}

type sessionHook struct{ fn func(*Session) }

// OnNewSession calls fn with each session NewSession creates from now on,
// once it is created and before any of its events: an attachment that
// mirrors sessions (the fleet's hub) lists one before its first run. fn
// runs on the creating goroutine and must not wait. The returned function
// stops the calls.
func (e *Engine) OnNewSession(fn func(*Session)) (stop func()) {
	h := &sessionHook{fn}
	e.mu.Lock()
	e.onNew = append(slices.Clip(e.onNew), h)
	e.mu.Unlock()
	return func() {
		e.mu.Lock()
		e.onNew = slices.DeleteFunc(slices.Clone(e.onNew), func(x *sessionHook) bool { return x == h })
		e.mu.Unlock()
	}
}

func (e *Engine) newSession(o SessionOptions) (*Session, []*sessionHook, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, nil, fmt.Errorf("engine: %w", ErrClosed)
	}
	if !utf8.ValidString(o.ID) { // every observer reads ids as UTF-8 text (JSON, the web UI, JS): two could read as one
		return nil, nil, fmt.Errorf("session id %q: %w: not valid UTF-8; it would be read as %q, perhaps another session's id", o.ID, ErrInvalidArgument, strings.ToValidUTF8(o.ID, "\uFFFD"))
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
		return nil, nil, fmt.Errorf("session %q: %w", id, ErrDuplicateSession)
	}
	p := o.Provider
	if p == nil {
		p = e.provider
	}
	dir := o.Dir
	if dir == "" {
		dir = e.workDir
	}
	tools, err := e.sessionTools(o.Tools)
	if err != nil {
		return nil, nil, err
	}
	s := &Session{id: id, eng: e, provider: p, dir: dir, environ: slices.Clone(o.Environ), tools: tools}
	if err := s.recordCreated(e.seq, o); err != nil {
		return nil, nil, fmt.Errorf("session %q: %w", id, err)
	}
	e.sessions[id] = s
	e.created[s] = e.seq
	return s, e.onNew, nil
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
	type entry struct {
		seq uint64
		s   *Session
	}
	e.mu.Lock()
	entries := make([]entry, 0, len(e.created))
	for s, seq := range e.created {
		entries = append(entries, entry{seq, s})
	}
	e.mu.Unlock()
	// Sorted outside the lock, by the order taken with each session (two
	// map lookups a comparison made this 7-13 ms for 10,000 sessions).
	slices.SortFunc(entries, func(a, b entry) int { return cmp.Compare(a.seq, b.seq) })
	out := make([]*Session, len(entries))
	for i, en := range entries {
		out[i] = en.s
	}
	return out
}

// Subscribe returns a reader of every session's events from now on.
func (e *Engine) Subscribe() *Subscription[Event] { return e.log.subscribe() }

// Close closes every session (interrupting runs and waiting for them) and
// the engine. It is idempotent.
func (e *Engine) Close() error {
	e.shuttingDown.Store(true)
	e.mu.Lock()
	first := !e.closed
	e.closed = true
	e.mu.Unlock()
	var errs []error
	if first {
		errs = append(errs, e.detach())
	}
	for _, s := range e.Sessions() {
		if err := s.Close(); err != nil && !errors.Is(err, ErrClosed) {
			errs = append(errs, err)
		}
	}
	e.log.close()
	e.endFeeds()
	if e.store != nil {
		errs = append(errs, e.store.Close())
	}
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
