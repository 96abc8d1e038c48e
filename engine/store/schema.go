package store

import (
	"fmt"
	"strings"
)

// applicationID marks an SQLite file as an Interlock store ("ILK1"): a
// file without it is someone else's and is never opened.
const applicationID = 0x494c4b31

// migrations bring a store from schema version i to i+1 (PRAGMA
// user_version). Append only: never edit a released migration.
var migrations = []string{
	// 1: the first schema.
	`
CREATE TABLE sessions (
	id           TEXT PRIMARY KEY,
	seq          INTEGER NOT NULL,          -- creation order
	created_at   INTEGER NOT NULL,          -- unix ms
	options      TEXT NOT NULL,             -- JSON: dir, model, env names (never values)
	state        TEXT NOT NULL,             -- idle | proceeding | ended
	run          INTEGER NOT NULL DEFAULT 0, -- the run in flight, or the last one
	last_end     INTEGER NOT NULL DEFAULT 0, -- how the last run ended (engine's runEnd)
	interruption TEXT,                      -- JSON of the last interruption
	tokens_in    INTEGER NOT NULL DEFAULT 0,
	tokens_out   INTEGER NOT NULL DEFAULT 0,
	step         INTEGER NOT NULL DEFAULT 0,
	last_error   TEXT NOT NULL DEFAULT '',
	needs_input  TEXT                       -- JSON of a question cut by a restart
) WITHOUT ROWID;
CREATE TABLE history (
	session TEXT NOT NULL,
	idx     INTEGER NOT NULL,
	message TEXT NOT NULL,                  -- JSON
	PRIMARY KEY (session, idx)
) WITHOUT ROWID;
CREATE TABLE interruptions (
	id      INTEGER PRIMARY KEY,
	session TEXT NOT NULL,
	run     INTEGER NOT NULL,
	reason  TEXT NOT NULL,
	label   TEXT NOT NULL,
	at      INTEGER NOT NULL,
	detail  TEXT NOT NULL                   -- JSON of the interruption
);
CREATE INDEX interruptions_session ON interruptions (session);
CREATE TABLE pauses (
	session TEXT NOT NULL,
	id      TEXT NOT NULL,
	run     INTEGER NOT NULL,
	pause   TEXT NOT NULL,                  -- JSON
	PRIMARY KEY (session, id)
) WITHOUT ROWID;
CREATE TABLE grants (
	id      INTEGER PRIMARY KEY,
	session TEXT NOT NULL,
	tool    TEXT NOT NULL,
	action  TEXT NOT NULL,                  -- what was approved (the pause's details)
	dir     TEXT NOT NULL,                  -- the session's directory (the project)
	by      TEXT NOT NULL,
	at      INTEGER NOT NULL
);
CREATE TABLE task_loops (
	session TEXT NOT NULL,
	loop    TEXT NOT NULL,
	state   TEXT NOT NULL,                  -- JSON of the loop's state, tasks included
	PRIMARY KEY (session, loop)
) WITHOUT ROWID;
CREATE TABLE task_states (
	session TEXT NOT NULL,
	loop    TEXT NOT NULL,
	idx     INTEGER NOT NULL,
	title   TEXT NOT NULL,
	status  TEXT NOT NULL,
	error   TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (session, loop, idx)
) WITHOUT ROWID;
CREATE TABLE audit (
	id       INTEGER PRIMARY KEY,
	at       INTEGER NOT NULL,              -- unix ms
	session  TEXT NOT NULL,
	run      INTEGER NOT NULL,
	pause    TEXT NOT NULL,
	event    TEXT NOT NULL,                 -- raised | answered | recovered
	kind     TEXT NOT NULL,                 -- continue | confirm
	tool     TEXT NOT NULL,
	message  TEXT NOT NULL,
	answer   TEXT NOT NULL DEFAULT '',      -- resumed | approved | denied | interrupted | timed_out
	reason   TEXT NOT NULL DEFAULT '',
	by       TEXT NOT NULL DEFAULT '',
	remember TEXT NOT NULL DEFAULT ''
);
CREATE INDEX audit_session ON audit (session);
`,
	// 2: what kind of run is in flight (a task loop's or a host's own run
	// cannot be resumed by the engine), and the last pause number, so that
	// a pause raised after a restart never takes the id of an older one.
	`
ALTER TABLE sessions ADD COLUMN run_kind TEXT NOT NULL DEFAULT 'prompt';
ALTER TABLE sessions ADD COLUMN pause_seq INTEGER NOT NULL DEFAULT 0;
`,
	// 3: grants are the project grants tools hold (one row per approved
	// action and project root, revoked by deleting it), no longer a copy
	// of each answer (the audit log keeps those), so the rows of before
	// are dropped.
	`
DELETE FROM grants;
CREATE UNIQUE INDEX grants_action ON grants (tool, dir, action);
`,
	// 4: approvals a session remembered for itself (session scope), kept
	// with the session and forgotten with it.
	`
CREATE TABLE session_grants (
	session TEXT NOT NULL,
	tool TEXT NOT NULL,
	action TEXT NOT NULL,
	by TEXT NOT NULL DEFAULT '',
	at INTEGER NOT NULL,
	PRIMARY KEY (session, tool, action)
) WITHOUT ROWID;
`,
	// 5: what a task loop's tasks are, so that a loop of prompt tasks can
	// be resumed after a restart: a prompt task's prompt and the
	// description of its own model (never a secret); a Go function task
	// cannot be made again. Rows written before have kind '' (unknown).
	`
ALTER TABLE task_states ADD COLUMN kind TEXT NOT NULL DEFAULT '';   -- prompt | func
ALTER TABLE task_states ADD COLUMN prompt TEXT NOT NULL DEFAULT '';
ALTER TABLE task_states ADD COLUMN provider TEXT;                   -- JSON description of the task's own model
`,
	// 6: a session's options live in a table of their own, written once
	// at its creation: the session's row, updated by every transition
	// (counters, run started and ended), stays a few dozen bytes instead
	// of carrying the options (a script session's options hold its whole
	// script, ~100 KB in the JS bench, which every update of the row read
	// and rewrote). Every session's options are copied before the column
	// goes.
	`
CREATE TABLE session_options (
	session TEXT PRIMARY KEY,
	options TEXT NOT NULL                   -- JSON: dir, model, env names (never values)
) WITHOUT ROWID;
INSERT INTO session_options (session, options) SELECT id, options FROM sessions;
ALTER TABLE sessions DROP COLUMN options;
`,
	// 7: no index on the audit log's session: each raise, answer and
	// approval by a grant wrote a page of it, and only recovery read by it
	// (the last pause raised by a session that was proceeding). An
	// answered pause's row now stays in pauses, marked ended, until its
	// run ends (the run's end writes the session's last pause number and
	// deletes them): a pause's number is never reused after a restart
	// without reading the audit log. The sessions proceeding in a store of
	// before get their last raise's number from the audit log first.
	`
ALTER TABLE pauses ADD COLUMN ended INTEGER NOT NULL DEFAULT 0;   -- 1: answered, kept for its number until the run ends
UPDATE sessions SET pause_seq = max(pause_seq, coalesce((SELECT max(CAST(substr(a.pause, 2) AS INTEGER)) FROM audit a
	WHERE a.session = sessions.id AND a.event = 'raised'), 0)) WHERE state = 'proceeding';
DROP INDEX audit_session;
`,
	// 8: a stop requested while the run unwinds (a tool being killed):
	// why and when, so that an owner killed then comes back with what the
	// user did (Stopped by you), not a server restart. A new run clears it.
	`
ALTER TABLE sessions ADD COLUMN stop_reason TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN stop_at INTEGER NOT NULL DEFAULT 0;   -- unix ms
`,
	// 9: a session its user is closing while its run unwinds: an owner
	// killed then finishes the close (the session is forgotten) instead of
	// bringing it back to be continued.
	`
ALTER TABLE sessions ADD COLUMN closing INTEGER NOT NULL DEFAULT 0;
`,
	// 10: a model's description (a session's own, a task's) in the JSON
	// hosts write, camelCase (the engine's one form for what hosts pass
	// in): an openai provider's base_url, api_key_env, max_tokens,
	// max_retries and retry_wait_ms, and a script's turns' tool_calls and
	// chunk_delay_ms are renamed, their values kept (a tool call's args
	// and a provider's headers are the user's own: untouched).
	camelModels("session_options", "options", "$.provider") + camelModels("task_states", "provider", "$"),
}

