package hub

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/store"
)

// Config says which hub a host mirrors to, and as whom.
type Config struct {
	// URL is the hub's PostgreSQL URL (postgres://user:password@host/db).
	// Its credentials are used to connect and are never stored.
	URL string
	// Host is this host's name in the fleet ("ci-runner-3"): unique per
	// fleet, it addresses commands to the host.
	Host string
	// Heartbeat is how often an idle host says it is alive (default 1 s);
	// a fleet shows a host offline after three missed beats.
	Heartbeat time.Duration
	// Retention is how long the hub keeps this host's transitions
	// (interlock_events), audit entries and answered commands (default
	// DefaultRetention); the host deletes older ones when it connects and
	// each hour. Negative keeps them for ever. Fleet emergency stops are
	// deleted, with their receipts, once their time in force ended that
	// long ago.
	Retention time.Duration
	// Logf, when set, is told of connection changes and failed writes.
	Logf func(format string, args ...any)
}

// DefaultRetention is how long the hub keeps a host's history: 30 days.
const DefaultRetention = 30 * 24 * time.Hour

// pruneEvery is how often a connected host deletes what is older than its
// retention.
const pruneEvery = time.Hour

// ErrInvalidConfig: a Config (or an Answer) cannot be used. It is an
// engine.ErrInvalidArgument.
var ErrInvalidConfig = fmt.Errorf("hub: %w", engine.ErrInvalidArgument)

// With attaches the hub to an engine (engine.Open, engine.New): see Attach.
func With(cfg Config) engine.Option {
	return engine.WithAttachment(func(_ context.Context, e *engine.Engine) (io.Closer, error) {
		return Attach(e, cfg)
	})
}

// Host is an engine's link to the hub: it mirrors the engine's
// transitions and applies the commands addressed to it, reconnecting in
// the background whenever the hub is unreachable.
type Host struct {
	cfg  Config
	conn *pgx.ConnConfig
	eng  *engine.Engine
	feed *engine.Feed
	// boot names this process's run of the host: session versions start
	// again after a restart, so a mirrored row from an earlier boot is
	// replaced whatever its version.
	boot string

	unhook    func() // stops OnNewSession's calls
	cancel    context.CancelFunc
	done      chan struct{}
	closeOnce sync.Once

	stateMu   sync.Mutex
	connected bool
	changed   chan struct{} // closed on a change of connected

	unsent *unsent   // taken from the feed, not yet committed to the hub
	pruned time.Time // when the mirror last deleted what is past retention

	doneMu  sync.Mutex
	applied map[int64]outcome    // commands applied here whose outcome the hub may not have
	revokes map[revokeKey]string // project grants revoked by a command, by whom, until mirrored
}

// Attach links eng to the hub of cfg and returns at once: the connection
// is made (and made again) in the background, and the engine works the
// same while the hub is unreachable. Close the Host (the engine's Close
// does, with With) to stop.
func Attach(eng *engine.Engine, cfg Config) (*Host, error) {
	if cfg.Host == "" {
		return nil, fmt.Errorf("%w: host is empty: name this host in the fleet (hub: {url, host: 'ci-runner-3'})", ErrInvalidConfig)
	}
	if cfg.URL == "" {
		return nil, fmt.Errorf("%w: url is empty: give the hub's PostgreSQL URL (postgres://user@host/db, e.g. from INTERLOCK_HUB_URL)", ErrInvalidConfig)
	}
	conn, err := pgx.ParseConfig(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("%w: url: %v", ErrInvalidConfig, err)
	}
	conn.RuntimeParams["application_name"] = "interlock host " + cfg.Host
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = time.Second
	}
	if cfg.Retention == 0 {
		cfg.Retention = DefaultRetention
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &Host{cfg: cfg, conn: conn, eng: eng, feed: eng.NewFeed(), boot: randomID(),
		cancel: cancel, done: make(chan struct{}), changed: make(chan struct{}), applied: map[int64]outcome{}, revokes: map[revokeKey]string{}, unsent: &unsent{touched: map[string]bool{}}}
	// A new session is mirrored at once, not at its first transition.
	h.unhook = eng.OnNewSession(func(s *engine.Session) { h.feed.Add(newSession(s.ID())) })
	go h.run(ctx)
	return h, nil
}

// newSession is a feed item of the host's own: a session created, to
// mirror before it has any transition.
type newSession string

