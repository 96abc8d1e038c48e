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
	return f.send(ctx, c.Host, c.TTL, `INSERT INTO interlock_commands (host, kind, session, seen, by, expires_at)
		VALUES ($1, 'continue', $2, $3, $4, clock_timestamp() + make_interval(secs => $5)) RETURNING id`, c.Host, c.Session, int64(c.Seen), c.By)
}

// Revoke takes back an approval a host remembers for a project (the
// fleet view's Revoke), named as Grants lists it.
type Revoke struct {
	Host            string
	Tool, Key, Root string        // the grant, as HostGrant gives it
	By              string        // who revoked it, for the audit logs
	TTL             time.Duration // how long it may wait for its host (default 1 min)
}

// Revoke sends r to its host and returns the command's id (see Wait). The
// host revokes the grant it names, or refuses: unknown_grant (revoked
// already: of two revokes at once, one is applied and the other told so),
// expired. Only r.Host's grants are touched.
func (f *Fleet) Revoke(ctx context.Context, r Revoke) (int64, error) {
	if r.Host == "" || r.Tool == "" || r.Key == "" || r.Root == "" {
		return 0, fmt.Errorf("%w: a revoke names the host and the grant's tool, key and root, as Grants lists it (got host %q, tool %q, key %q, root %q)",
			ErrInvalidConfig, r.Host, r.Tool, r.Key, r.Root)
	}
	return f.send(ctx, r.Host, r.TTL, `INSERT INTO interlock_commands (host, kind, tool, grant_key, root, by, expires_at)
		VALUES ($1, 'revoke', $2, $3, $4, $5, clock_timestamp() + make_interval(secs => $6)) RETURNING id`, r.Host, r.Tool, r.Key, r.Root, r.By)
}

// Interrupt stops a host's session as its Stop does (the fleet view's
// Stop): the host applies it once the session's process trees are gone,
// or refuses it (unknown_session, not_running, expired).
type Interrupt struct {
	Host, Session string
	By            string        // who stopped it, for the audit logs
	TTL           time.Duration // how long it may wait for its host (default 1 min)
}

// Interrupt sends i to its host and returns the command's id (see Wait).
func (f *Fleet) Interrupt(ctx context.Context, i Interrupt) (int64, error) {
	if i.Host == "" || i.Session == "" {
		return 0, fmt.Errorf("%w: a stop names the host and the session (got host %q, session %q)", ErrInvalidConfig, i.Host, i.Session)
	}
	return f.send(ctx, i.Host, i.TTL, `INSERT INTO interlock_commands (host, kind, session, by, expires_at)
		VALUES ($1, 'stop', $2, $3, clock_timestamp() + make_interval(secs => $4)) RETURNING id`, i.Host, i.Session, i.By)
}

// Prompt sends a host's session a message that starts a run (the fleet
// view's Send), bound to the session version its client saw.
type Prompt struct {
	Host, Session string
	Text          string
	Seen          uint64        // the session version the client saw
	By            string        // who sent it, for the audit logs
	TTL           time.Duration // how long it may wait for its host (default 1 min)
}

// Prompt sends p to its host and returns the command's id (see Wait). The
// host starts the run if the session is still at the version seen and can
// take a prompt, or refuses: stale, not_eligible, expired.
func (f *Fleet) Prompt(ctx context.Context, p Prompt) (int64, error) {
	if p.Host == "" || p.Session == "" || p.Text == "" {
		return 0, fmt.Errorf("%w: a prompt names the host, the session and its text (got host %q, session %q, %d bytes of text)", ErrInvalidConfig, p.Host, p.Session, len(p.Text))
	}
	return f.send(ctx, p.Host, p.TTL, `INSERT INTO interlock_commands (host, kind, session, prompt, seen, by, expires_at)
		VALUES ($1, 'prompt', $2, $3, $4, $5, clock_timestamp() + make_interval(secs => $6)) RETURNING id`, p.Host, p.Session, p.Text, int64(p.Seen), p.By)
}

// send inserts a command for host with insert (its last argument the TTL
// in seconds, default 1 min), announces it, and returns its id.
func (f *Fleet) send(ctx context.Context, host string, ttl time.Duration, insert string, args ...any) (int64, error) {
	if ttl <= 0 {
		ttl = time.Minute
	}
	var id int64
	err := pgx.BeginFunc(ctx, f.pool, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, insert, append(args, ttl.Seconds())...).Scan(&id); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `SELECT pg_notify('interlock_commands', $1)`, host)
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
