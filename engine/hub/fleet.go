package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/interlock-dev/interlock/engine"
)

// ErrAlreadyAnswered: another answer to the same pause was sent first; it
// is pending or applied.
var ErrAlreadyAnswered = errors.New("hub: the pause was already answered from the hub")

// ErrUnknownCommand: no command or stop has that id.
var ErrUnknownCommand = errors.New("hub: unknown command")

// Fleet reads and commands every host of a hub. It needs no engine: a
// fleet view or a script uses one.
type Fleet struct {
	pool *pgxpool.Pool
	// OfflineAfter is how long a host may miss its heartbeat before it is
	// shown offline (default 3 s: three beats of the default 1 s).
	OfflineAfter time.Duration
}

// Open connects to the hub at url, making its tables if need be.
func Open(ctx context.Context, url string) (*Fleet, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("%w: url: %v", ErrInvalidConfig, err)
	}
	cfg.ConnConfig.RuntimeParams["application_name"] = "interlock fleet"
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("hub: connecting: %w", err)
	}
	err = migrate(ctx, conn.Conn())
	conn.Release()
	if err != nil {
		pool.Close()
		return nil, err
	}
	return &Fleet{pool: pool, OfflineAfter: 3 * time.Second}, nil
}

// Close closes the fleet's connections.
func (f *Fleet) Close() { f.pool.Close() }

// HostState is a host as the hub knows it.
type HostState struct {
	Host      string    `json:"host"`
	Connected bool      `json:"connected"` // connected, with a recent heartbeat
	SeenAt    time.Time `json:"seenAt"`    // its last write or heartbeat
}

const connectedSQL = `h.connected AND h.seen_at > clock_timestamp() - make_interval(secs => $1)`

// Hosts returns every host that ever connected, by name.
func (f *Fleet) Hosts(ctx context.Context) ([]HostState, error) {
	rows, err := f.pool.Query(ctx, `SELECT h.host, `+connectedSQL+`, coalesce(h.seen_at, 'epoch') FROM interlock_hosts h ORDER BY h.host`, f.OfflineAfter.Seconds())
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (HostState, error) {
		var hs HostState
		err := r.Scan(&hs.Host, &hs.Connected, &hs.SeenAt)
		return hs, err
	})
}

// SessionState is a session as its host last mirrored it. A session of a
// host that is not connected is as it was when the host was last heard
// from: HostConnected false says so.
type SessionState struct {
	Host          string `json:"host"`
	HostConnected bool   `json:"hostConnected"`
	Session       string `json:"session"`
	Version       uint64 `json:"version"`
	Status        string `json:"status"`
	RunState      string `json:"runState"`
	// Pause is the pause shown (the session's current one), if any, and
	// PauseDigest its digest, which an answer to it names.
	Pause       *ShownPause     `json:"pause,omitempty"`
	PauseDigest string          `json:"pauseDigest,omitempty"`
	Snapshot    json.RawMessage `json:"snapshot"` // the engine's snapshot (engine.Snapshot as JSON)
	UpdatedAt   time.Time       `json:"updatedAt"`
}

// ShownPause is what a fleet view shows of a pause.
type ShownPause struct {
	ID      string `json:"id"`
	Kind    string `json:"kind"`
	Tool    string `json:"tool,omitempty"`
	Message string `json:"message"`
	Details string `json:"details,omitempty"`
	Version uint64 `json:"version"`
}

// Sessions returns every host's mirrored sessions, by host and session.
func (f *Fleet) Sessions(ctx context.Context) ([]SessionState, error) {
	rows, err := f.pool.Query(ctx, `SELECT s.host, `+connectedSQL+`, s.session, s.version, s.status, s.run_state, s.pause, s.pause_digest, s.snapshot, s.updated_at
		FROM interlock_sessions s JOIN interlock_hosts h USING (host) ORDER BY s.host, s.session`, f.OfflineAfter.Seconds())
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (SessionState, error) {
		var st SessionState
		var version int64
		var pause, snap []byte
		if err := r.Scan(&st.Host, &st.HostConnected, &st.Session, &version, &st.Status, &st.RunState, &pause, &st.PauseDigest, &snap, &st.UpdatedAt); err != nil {
			return st, err
		}
		st.Version = uint64(version)
		st.Snapshot = snap
		if pause != nil {
			st.Pause = new(ShownPause)
			if err := json.Unmarshal(pause, st.Pause); err != nil {
				return st, fmt.Errorf("hub: session %s of host %s: pause: %w", st.Session, st.Host, err)
			}
		}
		return st, nil
	})
}