func randomID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// Close disconnects from the hub, which then shows the host offline. It is
// idempotent and waits for the host's goroutines.
func (h *Host) Close() error {
	h.closeOnce.Do(func() {
		h.unhook()
		h.cancel()
		<-h.done
		h.feed.Close()
	})
	return nil
}

// Connected reports whether the host is connected to the hub now.
func (h *Host) Connected() bool {
	h.stateMu.Lock()
	defer h.stateMu.Unlock()
	return h.connected
}

// WaitConnected waits until the host's connection state is want.
func (h *Host) WaitConnected(ctx context.Context, want bool) error {
	for {
		h.stateMu.Lock()
		now, ch := h.connected, h.changed
		h.stateMu.Unlock()
		if now == want {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

func (h *Host) setConnected(on bool) {
	h.stateMu.Lock()
	defer h.stateMu.Unlock()
	if h.connected != on {
		h.connected = on
		close(h.changed)
		h.changed = make(chan struct{})
	}
}

func (h *Host) logf(format string, args ...any) {
	if h.cfg.Logf != nil {
		h.cfg.Logf("hub (host %s): "+format, append([]any{h.cfg.Host}, args...)...)
	}
}

// run connects, and connects again after each failure, until Close.
func (h *Host) run(ctx context.Context) {
	defer close(h.done)
	backoff := 50 * time.Millisecond
	for {
		was := time.Now()
		err := h.connection(ctx)
		h.setConnected(false)
		if ctx.Err() != nil {
			h.goodbye()
			return
		}
		h.logf("disconnected: %v; retrying", err)
		if time.Since(was) > 10*time.Second {
			backoff = 50 * time.Millisecond // it had worked for a while
		}
		select {
		case <-time.After(backoff):
		case <-ctx.Done():
			return
		}
		backoff = min(2*backoff, 2*time.Second)
	}
}

// goodbye tells the hub, if it is reachable, that the host closed.
func (h *Host) goodbye() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, h.conn.Copy())
	if err != nil {
		return
	}
	defer conn.Close(ctx)
	conn.Exec(ctx, `UPDATE interlock_hosts SET connected = false, disconnected_at = clock_timestamp() WHERE host = $1 AND boot = $2`, h.cfg.Host, h.boot)
}

// connection is one connection to the hub: it makes the tables if need
// be, says the host is connected, resynchronises the mirror, then
// mirrors and takes commands until an error.
func (h *Host) connection(ctx context.Context) error {
	wconn, err := pgx.ConnectConfig(ctx, h.conn.Copy())
	if err != nil {
		return err
	}
	defer wconn.Close(context.Background())
	if err := migrate(ctx, wconn); err != nil {
		return err
	}
	lconn, err := pgx.ConnectConfig(ctx, h.conn.Copy())
	if err != nil {
		return err
	}
	defer lconn.Close(context.Background())
	if _, err := lconn.Exec(ctx, `LISTEN interlock_commands; LISTEN interlock_stops`); err != nil {
		return err
	}
	if err := h.resync(ctx, wconn); err != nil {
		return err
	}
	h.setConnected(true)
	h.logf("connected")
	ctx, cancel := context.WithCancelCause(ctx)
	errc := make(chan error, 2)
	go func() { errc <- h.mirror(ctx, wconn) }()
	go func() { errc <- h.commands(ctx, lconn) }()
	err = <-errc
	cancel(err)
	<-errc
	return err
}

// resync replaces this host's mirrored sessions with its sessions now and
// says the host is connected, in one transaction: the hub never shows the
// sessions it had from before as current (a pause answered while the hub
// was down, still pending in its rows). Then it writes what the feed gave
// before the connection was lost.
func (h *Host) resync(ctx context.Context, conn *pgx.Conn) error {
	sessions := h.eng.Sessions()
	ids := make([]string, len(sessions))
	b := &pgx.Batch{}
	b.Queue(`INSERT INTO interlock_hosts (host, connected, boot, connected_at, seen_at)
		VALUES ($1, true, $2, clock_timestamp(), clock_timestamp())
		ON CONFLICT (host) DO UPDATE SET connected = true, boot = $2, connected_at = clock_timestamp(), seen_at = clock_timestamp()`,
		h.cfg.Host, h.boot)
	for i, s := range sessions {
		ids[i] = s.ID()
		h.queueSnapshot(b, s)
	}
	b.Queue(`DELETE FROM interlock_sessions WHERE host = $1 AND NOT (session = ANY($2))`, h.cfg.Host, ids)
	if err := sendTx(ctx, conn, b); err != nil {
		return err
	}
	return h.flush(ctx, conn)
}

// unsent is what the mirror took from the feed and has not yet committed
// to the hub: events (their wire JSON one after another in buf) and audit
// entries, written with COPY, and the sessions they touched. It is kept
// until a flush commits.
type unsent struct {
	buf     []byte
	events  []unsentEvent
	audit   []*store.AuditEntry
	touched map[string]bool
	row     []any // the row being copied
}

// unsentEvent is an event to mirror; its body is buf[start:end].
type unsentEvent struct {
	session, typ, status string
	version              uint64
	at                   time.Time
	start, end           int
}

func (u *unsent) empty() bool {
	return len(u.events) == 0 && len(u.audit) == 0 && len(u.touched) == 0
}

func (u *unsent) reset() {
	u.buf = u.buf[:0]
	clear(u.events)
	u.events = u.events[:0]
	clear(u.audit)
	u.audit = u.audit[:0]
	clear(u.touched)
}

// add keeps ev if the hub mirrors it (transitions, not streamed deltas),
// with its audit entry if it has one.
func (u *unsent) add(ev *engine.Event, by func(*engine.Grant) string) {
	if ev.Loop != nil || ev.Type.Coalescable() || ev.Type == engine.EventToolCallDelta || ev.Session == "" && ev.Type != engine.EventGrantsChanged {
		return
	}
	start := len(u.buf)
	u.buf, _ = engine.AppendWireEvent(u.buf, ev)
	u.events = append(u.events, unsentEvent{session: ev.Session, typ: string(ev.Type), status: ev.Status.String(),
		version: ev.Version, at: ev.At, start: start, end: len(u.buf)})
	if ev.Session != "" {
		u.touched[ev.Session] = true
	}
	if a := auditOf(ev, by); a != nil {
		u.audit = append(u.audit, a)
	}
}

// copyEvents writes the events with COPY: for the hub, the cheapest way
// in of a row (an INSERT of unnested arrays cost it 1.4x the CPU, and of
// a JSON array 2x; a PostgreSQL beside the host's sessions takes that
// CPU from them).
func (u *unsent) copyEvents(ctx context.Context, tx pgx.Tx, host, boot string) error {
	if len(u.events) == 0 {
		return nil
	}
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"interlock_events"}, []string{"host", "session", "boot", "version", "type", "status", "at", "body"},
		pgx.CopyFromSlice(len(u.events), func(i int) ([]any, error) {
			e := &u.events[i]
			u.row = append(u.row[:0], host, e.session, boot, int64(e.version), e.typ, e.status, e.at, u.buf[e.start:e.end])
			return u.row, nil
		}))
	return err
}

