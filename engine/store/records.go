package store

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Session is a session as stored. The engine's structured values (options,
// interruption, messages, pauses, loop states) are kept as its JSON.
type Session struct {
	ID        string
	Seq       int64 // creation order
	CreatedAt time.Time
	// Options are the session's options as JSON: never secrets (no
	// provider keys, no environment values).
	Options json.RawMessage
	// Proceeding: a run was in flight at the last write. Found on Load,
	// its owner died while the session was proceeding.
	Proceeding bool
	Run        uint64 // the run in flight, or the last one
	RunKind    string // "prompt", "loop" or "host": who drives the run
	// StopReason is why the run in flight was being stopped (RunStopping),
	// and StopAt when: "" when no stop was requested.
	StopReason string
	StopAt     time.Time
	// Closing: its user was closing it (SessionClosing); the close is
	// finished by the next owner.
	Closing bool
	// PauseSeq is the number of the last pause raised: written with the
	// session's other counters (Counters, RunEnded), not by the raise
	// itself; Load makes up for the raises since (see Load).
	PauseSeq     uint64
	LastEnd      int // how the last run ended, as the engine numbers it
	Interruption json.RawMessage
	TokensIn     int
	TokensOut    int
	Step         int
	LastError    string
	NeedsInput   json.RawMessage // a question cut by a restart
	History      []json.RawMessage
	Pauses       []Pause // pending, oldest first
	Loops        []Loop
	Grants       []SessionGrant // approvals remembered for this session alone
}

// SessionGrant is an approval a session remembered for itself.
type SessionGrant struct {
	Tool   string // the tool that asked, by its registered name
	Action string // what exactly was approved, as the tool keys it
	By     string
	At     time.Time
}

// Pause is a pending pause.
type Pause struct {
	ID    string
	Run   uint64
	Pause json.RawMessage
}

// Loop is a task loop's state, and its tasks' states.
type Loop struct {
	ID    string
	State json.RawMessage
	Tasks []TaskState
}

// TaskState is where one task of a loop stands and, as written by
// DefineLoop, what the task is.
type TaskState struct {
	Index  int
	Title  string
	Status string
	Error  string
	// Kind is "prompt" or "func" ("" in a store written before tasks were
	// described); Prompt and Provider (the description of the task's own
	// model, never a secret) describe a prompt task.
	Kind     string
	Prompt   string
	Provider json.RawMessage
}

// Interruption is one interruption of a run, with its reason.
type Interruption struct {
	Run    uint64
	Reason string
	Label  string
	At     time.Time
	Detail json.RawMessage
}

// AuditEntry is one decision about a pause: raised, answered (how, by
// which client, with which remember scope) or found pending after a restart.
type AuditEntry struct {
	At       time.Time `json:"at"`
	Session  string    `json:"session"`
	Run      uint64    `json:"run"`
	Pause    string    `json:"pause"`
	Event    string    `json:"event"` // "raised", "answered", "recovered"
	Kind     string    `json:"kind"`
	Tool     string    `json:"tool"`
	Message  string    `json:"message"`
	Answer   string    `json:"answer,omitempty"`
	Reason   string    `json:"reason,omitempty"`
	By       string    `json:"by,omitempty"`
	Remember string    `json:"remember,omitempty"`
}

// Grant is a remembered approval with project scope, as a tool keeps it.
type Grant struct {
	Session string // where it was given
	Tool    string // the tool that holds it, by its registered name
	Action  string // what exactly was approved, as the tool keys it
	Dir     string // the project root it is bound to
	By      string
	At      time.Time
}

// RunEnd is what is written when a run ends.
type RunEnd struct {
	Run          uint64
	LastEnd      int
	Interruption *Interruption
	TokensIn     int
	TokensOut    int
	Step         int
	LastError    string
	NeedsInput   json.RawMessage
	PauseSeq     uint64 // the number of the last pause raised
}

// Tx is one transaction: the writes of one transition, committed together.
type Tx struct {
	st         *Store
	ctx        context.Context
	err        error
	checkpoint bool // MayCheckpoint
	done       bool // Update returned
}

// MayCheckpoint says that nobody waits on this transaction's commit (the
// engine marks the tool results it appends just before the next model
// request): a checkpoint that is due runs right after it, on the same
// connection, instead of inside a later commit that an observer waits on.
func (tx *Tx) MayCheckpoint() { tx.checkpoint = true }