// Answer is an answer to a pause of a host's session, bound to what its
// client was shown.
type Answer struct {
	Host, Session, Pause string
	// Seen is the session version the client saw; Digest the digest of the
	// pause it showed (SessionState.PauseDigest).
	Seen   uint64
	Digest string
	Answer engine.Answer // approved, denied or resumed
	Reason string        // the user's reason (shown to the model on a denial)
	// Remember is the scope to remember an approval with ("session",
	// "project"), one the pause offers; "" for once.
	Remember string
	By       string        // who answered, for the audit logs
	TTL      time.Duration // how long it may wait for its host (default 1 min)
}

// AnswerOf is the answer approve (or deny, for a confirm; resume for a
// continue pause) to the pause st shows, by who.
func AnswerOf(st SessionState, approve bool, by string) Answer {
	a := Answer{Host: st.Host, Session: st.Session, Seen: st.Version, Digest: st.PauseDigest, By: by, Answer: engine.AnswerDenied}
	if st.Pause != nil {
		a.Pause = st.Pause.ID
		if st.Pause.Kind == string(engine.PauseContinue) {
			a.Answer = engine.AnswerResumed
		}
	}
	if approve && a.Answer != engine.AnswerResumed {
		a.Answer = engine.AnswerApproved
	}
	return a
}

// Answer sends a to its host and returns the command's id (see Wait). A
// second answer to the same pause, while the first is pending or once it
// was applied, is ErrAlreadyAnswered. A host offline keeps it waiting
// until its TTL ends; then it is refused as expired.
func (f *Fleet) Answer(ctx context.Context, a Answer) (int64, error) {
	if a.Host == "" || a.Session == "" || a.Pause == "" || a.Digest == "" {
		return 0, fmt.Errorf("%w: an answer names the host, session, pause and the digest of the pause shown (got host %q, session %q, pause %q, digest %q)",
			ErrInvalidConfig, a.Host, a.Session, a.Pause, a.Digest)
	}
	ttl := a.TTL
	if ttl <= 0 {
		ttl = time.Minute
	}
	var id int64
	err := pgx.BeginFunc(ctx, f.pool, func(tx pgx.Tx) error {
		// An earlier answer to this pause that expired untaken no longer
		// holds it (nobody may have asked for its result).
		if _, err := tx.Exec(ctx, `UPDATE interlock_commands SET state = 'refused', code = 'expired', done_at = clock_timestamp(),
				message = 'host ' || host || ' did not take it before it expired (offline?); answer again'
			WHERE host = $1 AND session = $2 AND pause = $3 AND kind = 'answer' AND state = 'pending' AND expires_at <= clock_timestamp()`,
			a.Host, a.Session, a.Pause); err != nil {
			return err
		}
		err := tx.QueryRow(ctx, `INSERT INTO interlock_commands (host, kind, session, pause, seen, digest, answer, reason, remember, by, expires_at)
			VALUES ($1, 'answer', $2, $3, $4, $5, $6, $7, $8, $9, clock_timestamp() + make_interval(secs => $10))
			ON CONFLICT (host, session, pause) WHERE kind = 'answer' AND state IN ('pending', 'applied') DO NOTHING RETURNING id`,
			a.Host, a.Session, a.Pause, int64(a.Seen), a.Digest, string(a.Answer), a.Reason, a.Remember, a.By, ttl.Seconds()).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("%w: pause %s of session %s on host %s: another client's answer came first", ErrAlreadyAnswered, a.Pause, a.Session, a.Host)
		}
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `SELECT pg_notify('interlock_commands', $1)`, a.Host)
		return err
	})
	return id, err
}

// Result is what became of a command.
type Result struct {
	ID      int64  `json:"id"`
	State   string `json:"state"`             // pending, applied or refused
	Code    string `json:"code,omitempty"`    // a refusal's code: expired, stale, altered...
	Message string `json:"message,omitempty"` // a refusal's reason
}

// Result returns the state of command id now; one whose expiry passed
// while its host did not take it is refused as expired.
func (f *Fleet) Result(ctx context.Context, id int64) (Result, error) {
	r := Result{ID: id}
	err := f.pool.QueryRow(ctx, `UPDATE interlock_commands SET state = 'refused', code = 'expired', done_at = clock_timestamp(),
			message = 'host ' || host || ' did not take it before it expired (offline?); answer again'
		WHERE id = $1 AND state = 'pending' AND expires_at <= clock_timestamp() RETURNING state, code, message`, id).Scan(&r.State, &r.Code, &r.Message)
	if err == nil {
		return r, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return r, err
	}
	err = f.pool.QueryRow(ctx, `SELECT state, code, message FROM interlock_commands WHERE id = $1`, id).Scan(&r.State, &r.Code, &r.Message)
	if errors.Is(err, pgx.ErrNoRows) {
		return r, fmt.Errorf("%w: %d", ErrUnknownCommand, id)
	}
	return r, err
}