// copyAudit writes audit entries with COPY, in order.
func copyAudit(ctx context.Context, tx pgx.Tx, host string, entries []*store.AuditEntry) error {
	if len(entries) == 0 {
		return nil
	}
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"interlock_audit"}, []string{"host", "session", "run", "pause", "event", "kind", "tool", "message", "answer", "reason", "by", "remember", "at"},
		pgx.CopyFromSlice(len(entries), func(i int) ([]any, error) {
			a := entries[i]
			return []any{host, a.Session, int64(a.Run), a.Pause, a.Event, a.Kind, a.Tool, a.Message, a.Answer, a.Reason, a.By, a.Remember, a.At}, nil
		}))
	return err
}

// auditOf is the audit entry of a mirrored event, if it has one; by says
// who revoked a grant.
func auditOf(ev *engine.Event, by func(*engine.Grant) string) *store.AuditEntry {
	switch ev.Type {
	case engine.EventPaused:
		if p := ev.Pause; p != nil {
			return &store.AuditEntry{At: ev.At, Session: ev.Session, Run: ev.Run, Pause: p.ID, Event: "raised", Kind: string(p.Kind), Tool: p.Tool, Message: p.Message}
		}
	case engine.EventPauseAnswered:
		if p := ev.Answered; p != nil {
			return &store.AuditEntry{At: ev.At, Session: ev.Session, Run: ev.Run, Pause: p.ID, Event: "answered", Kind: string(p.Kind), Tool: p.Tool, Message: p.Message,
				Answer: string(ev.Answer), Reason: ev.AnswerReason, By: ev.By, Remember: ev.Remember}
		}
	case engine.EventGrantsChanged: // an approval remembered (or revoked) for a session or a project
		if g := ev.Grant; g != nil {
			a := &store.AuditEntry{At: ev.At, Session: g.Session, Event: "grant " + ev.Text, Kind: g.Scope, Tool: g.Tool, Message: g.Key, Reason: g.Root}
			if ev.Text == engine.GrantRevoked {
				a.By = by(g)
			}
			return a
		}
	case engine.EventGranted:
		return &store.AuditEntry{At: ev.At, Session: ev.Session, Run: ev.Run, Event: "granted", Kind: string(engine.PauseConfirm), Tool: ev.Tool, Message: ev.Text,
			Answer: string(engine.AnswerApproved), By: ev.By, Remember: ev.Remember}
	case engine.EventDecided:
		return &store.AuditEntry{At: ev.At, Session: ev.Session, Run: ev.Run, Event: "decided", Kind: string(engine.PauseConfirm), Tool: ev.Tool, Message: ev.Text,
			Answer: string(ev.Answer), Reason: ev.AnswerReason, By: ev.By}
	}
	return nil
}

