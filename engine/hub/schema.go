package hub

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// ErrNewerSchema: the hub's tables were made by a newer version of the
// library than this one knows.
var ErrNewerSchema = errors.New("hub: the database's interlock tables are newer than this library")

// migrations make the hub's tables, one step per schema version; a
// database at version n runs migrations[n:]. Append, never edit.
var migrations = []string{
	// 1: hosts, the mirror, the audit log, commands and fleet stops.
	`CREATE TABLE interlock_hosts (
		host            text PRIMARY KEY,
		connected       boolean NOT NULL DEFAULT false,
		boot            text NOT NULL DEFAULT '',
		connected_at    timestamptz,
		seen_at         timestamptz,
		disconnected_at timestamptz
	);
	CREATE TABLE interlock_sessions (
		host         text NOT NULL,
		session      text NOT NULL,
		boot         text NOT NULL,
		version      bigint NOT NULL,
		status       text NOT NULL,
		run_state    text NOT NULL,
		pause        jsonb,
		pause_digest text NOT NULL DEFAULT '',
		snapshot     jsonb NOT NULL,
		updated_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
		PRIMARY KEY (host, session)
	);
	CREATE TABLE interlock_events (
		id          bigserial PRIMARY KEY,
		host        text NOT NULL,
		session     text NOT NULL,
		boot        text NOT NULL,
		version     bigint NOT NULL,
		type        text NOT NULL,
		status      text NOT NULL,
		at          timestamptz NOT NULL,
		mirrored_at timestamptz NOT NULL DEFAULT clock_timestamp(),
		body        jsonb NOT NULL
	);
	CREATE INDEX interlock_events_session ON interlock_events (host, session, id);
	CREATE TABLE interlock_audit (
		id       bigserial PRIMARY KEY,
		host     text NOT NULL,
		session  text NOT NULL,
		run      bigint NOT NULL DEFAULT 0,
		pause    text NOT NULL DEFAULT '',
		event    text NOT NULL,
		kind     text NOT NULL DEFAULT '',
		tool     text NOT NULL DEFAULT '',
		message  text NOT NULL DEFAULT '',
		answer   text NOT NULL DEFAULT '',
		reason   text NOT NULL DEFAULT '',
		by       text NOT NULL DEFAULT '',
		remember text NOT NULL DEFAULT '',
		at       timestamptz NOT NULL
	);
	CREATE TABLE interlock_commands (
		id         bigserial PRIMARY KEY,
		host       text NOT NULL,
		kind       text NOT NULL,
		session    text NOT NULL DEFAULT '',
		pause      text NOT NULL DEFAULT '',
		seen       bigint NOT NULL DEFAULT 0,
		digest     text NOT NULL DEFAULT '',
		answer     text NOT NULL DEFAULT '',
		reason     text NOT NULL DEFAULT '',
		remember   text NOT NULL DEFAULT '',
		by         text NOT NULL DEFAULT '',
		created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
		expires_at timestamptz NOT NULL,
		state      text NOT NULL DEFAULT 'pending',
		code       text NOT NULL DEFAULT '',
		message    text NOT NULL DEFAULT '',
		done_at    timestamptz
	);
	CREATE INDEX interlock_commands_pending ON interlock_commands (host, id) WHERE state = 'pending';
	-- One answer per pause is pending or applied: a second client is told at once.
	CREATE UNIQUE INDEX interlock_commands_one_answer ON interlock_commands (host, session, pause)
		WHERE kind = 'answer' AND state IN ('pending', 'applied');
	CREATE TABLE interlock_stops (
		id         bigserial PRIMARY KEY,
		at         timestamptz NOT NULL DEFAULT clock_timestamp(),
		expires_at timestamptz NOT NULL,
		by         text NOT NULL DEFAULT ''
	);
	CREATE TABLE interlock_stop_hosts (
		stop    bigint NOT NULL REFERENCES interlock_stops ON DELETE CASCADE,
		host    text NOT NULL,
		done_at timestamptz NOT NULL,
		stopped int NOT NULL,
		PRIMARY KEY (stop, host)
	);
	CREATE TABLE interlock_stop_receipts (
		stop    bigint NOT NULL REFERENCES interlock_stops ON DELETE CASCADE,
		host    text NOT NULL,
		session text NOT NULL,
		gone_at timestamptz NOT NULL,
		PRIMARY KEY (stop, host, session)
	);`,
	// 2: what hosts delete past their retention (Config.Retention), found
	// by time.
	`CREATE INDEX interlock_events_at ON interlock_events (host, at);
	CREATE INDEX interlock_audit_at ON interlock_audit (host, at);
	CREATE INDEX interlock_commands_done ON interlock_commands (host, done_at) WHERE state <> 'pending';
	CREATE INDEX interlock_stops_expires ON interlock_stops (expires_at);`,
	// 3: a mirrored snapshot is the engine's JSON (Go's, as a local store and
	// web UI have it), no longer the camelCase wire format. A row of the old
	// format is dropped: its host writes every session again when it
	// reconnects (resync).
	`DELETE FROM interlock_sessions WHERE snapshot ? 'runState';`,
	// 4: commands that revoke a host's remembered approval (kind revoke:
	// the grant's tool, key and root) or send a session a prompt (kind
	// prompt: its text). Commands of kind stop need no column of their own.
	// IF NOT EXISTS: a database set back to an older version migrates again.
	`ALTER TABLE interlock_commands ADD COLUMN IF NOT EXISTS tool text NOT NULL DEFAULT '',
		ADD COLUMN IF NOT EXISTS grant_key text NOT NULL DEFAULT '',
		ADD COLUMN IF NOT EXISTS root text NOT NULL DEFAULT '',
		ADD COLUMN IF NOT EXISTS prompt text NOT NULL DEFAULT '';`,
	// 5: cheaper rows for the server, which may share its CPU with the
	// sessions of a host. A transition's body is kept as the host wrote
	// it (json: checked, not converted; nothing reads inside it), and
	// retention finds old transitions and audit entries by a BRIN index of
	// their time (rows come in roughly in time order), not a btree. Copying
	// 6,012 mirrored events took the server 5-8 ticks of CPU against 7-13,
	// and BRIN for the audit entries' time took two fifths off theirs.
	`ALTER TABLE interlock_events ALTER COLUMN body TYPE json USING body::json;
	DROP INDEX IF EXISTS interlock_events_at;
	DROP INDEX IF EXISTS interlock_audit_at;
	CREATE INDEX interlock_events_at ON interlock_events USING brin (at);
	CREATE INDEX interlock_audit_at ON interlock_audit USING brin (at);`,
}