// Wait waits until command id is applied or refused.
func (f *Fleet) Wait(ctx context.Context, id int64) (Result, error) {
	var r Result
	err := f.waitFor(ctx, strconv.FormatInt(id, 10), func() (bool, error) {
		var err error
		r, err = f.Result(ctx, id)
		return err != nil || r.State != StatePending, err
	})
	return r, err
}

// waitFor listens for payload on interlock_done and calls done after each
// notification (and each second, for an expiry or a lost notification)
// until it says so.
func (f *Fleet) waitFor(ctx context.Context, payload string, done func() (bool, error)) error {
	conn, err := f.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `LISTEN interlock_done`); err != nil {
		return err
	}
	defer conn.Exec(context.Background(), `UNLISTEN interlock_done`)
	for {
		if ok, err := done(); ok || err != nil {
			return err
		}
		for {
			wctx, cancel := context.WithTimeout(ctx, time.Second)
			n, err := conn.Conn().WaitForNotification(wctx)
			cancel()
			if ctx.Err() != nil {
				return context.Cause(ctx)
			}
			if err != nil && !errors.Is(err, context.DeadlineExceeded) {
				return err
			}
			if n == nil || n.Payload == payload {
				break
			}
		}
	}
}

// StopHost is a host's part of a fleet emergency stop.
type StopHost struct {
	Host      string   `json:"host"`
	Connected bool     `json:"connected"`
	Confirmed bool     `json:"confirmed"` // it stopped its proceeding sessions, their process trees gone
	Stopped   []string `json:"stopped"`   // receipts: the sessions it stopped
}

// StopStatus is where a fleet emergency stop stands: every host that ever
// connected, confirmed or not.
type StopStatus struct {
	ID    int64      `json:"id"`
	Hosts []StopHost `json:"hosts"`
}

// Unconfirmed returns the hosts that have not confirmed the stop.
func (s StopStatus) Unconfirmed() []StopHost {
	var out []StopHost
	for _, h := range s.Hosts {
		if !h.Confirmed {
			out = append(out, h)
		}
	}
	return out
}

// EmergencyStop stops every proceeding session on every host: connected
// hosts at once, a host offline when it reconnects, while the stop is in
// force (inForce, default 10 min). It returns the stop's id (see Stop,
// WaitStop).
func (f *Fleet) EmergencyStop(ctx context.Context, by string, inForce time.Duration) (int64, error) {
	if inForce <= 0 {
		inForce = 10 * time.Minute
	}
	var id int64
	err := pgx.BeginFunc(ctx, f.pool, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `INSERT INTO interlock_stops (expires_at, by) VALUES (clock_timestamp() + make_interval(secs => $1), $2) RETURNING id`,
			inForce.Seconds(), by).Scan(&id); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `SELECT pg_notify('interlock_stops', $1)`, strconv.FormatInt(id, 10))
		return err
	})
	return id, err
}

// Stop returns the receipts of stop id so far.
func (f *Fleet) Stop(ctx context.Context, id int64) (StopStatus, error) {
	st := StopStatus{ID: id}
	rows, err := f.pool.Query(ctx, `SELECT h.host, `+connectedSQL+`, d.host IS NOT NULL,
			coalesce((SELECT array_agg(r.session ORDER BY r.session) FROM interlock_stop_receipts r WHERE r.stop = $2 AND r.host = h.host), '{}')
		FROM interlock_hosts h LEFT JOIN interlock_stop_hosts d ON d.stop = $2 AND d.host = h.host ORDER BY h.host`, f.OfflineAfter.Seconds(), id)
	if err != nil {
		return st, err
	}
	st.Hosts, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (StopHost, error) {
		var sh StopHost
		err := r.Scan(&sh.Host, &sh.Connected, &sh.Confirmed, &sh.Stopped)
		return sh, err
	})
	return st, err
}

// WaitStop waits until every connected host has confirmed stop id, and
// returns its receipts (offline hosts are listed unconfirmed).
func (f *Fleet) WaitStop(ctx context.Context, id int64) (StopStatus, error) {
	var st StopStatus
	err := f.waitFor(ctx, "stop "+strconv.FormatInt(id, 10), func() (bool, error) {
		var err error
		st, err = f.Stop(ctx, id)
		if err != nil {
			return true, err
		}
		for _, h := range st.Hosts {
			if h.Connected && !h.Confirmed {
				return false, nil
			}
		}
		return true, nil
	})
	return st, err
}