// linger is the least time between two of the mirror's writes: a
// transition after a quiet spell is written at once, and those that come
// within linger of a write gather and go in one transaction. A busy host
// makes one write per linger, not one per transition, and leaves the CPU
// to its sessions (a pause round trip went from 0.5 to 6 ms at p99 here
// with a write per transition). 20 ms against 5: a local pause round
// trip's p99 with the hub on / off went from 1.76-2.25x to 1.06-1.25x
// (make bench, quiet 2 cores).
const linger = 20 * time.Millisecond

// mirror writes the feed's events to the hub as they come, and beats
// while there are none.
func (h *Host) mirror(ctx context.Context, conn *pgx.Conn) error {
	collect := func(items []engine.FeedItem) {
		for i := range items {
			if id, ok := items[i].Extra.(newSession); ok {
				h.unsent.touched[string(id)] = true
				continue
			}
			h.unsent.add(&items[i].Event, h.revokedBy)
		}
	}
	var flushed time.Time
	for {
		if h.cfg.Retention > 0 && time.Since(h.pruned) >= pruneEvery {
			if err := h.prune(ctx, conn); err != nil {
				return err
			}
			h.pruned = time.Now()
		}
		tctx, cancel := context.WithTimeout(ctx, h.cfg.Heartbeat)
		err := h.feed.Take(tctx, collect)
		cancel()
		if wait := linger - time.Since(flushed); err == nil && wait > 0 {
			select {
			case <-time.After(wait):
			case <-ctx.Done():
			}
			if h.feed.Pending() > 0 {
				err = h.feed.Take(ctx, collect)
			}
		}
		switch {
		case ctx.Err() != nil:
			return context.Cause(ctx)
		case errors.Is(err, context.DeadlineExceeded):
			if _, err := conn.Exec(ctx, `UPDATE interlock_hosts SET seen_at = clock_timestamp(), connected = true WHERE host = $1`, h.cfg.Host); err != nil {
				return err
			}
			continue
		case err != nil: // the engine closed
			<-ctx.Done()
			return context.Cause(ctx)
		}
		if err := h.flush(ctx, conn); err != nil {
			return err
		}
		flushed = time.Now()
	}
}

// pruneBatch is how many rows one statement of prune deletes: each is a
// short transaction, so that writers are not held up behind a long one.
const pruneBatch = 5000