// SchemaVersion is the version of the hub's tables this library makes.
var SchemaVersion = len(migrations)

// migrationLock is the advisory lock key under which tables are made: two
// hosts starting at once on an empty database make them once.
const migrationLock = 0x1e7e_10c4

// migrate brings the hub's tables to SchemaVersion, in one transaction.
func migrate(ctx context.Context, conn *pgx.Conn) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLock); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS interlock_schema (version int NOT NULL)`); err != nil {
		return fmt.Errorf("hub: creating the schema table (the role needs CREATE on the database's schema, or an administrator runs the first start): %w", err)
	}
	var have int
	err = tx.QueryRow(ctx, `SELECT version FROM interlock_schema`).Scan(&have)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		if _, err := tx.Exec(ctx, `INSERT INTO interlock_schema VALUES (0)`); err != nil {
			return err
		}
	case err != nil:
		return err
	}
	if have > SchemaVersion {
		return fmt.Errorf("%w: the database is at schema version %d, this library knows up to %d: upgrade agent-interlock on this host", ErrNewerSchema, have, SchemaVersion)
	}
	if have == SchemaVersion {
		return tx.Commit(ctx)
	}
	for v := have; v < SchemaVersion; v++ {
		if _, err := tx.Exec(ctx, migrations[v]); err != nil {
			return fmt.Errorf("hub: migrating the tables to schema version %d: %w", v+1, err)
		}
	}
	if _, err := tx.Exec(ctx, `UPDATE interlock_schema SET version = $1`, SchemaVersion); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