// SchemaVersion is the schema version this package writes.
var SchemaVersion = len(migrations)

// camelModels is the SQL of migration 10 for the model descriptions in
// column col of table, at JSON path base: each snake_case key renamed.
func camelModels(table, col, base string) string {
	var b strings.Builder
	for _, k := range [][2]string{{"base_url", "baseUrl"}, {"api_key_env", "apiKeyEnv"}, {"max_tokens", "maxTokens"}, {"max_retries", "maxRetries"}, {"retry_wait_ms", "retryWaitMs"}} {
		old, new := base+"."+k[0], base+"."+k[1]
		fmt.Fprintf(&b, "UPDATE %[1]s SET %[2]s = json_remove(json_set(%[2]s, '%[4]s', %[2]s -> '%[3]s'), '%[3]s') WHERE json_type(%[2]s, '%[3]s') IS NOT NULL;\n", table, col, old, new)
	}
	for _, k := range [][2]string{{"tool_calls", "toolCalls"}, {"chunk_delay_ms", "chunkDelayMs"}} {
		fmt.Fprintf(&b, `UPDATE %[1]s SET %[2]s = json_set(%[2]s, '%[3]s.turns', json((SELECT json_group_array(json(CASE WHEN json_type(t.value, '$.%[4]s') IS NULL THEN t.value
	ELSE json_remove(json_set(t.value, '$.%[5]s', t.value -> '$.%[4]s'), '$.%[4]s') END) ORDER BY t.key) FROM json_each(%[1]s.%[2]s, '%[3]s.turns') t)))
	WHERE json_type(%[2]s, '%[3]s.turns') = 'array';
`, table, col, base, k[0], k[1])
	}
	return b.String()
}
