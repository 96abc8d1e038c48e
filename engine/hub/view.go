package hub

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/store"
)

// What a fleet view reads besides sessions and hosts: the audit log, the
// remembered approvals of project scope, and a watch that says when to
// read again.

// Continue is a continue of a host's interrupted session (the page's
// Continue, and each session of its Resume all), bound to the session
// version its client saw.
type Continue struct {
	Host, Session string
	Seen          uint64        // the session version the client saw
	By            string        // who asked, for the audit logs
	TTL           time.Duration // how long it may wait for its host (default 1 min)
}

// Continue sends c to its host and returns the command's id (see Wait).
// The host continues the session if it is still at the version seen and
// can be continued, or refuses: stale, not_eligible, expired.
func (f *Fleet) Continue(ctx context.Context, c Continue) (int64, error) {
	if c.Host == "" || c.Session == "" {
		return 0, fmt.Errorf("%w: a continue names the host and the session (got host %q, session %q)", ErrInvalidConfig, c.Host, c.Session)
	}
	ttl := c.TTL
	if ttl <= 0 {
		ttl = time.Minute
	}
	var id int64
	err := pgx.BeginFunc(ctx, f.pool, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `INSERT INTO interlock_commands (host, kind, session, seen, by, expires_at)
			VALUES ($1, 'continue', $2, $3, $4, clock_timestamp() + make_interval(secs => $5)) RETURNING id`,
			c.Host, c.Session, int64(c.Seen), c.By, ttl.Seconds()).Scan(&id); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `SELECT pg_notify('interlock_commands', $1)`, c.Host)
		return err
	})
	return id, err
}

// AuditEntry is an entry of a host's audit log as the hub keeps it.
type AuditEntry struct {
	ID   int64  `json:"id"`
	Host string `json:"host"`
	store.AuditEntry
}

// Audit returns the last limit entries of every host's audit log, newest
// first.
func (f *Fleet) Audit(ctx context.Context, limit int) ([]AuditEntry, error) {
	rows, err := f.pool.Query(ctx, `SELECT id, host, session, run, pause, event, kind, tool, message, answer, reason, by, remember, at
		FROM interlock_audit ORDER BY id DESC LIMIT $1`, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (AuditEntry, error) {
		var a AuditEntry
		var run int64
		err := r.Scan(&a.ID, &a.Host, &a.Session, &run, &a.Pause, &a.Event, &a.Kind, &a.Tool, &a.Message, &a.Answer, &a.Reason, &a.By, &a.Remember, &a.At)
		a.Run = uint64(run)
		return a, err
	})
}

// HostGrant is an approval a host remembers for a project: its confirms of
// the same key under the same root are approved without asking.
type HostGrant struct {
	Host string `json:"host"`
	engine.Grant
}

// Grants returns the approvals of project scope each host remembers, as
// its audit log says: the last change of each was an addition. By host,
// then as given.
func (f *Fleet) Grants(ctx context.Context) ([]HostGrant, error) {
	rows, err := f.pool.Query(ctx, `SELECT host, tool, message, reason, at FROM (
			SELECT DISTINCT ON (host, tool, message, reason) host, tool, message, reason, at, event
			FROM interlock_audit WHERE kind = $1 AND event IN ('grant added', 'grant revoked')
			ORDER BY host, tool, message, reason, id DESC) last
		WHERE event = 'grant added' ORDER BY host, at`, engine.RememberProject)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (HostGrant, error) {
		g := HostGrant{Grant: engine.Grant{Scope: engine.RememberProject}}
		err := r.Scan(&g.Host, &g.Tool, &g.Key, &g.Root, &g.At)
		return g, err
	})
}

// Watch calls read at once, then again after each change a host mirrors
// (the changes of a burst gathered for a few milliseconds) or a command
// or stop ends, and every interval while nothing changes (a host that
// stops beating is shown offline by time, with no change to announce). It
// returns when ctx ends, read fails or the connection is lost.
func (f *Fleet) Watch(ctx context.Context, interval time.Duration, read func(context.Context) error) error {
	conn, err := f.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `LISTEN interlock_mirror; LISTEN interlock_done`); err != nil {
		return err
	}
	defer conn.Exec(context.Background(), `UNLISTEN *`)
	for {
		if err := read(ctx); err != nil {
			return err
		}
		wctx, cancel := context.WithTimeout(ctx, interval)
		n, err := conn.Conn().WaitForNotification(wctx)
		cancel()
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		for n != nil { // gather the rest of the burst
			gctx, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
			n, err = conn.Conn().WaitForNotification(gctx)
			cancel()
			if err != nil && !errors.Is(err, context.DeadlineExceeded) {
				return err
			}
		}
	}
}
