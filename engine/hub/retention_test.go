package hub_test

import (
	"context"
	"encoding/json"
	"io"
	"reflect"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/hub"
)

// The hub's history does not grow for ever: a host deletes its own
// transitions, audit entries and answered commands older than its
// retention (30 days by default) when it connects, and the fleet stops
// whose time in force ended that long ago; another host's history and
// anything younger stay, and a host with a negative retention keeps all.
func TestRetentionPrunesOldHistory(t *testing.T) {
	t.Parallel()
	url := newDB(t)
	openFleet(t, url) // the tables
	db, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := db.Exec(t.Context(), sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	// 40 days old and 1 day old, for the pruning host, another host that
	// does not run now, and a host that keeps everything.
	for _, host := range []string{"pruning", "away", "keeping"} {
		for _, age := range []string{"40 days", "1 day"} {
			exec(`INSERT INTO interlock_events (host, session, boot, version, type, status, at, body)
				VALUES ($1, 's', 'b', 1, 'run_started', 'running', now() - $2::interval, '{}')`, host, age)
			exec(`INSERT INTO interlock_audit (host, session, event, at) VALUES ($1, 's', 'raised', now() - $2::interval)`, host, age)
			exec(`INSERT INTO interlock_commands (host, kind, session, pause, created_at, expires_at, state, done_at)
				VALUES ($1, 'answer', 's', $3, now() - $2::interval, now() - $2::interval, 'applied', now() - $2::interval)`, host, age, age)
		}
	}
	// A pending answer of a host away is left for it.
	exec(`INSERT INTO interlock_commands (host, kind, session, pause, created_at, expires_at) VALUES ('away', 'answer', 's', 'pending', now() - '40 days'::interval, now() - '40 days'::interval)`)
	exec(`INSERT INTO interlock_stops (id, at, expires_at) VALUES (1, now() - '40 days'::interval, now() - '40 days'::interval), (2, now() - '1 day'::interval, now() - '1 day'::interval)`)
	exec(`INSERT INTO interlock_stop_receipts (stop, host, session, gone_at) VALUES (1, 'away', 's', now() - '40 days'::interval), (2, 'away', 's', now() - '1 day'::interval)`)

	count := func(sql string, args ...any) int {
		t.Helper()
		var n int
		if err := db.QueryRow(t.Context(), sql, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	left := func(host string) [3]int {
		return [3]int{
			count(`SELECT count(*) FROM interlock_events WHERE host = $1`, host),
			count(`SELECT count(*) FROM interlock_audit WHERE host = $1`, host),
			count(`SELECT count(*) FROM interlock_commands WHERE host = $1`, host),
		}
	}
	attach := func(name string, retention time.Duration) {
		var h *hub.Host
		eng, err := engine.Open(t.Context(), engine.WithAttachment(func(_ context.Context, e *engine.Engine) (io.Closer, error) {
			var err error
			h, err = hub.Attach(e, hub.Config{URL: url, Host: name, Retention: retention, Heartbeat: 50 * time.Millisecond})
			return h, err
		}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { eng.Close() })
		waitCtx(t, func(ctx context.Context) error { return h.WaitConnected(ctx, true) })
		// Its mirror has beaten once: it pruned (or not) before.
		eventually(t, name+"'s first heartbeat", func() bool {
			return count(`SELECT count(*) FROM interlock_hosts WHERE host = $1 AND seen_at > connected_at`, name) == 1
		})
	}
	attach("pruning", 0)
	attach("keeping", -1)

	if got := left("pruning"); got != [3]int{1, 1, 1} {
		t.Fatalf("the pruning host's events, audit entries, commands: %v; want the day-old ones (1, 1, 1)", got)
	}
	if n := count(`SELECT count(*) FROM interlock_commands WHERE host = 'pruning' AND pause = '40 days'`); n != 0 {
		t.Fatalf("an answered command of 40 days ago kept")
	}
	if got := left("away"); got != [3]int{2, 2, 3} {
		t.Fatalf("the host away's events, audit entries, commands: %v; want all (2, 2, 3)", got)
	}
	if got := left("keeping"); got != [3]int{2, 2, 2} {
		t.Fatalf("the keeping host's events, audit entries, commands: %v; want all (2, 2, 2)", got)
	}
	if got := count(`SELECT count(*) FROM interlock_stops`) + 10*count(`SELECT count(*) FROM interlock_stop_receipts`); got != 11 {
		t.Fatalf("stops + 10 x receipts: %d; want the stop of a day ago and its receipt (11)", got)
	}
	if v := count(`SELECT version FROM interlock_schema`); v != hub.SchemaVersion {
		t.Fatalf("schema version %d, library %d", v, hub.SchemaVersion)
	}
}

// A hub whose mirror holds snapshots in the old camelCase wire format
// (schema 2) drops those rows when a newer library opens it, and keeps
// the rows in the engine's JSON: the fleet view reads snapshots as they
// are, and an old row would show as a session without a state.
func TestMigrationDropsSnapshotsOfTheWireFormat(t *testing.T) {
	t.Parallel()
	url, db := olderHub(t,
		`UPDATE interlock_schema SET version = 2`,
		`INSERT INTO interlock_sessions (host, session, boot, version, status, run_state, snapshot)
			VALUES ('old', 'camel', 'b', 1, 'idle', 'idle', '{"id": "camel", "runState": "idle"}'),
			       ('old', 'snake', 'b', 1, 'idle', 'idle', '{"id": "snake", "run_state": "idle"}')`)
	openFleet(t, url)
	rows, _ := db.Query(t.Context(), `SELECT session FROM interlock_sessions ORDER BY session`)
	left, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 1 || left[0] != "snake" {
		t.Fatalf("mirrored sessions after the migration: %v; want [snake]", left)
	}
}

// A hub at schema 4 (bodies jsonb, btree time indexes) keeps its mirrored
// transitions through schema 5's rewrite: the body reads back the same,
// now json, and retention's time indexes are BRIN.
func TestMigrationKeepsTransitionsAsJSON(t *testing.T) {
	t.Parallel()
	const body = `{"at": "2026-11-29T08:00:00Z", "type": "paused", "pause": {"id": "p1", "message": "Deploy?"}, "session": "s", "version": 3}`
	url, db := olderHub(t, // schema 4 as it was
		`ALTER TABLE interlock_events ALTER COLUMN body TYPE jsonb USING body::jsonb`,
		`DROP INDEX interlock_events_at`,
		`DROP INDEX interlock_audit_at`,
		`CREATE INDEX interlock_events_at ON interlock_events (host, at)`,
		`CREATE INDEX interlock_audit_at ON interlock_audit (host, at)`,
		`UPDATE interlock_schema SET version = 4`,
		`INSERT INTO interlock_events (host, session, boot, version, type, status, at, body)
			VALUES ('old', 's', 'b', 3, 'paused', 'paused', '2026-11-29T08:00:00Z', '`+body+`')`)
	openFleet(t, url)
	var typ string
	var got map[string]any
	if err := db.QueryRow(t.Context(), `SELECT pg_typeof(body)::text, body FROM interlock_events WHERE host = 'old'`).Scan(&typ, &got); err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	json.Unmarshal([]byte(body), &want)
	if typ != "json" || !reflect.DeepEqual(got, want) {
		t.Fatalf("the transition after the migration: %s %v; want json %v", typ, got, want)
	}
	rows, _ := db.Query(t.Context(), `SELECT am.amname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam
		WHERE c.relname IN ('interlock_events_at', 'interlock_audit_at') ORDER BY c.relname`)
	methods, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(methods, []string{"brin", "brin"}) {
		t.Fatalf("retention's time indexes after the migration: %v; want brin, brin", methods)
	}
}

// olderHub makes a hub at the current schema, turns it back into an older
// one with statements, and returns its URL and a connection to it, for a
// test of what opening it with this library does.
func olderHub(t *testing.T, statements ...string) (string, *pgx.Conn) {
	t.Helper()
	url := newDB(t)
	openFleet(t, url).Close()
	db, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close(context.Background()) })
	for _, sql := range statements {
		if _, err := db.Exec(t.Context(), sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	return url, db
}