// prune deletes this host's events, audit entries and finished commands
// older than its retention, and the fleet stops whose time in force ended
// that long ago (their receipts with them).
func (h *Host) prune(ctx context.Context, conn *pgx.Conn) error {
	secs := h.cfg.Retention.Seconds()
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`DELETE FROM interlock_events WHERE id IN (SELECT id FROM interlock_events
			WHERE host = $1 AND at < clock_timestamp() - make_interval(secs => $2) LIMIT $3)`, []any{h.cfg.Host, secs, pruneBatch}},
		{`DELETE FROM interlock_audit WHERE id IN (SELECT id FROM interlock_audit
			WHERE host = $1 AND at < clock_timestamp() - make_interval(secs => $2) LIMIT $3)`, []any{h.cfg.Host, secs, pruneBatch}},
		{`DELETE FROM interlock_commands WHERE id IN (SELECT id FROM interlock_commands
			WHERE host = $1 AND state <> 'pending' AND done_at < clock_timestamp() - make_interval(secs => $2) LIMIT $3)`, []any{h.cfg.Host, secs, pruneBatch}},
		{`DELETE FROM interlock_stops WHERE id IN (SELECT id FROM interlock_stops
			WHERE expires_at < clock_timestamp() - make_interval(secs => $1) LIMIT $2)`, []any{secs, pruneBatch}},
	} {
		for {
			tag, err := conn.Exec(ctx, q.sql, q.args...)
			if err != nil {
				return fmt.Errorf("hub: deleting what is older than the retention (%v): %w", h.cfg.Retention, err)
			}
			if tag.RowsAffected() < pruneBatch {
				break
			}
		}
	}
	return nil
}

// flush writes the unsent events, audit entries and the sessions they
// touched in one transaction; they stay unsent if it fails.
func (h *Host) flush(ctx context.Context, conn *pgx.Conn) error {
	u := h.unsent
	if u.empty() {
		return nil
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if err := u.copyEvents(ctx, tx, h.cfg.Host, h.boot); err != nil {
		return err
	}
	if err := copyAudit(ctx, tx, h.cfg.Host, u.audit); err != nil {
		return err
	}
	b := &pgx.Batch{}
	for id := range u.touched {
		s, err := h.eng.Session(id)
		if err != nil { // closed: forgotten, as its store forgets it
			b.Queue(`DELETE FROM interlock_sessions WHERE host = $1 AND session = $2`, h.cfg.Host, id)
			continue
		}
		h.queueSnapshot(b, s)
	}
	b.Queue(`UPDATE interlock_hosts SET seen_at = clock_timestamp() WHERE host = $1`, h.cfg.Host)
	b.Queue(`SELECT pg_notify('interlock_mirror', $1)`, h.cfg.Host)
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return err
	}
	u.reset()
	return nil
}

// queueSnapshot writes s as it is now; a row of this boot with a newer
// version is kept (a later write got there first).
func (h *Host) queueSnapshot(b *pgx.Batch, s *engine.Session) {
	snap := s.Snapshot()
	body, _ := json.Marshal(snap)
	var pause []byte
	digest := ""
	if snap.Pause != nil {
		pause, _ = json.Marshal(snap.Pause)
		digest = Digest(*snap.Pause)
	}
	b.Queue(`INSERT INTO interlock_sessions (host, session, boot, version, status, run_state, pause, pause_digest, snapshot)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
		ON CONFLICT (host, session) DO UPDATE SET boot = EXCLUDED.boot, version = EXCLUDED.version, status = EXCLUDED.status,
			run_state = EXCLUDED.run_state, pause = EXCLUDED.pause, pause_digest = EXCLUDED.pause_digest,
			snapshot = EXCLUDED.snapshot, updated_at = clock_timestamp()
		WHERE interlock_sessions.boot <> EXCLUDED.boot OR interlock_sessions.version <= EXCLUDED.version`,
		h.cfg.Host, snap.ID, h.boot, int64(snap.Version), snap.Status.String(), string(snap.RunState), nullJSON(pause), digest, string(body))
}

func nullJSON(b []byte) any {
	if b == nil {
		return nil
	}
	return string(b)
}

// sendTx runs b in one transaction: a batch is one implicit transaction
// (one round trip; an explicit BEGIN and COMMIT were two more).
func sendTx(ctx context.Context, conn *pgx.Conn, b *pgx.Batch) error {
	return conn.SendBatch(ctx, b).Close()
}

// Digest is the digest of a pause as shown: what an answer from the hub
// must name, so that it never applies to anything else than what its
// client was shown (the command and its directory, for the bash tool).
func Digest(p engine.Pause) string {
	shown, _ := json.Marshal(struct {
		ID, Kind, Source, Tool, Message, Details, RememberKey string
		Reasons, RememberScopes                               []string
		Version                                               uint64
	}{p.ID, string(p.Kind), string(p.Source), p.Tool, p.Message, p.Details, p.RememberKey, p.Reasons, p.RememberScopes, p.Version})
	sum := sha256.Sum256(shown)
	return hex.EncodeToString(sum[:])
}