// statements prepared once per store, by name.
var statements = map[string]string{
	"begin":         `BEGIN IMMEDIATE`,
	"commit":        `COMMIT`,
	"rollback":      `ROLLBACK`,
	"checkpoint":    `PRAGMA wal_checkpoint(PASSIVE)`,
	"createSession": `INSERT INTO sessions (id, seq, created_at, state) VALUES (?, ?, ?, 'idle')`,
	"options":       `INSERT INTO session_options (session, options) VALUES (?, ?)`,
	"deleteSession": `DELETE FROM sessions WHERE id = ?`,
	"deleteOptions": `DELETE FROM session_options WHERE session = ?`,
	"deleteHistory": `DELETE FROM history WHERE session = ?`,
	"deletePauses":  `DELETE FROM pauses WHERE session = ?`,
	"deleteLoops":   `DELETE FROM task_loops WHERE session = ?`,
	"deleteTasks":   `DELETE FROM task_states WHERE session = ?`,
	"runStarted":    `UPDATE sessions SET state = 'proceeding', run = ?, run_kind = ?, needs_input = NULL, stop_reason = '' WHERE id = ?`,
	"runStopping":   `UPDATE sessions SET stop_reason = ?, stop_at = ? WHERE id = ?`,
	"closing":       `UPDATE sessions SET closing = 1 WHERE id = ?`,
	"runEnded": `UPDATE sessions SET state = 'ended', run = ?, last_end = ?, interruption = coalesce(?, interruption),
		tokens_in = ?, tokens_out = ?, step = ?, last_error = ?, needs_input = ?, pause_seq = max(pause_seq, ?) WHERE id = ?`,
	"interruption": `INSERT INTO interruptions (session, run, reason, label, at, detail) VALUES (?, ?, ?, ?, ?, ?)`,
	"history":      `INSERT INTO history (session, idx, message) VALUES (?, ?, ?)`,
	"counters":     `UPDATE sessions SET tokens_in = ?, tokens_out = ?, step = ?, pause_seq = max(pause_seq, ?) WHERE id = ?`,
	"pauseRaised":  `INSERT INTO pauses (session, id, run, pause) VALUES (?, ?, ?, ?)`,
	"pauseEnded":   `UPDATE pauses SET ended = 1, pause = '' WHERE session = ? AND id = ?`,
	// The fields an entry may leave empty are bound as NULL then, written
	// '' (the driver allocates for each text it binds).
	"audit": `INSERT INTO audit (at, session, run, pause, event, kind, tool, message, answer, reason, by, remember)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, coalesce(?, ''), coalesce(?, ''), coalesce(?, ''), coalesce(?, ''))`,
	"grant": `INSERT INTO grants (session, tool, action, dir, by, at) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (tool, dir, action) DO UPDATE SET session = excluded.session, by = excluded.by, at = excluded.at`,
	"revokeGrant":     `DELETE FROM grants WHERE tool = ? AND action = ?`,
	"loop":            `INSERT INTO task_loops (session, loop, state) VALUES (?, ?, ?) ON CONFLICT (session, loop) DO UPDATE SET state = excluded.state`,
	"deleteLoopTasks": `DELETE FROM task_states WHERE session = ? AND loop = ?`,
	"taskDef":         `INSERT INTO task_states (session, loop, idx, title, status, error, kind, prompt, provider) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	"task": `INSERT INTO task_states (session, loop, idx, title, status, error) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (session, loop, idx) DO UPDATE SET title = excluded.title, status = excluded.status, error = excluded.error`,
	"sessionGrant": `INSERT INTO session_grants (session, tool, action, by, at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (session, tool, action) DO UPDATE SET by = excluded.by, at = excluded.at`,
	"deleteSessionGrants": `DELETE FROM session_grants WHERE session = ?`,
	"revokeSessionGrant":  `DELETE FROM session_grants WHERE session = ? AND tool = ? AND action = ?`,
	"revokeProjectGrant":  `DELETE FROM grants WHERE tool = ? AND dir = ? AND action = ?`,
}

// stmt is a statement prepared on the store's connection, run through the
// driver (see Update) with its arguments in args, reused from call to call.
type stmt struct {
	s interface {
		driver.Stmt
		driver.StmtExecContext
	}
	args []driver.NamedValue
}

// prepare prepares the statements on the store's connection, through the
// driver: Update runs them there.
func (st *Store) prepare(ctx context.Context) error {
	st.stmts = make(map[string]*stmt, len(statements))
	return st.c.Raw(func(dc any) error {
		for name, q := range statements {
			s, err := dc.(driver.ConnPrepareContext).PrepareContext(ctx, q)
			if err != nil {
				return st.fail("prepare "+name, err)
			}
			es, ok := s.(interface {
				driver.Stmt
				driver.StmtExecContext
			})
			if !ok {
				s.Close()
				return fmt.Errorf("store %s: prepare %s: the SQLite driver's statement %T has no ExecContext", st.path, name, s)
			}
			st.stmts[name] = &stmt{s: es, args: make([]driver.NamedValue, 0, strings.Count(q, "?"))}
		}
		return nil
	})
}

// Update runs fn's writes in one transaction and commits it: with WAL and
// synchronous=NORMAL the commit is an append to the WAL in the OS's page
// cache, which survives the process being killed (not a power loss).
// Every statement, BEGIN and COMMIT included, is prepared once (Open) and
// run on the store's one connection, held by the Store, through the
// SQLite driver itself within one (*sql.Conn).Raw call: no parsing, and
// none of database/sql's per-call work (its arguments' copies and
// conversions, its result wrapper), which was most of what a transaction
// allocated.
func (st *Store) Update(ctx context.Context, fn func(*Tx)) error {
	st.mu.Lock()
	closed := st.closed
	st.mu.Unlock()
	if closed {
		return fmt.Errorf("store %s: %w", st.path, ErrClosed)
	}
	st.conn.Lock()
	defer st.conn.Unlock()
	tx := &Tx{st: st, ctx: ctx}
	defer func() { tx.done = true }()
	err := st.c.Raw(func(any) error {
		if tx.exec("begin"); tx.err != nil {
			return tx.err
		}
		fn(tx)
		if tx.err != nil {
			st.stmts["rollback"].exec(context.Background())
			return tx.err
		}
		if tx.exec("commit"); tx.err != nil {
			st.stmts["rollback"].exec(context.Background())
			return tx.err
		}
		st.commits++
		if tx.checkpoint && st.commits >= checkpointEvery {
			// Committed already: a checkpoint that fails leaves the WAL for
			// SQLite's own, which retries it and reports the error.
			st.stmts["checkpoint"].exec(context.Background())
			st.commits = 0
		}
		return nil
	})
	if err != nil && tx.err == nil { // the connection could not be had
		return st.fail("update", err)
	}
	return err
}

func (tx *Tx) exec(name string, args ...any) {
	if tx.done { // the driver's statements are for Update's Raw call alone
		panic("store: a Tx was used after its Update returned: make the writes within the Update's fn")
	}
	if tx.err != nil {
		return
	}
	if err := tx.st.stmts[name].exec(tx.ctx, args...); err != nil {
		tx.err = tx.st.fail(name, err)
	}
}

// exec runs s with args: strings, int64, int and uint64 (as database/sql
// converts them, a uint64 of 2^63 or more refused) and nil.
func (s *stmt) exec(ctx context.Context, args ...any) error {
	s.args = s.args[:0]
	for i, a := range args {
		switch v := a.(type) {
		case int:
			a = int64(v)
		case uint64:
			if v >= 1<<63 {
				return fmt.Errorf("argument %d: uint64 value %d is too large: SQLite stores integers of up to 2^63-1", i+1, v)
			}
			a = int64(v)
		case string, int64, nil:
		default:
			return fmt.Errorf("argument %d: unsupported type %T", i+1, a)
		}
		s.args = append(s.args, driver.NamedValue{Ordinal: i + 1, Value: a})
	}
	_, err := s.s.ExecContext(ctx, s.args)
	clear(s.args) // keep no argument alive until the next call
	return err
}

// CreateSession writes a new session: its row, and its options in a row
// of their own (written once: every transition updates the session's row,
// which stays small).
func (tx *Tx) CreateSession(s Session) {
	tx.exec("createSession", s.ID, s.Seq, ms(s.CreatedAt))
	tx.exec("options", s.ID, string(s.Options))
}

// DeleteSession forgets a closed session: its row, options, history,
// pauses, loops and session grants. Its interruptions, project grants and audit entries
// stay.
func (tx *Tx) DeleteSession(id string) {
	for _, name := range []string{"deleteSession", "deleteOptions", "deleteHistory", "deletePauses", "deleteLoops", "deleteTasks", "deleteSessionGrants"} {
		tx.exec(name, id)
	}
}

// RunStarted marks the session proceeding with run, of kind "prompt",
// "loop" or "host".
func (tx *Tx) RunStarted(session string, run uint64, kind string) {
	tx.exec("runStarted", run, kind, session)
}

// RunStopping records that the run in flight is being stopped, why and
// when: it ends when its tools have returned (RunEnded).
func (tx *Tx) RunStopping(session, reason string, at time.Time) {
	tx.exec("runStopping", reason, ms(at), session)
}

// SessionClosing records that the session's user is closing it while its
// run unwinds: DeleteSession follows once it has.
func (tx *Tx) SessionClosing(session string) { tx.exec("closing", session) }

// RunEnded records how a run ended; pending pauses end with it.
func (tx *Tx) RunEnded(session string, e RunEnd) {
	var in any
	if e.Interruption != nil {
		in = string(e.Interruption.Detail)
		tx.Interruption(session, *e.Interruption)
	}
	tx.exec("runEnded", e.Run, e.LastEnd, in, e.TokensIn, e.TokensOut, e.Step, e.LastError, nullJSON(e.NeedsInput), e.PauseSeq, session)
	tx.exec("deletePauses", session)
}

// Interruption appends an interruption to the session's record.
func (tx *Tx) Interruption(session string, in Interruption) {
	tx.exec("interruption", session, in.Run, in.Reason, in.Label, ms(in.At), string(in.Detail))
}

// AppendHistory appends messages at index from of the session's history.
func (tx *Tx) AppendHistory(session string, from int, msgs ...json.RawMessage) {
	for i, m := range msgs {
		tx.exec("history", session, from+i, string(m))
	}
}

// Counters records the session's token counts, step and the number of its
// last pause.
func (tx *Tx) Counters(session string, tokensIn, tokensOut, step int, pauseSeq uint64) {
	tx.exec("counters", tokensIn, tokensOut, step, pauseSeq, session)
}

// PauseRaised records a pending pause, whose id is "p" and its number.
// The session's row is left alone (one page less to write on the path of
// every pause): the number is written with the next Counters or RunEnded,
// and Load takes it from the pause's row until then (see PauseEnded).
func (tx *Tx) PauseRaised(session string, p Pause) {
	tx.exec("pauseRaised", session, p.ID, p.Run, string(p.Pause))
}

// PauseEnded forgets a pending pause (answered, timed out, interrupted).
// Its row stays, emptied and marked ended, until the run ends (RunEnded
// deletes it): Load takes the session's last pause number from it, so the
// answer writes only the page the pause was on, not the session's row.
func (tx *Tx) PauseEnded(session, id string) { tx.exec("pauseEnded", session, id) }

// Audit appends a decision to the audit log.
func (tx *Tx) Audit(a AuditEntry) {
	tx.exec("audit", ms(a.At), a.Session, a.Run, a.Pause, a.Event, a.Kind, a.Tool, a.Message, orNull(a.Answer), orNull(a.Reason), orNull(a.By), orNull(a.Remember))
}

// orNull is s, or nil (NULL) when s is empty.
func orNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Grant records a remembered approval with project scope (replacing one of
// the same tool, action and project root).
func (tx *Tx) Grant(g Grant) { tx.exec("grant", g.Session, g.Tool, g.Action, g.Dir, g.By, ms(g.At)) }

// SessionGrant records an approval session remembered for itself.
func (tx *Tx) SessionGrant(session string, g SessionGrant) {
	tx.exec("sessionGrant", session, g.Tool, g.Action, g.By, ms(g.At))
}

// RevokeSessionGrant forgets session's own grant of tool's action.
func (tx *Tx) RevokeSessionGrant(session, tool, action string) {
	tx.exec("revokeSessionGrant", session, tool, action)
}

// RevokeProjectGrant forgets tool's grant of action in the project at dir.
func (tx *Tx) RevokeProjectGrant(tool, dir, action string) {
	tx.exec("revokeProjectGrant", tool, dir, action)
}

// RevokeGrant forgets tool's grants of action, in every project.
func (tx *Tx) RevokeGrant(tool, action string) { tx.exec("revokeGrant", tool, action) }

// DefineLoop writes a new task loop: its state and its tasks, with what
// each task is (TaskState.Kind, Prompt, Provider). It replaces a loop of
// the same id. SaveLoop then writes the changes of state.
func (tx *Tx) DefineLoop(session string, l Loop) {
	tx.exec("loop", session, l.ID, string(l.State))
	tx.exec("deleteLoopTasks", session, l.ID)
	for _, t := range l.Tasks {
		tx.exec("taskDef", session, l.ID, t.Index, t.Title, t.Status, t.Error, t.Kind, t.Prompt, nullJSON(t.Provider))
	}
}

// SaveLoop writes a task loop's state and its tasks' states.
func (tx *Tx) SaveLoop(session string, l Loop) {
	tx.exec("loop", session, l.ID, string(l.State))
	for _, t := range l.Tasks {
		tx.exec("task", session, l.ID, t.Index, t.Title, t.Status, t.Error)
	}
}
