package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Load reads every stored session, in creation order, with its history,
// pending pauses and task loops.
func (st *Store) Load(ctx context.Context) ([]Session, error) {
	st.conn.Lock()
	defer st.conn.Unlock()
	rows, err := st.c.QueryContext(ctx, `SELECT s.id, s.seq, s.created_at, o.options, s.state, s.run, s.run_kind, s.pause_seq, s.last_end, s.interruption,
		s.tokens_in, s.tokens_out, s.step, s.last_error, s.needs_input, s.stop_reason, s.stop_at, s.closing FROM sessions s LEFT JOIN session_options o ON o.session = s.id ORDER BY s.seq`)
	if err != nil {
		return nil, st.fail("read sessions", err)
	}
	var out []Session
	index := map[string]int{}
	for rows.Next() {
		var s Session
		var created, stopAt int64
		var state string
		var options, in, needs sql.NullString
		if err := rows.Scan(&s.ID, &s.Seq, &created, &options, &state, &s.Run, &s.RunKind, &s.PauseSeq, &s.LastEnd, &in,
			&s.TokensIn, &s.TokensOut, &s.Step, &s.LastError, &needs, &s.StopReason, &stopAt, &s.Closing); err != nil {
			rows.Close()
			return nil, st.fail("read sessions", err)
		}
		s.CreatedAt, s.StopAt = fromMS(created), fromMS(stopAt)
		if options.Valid {
			s.Options = json.RawMessage(options.String)
		}
		s.Proceeding = state == "proceeding"
		if in.Valid {
			s.Interruption = json.RawMessage(in.String)
		}
		if needs.Valid {
			s.NeedsInput = json.RawMessage(needs.String)
		}
		index[s.ID] = len(out)
		out = append(out, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, st.fail("read sessions", err)
	}
	err = st.eachLocked(ctx, "read history", `SELECT session, message FROM history ORDER BY session, idx`, func(r *sql.Rows) error {
		var id, msg string
		if err := r.Scan(&id, &msg); err != nil {
			return err
		}
		if i, ok := index[id]; ok {
			out[i].History = append(out[i].History, json.RawMessage(msg))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// A raise does not write the session's row (PauseRaised) and an
	// answer keeps the pause's row, ended (PauseEnded), until the run's
	// end writes the last pause's number: the session's last number is
	// the greatest of its row and its pauses', ended or not.
	err = st.eachLocked(ctx, "read pauses", `SELECT p.session, p.id, CAST(substr(p.id, 2) AS INTEGER), p.run, p.pause, p.ended FROM pauses p ORDER BY p.session, 3`, func(r *sql.Rows) error {
		var id string
		var p Pause
		var seq uint64
		var pause string
		var ended bool
		if err := r.Scan(&id, &p.ID, &seq, &p.Run, &pause, &ended); err != nil {
			return err
		}
		p.Pause = json.RawMessage(pause)
		if i, ok := index[id]; ok {
			if !ended {
				out[i].Pauses = append(out[i].Pauses, p)
			}
			out[i].PauseSeq = max(out[i].PauseSeq, seq)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = st.eachLocked(ctx, "read session grants", `SELECT session, tool, action, by, at FROM session_grants ORDER BY session, at`, func(r *sql.Rows) error {
		var id string
		var g SessionGrant
		var at int64
		if err := r.Scan(&id, &g.Tool, &g.Action, &g.By, &at); err != nil {
			return err
		}
		g.At = fromMS(at)
		if i, ok := index[id]; ok {
			out[i].Grants = append(out[i].Grants, g)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	loops := map[[2]string]*Loop{}
	err = st.eachLocked(ctx, "read task loops", `SELECT session, loop, state FROM task_loops ORDER BY session, loop`, func(r *sql.Rows) error {
		var id, loop, state string
		if err := r.Scan(&id, &loop, &state); err != nil {
			return err
		}
		if i, ok := index[id]; ok {
			out[i].Loops = append(out[i].Loops, Loop{ID: loop, State: json.RawMessage(state)})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i := range out {
		for j := range out[i].Loops {
			loops[[2]string{out[i].ID, out[i].Loops[j].ID}] = &out[i].Loops[j]
		}
	}
	err = st.eachLocked(ctx, "read task states", `SELECT session, loop, idx, title, status, error, kind, prompt, provider FROM task_states ORDER BY session, loop, idx`, func(r *sql.Rows) error {
		var id, loop string
		var t TaskState
		var provider sql.NullString
		if err := r.Scan(&id, &loop, &t.Index, &t.Title, &t.Status, &t.Error, &t.Kind, &t.Prompt, &provider); err != nil {
			return err
		}
		if provider.Valid {
			t.Provider = json.RawMessage(provider.String)
		}
		if l := loops[[2]string{id, loop}]; l != nil {
			l.Tasks = append(l.Tasks, t)
		}
		return nil
	})
	return out, err
}

// AuditLog returns the audit entries of a session ("" for every session),
// oldest first.
func (st *Store) AuditLog(ctx context.Context, session string) ([]AuditEntry, error) {
	var out []AuditEntry
	err := st.each(ctx, "read the audit log", `SELECT at, session, run, pause, event, kind, tool, message, answer, reason, by, remember
		FROM audit WHERE ?1 = '' OR session = ?1 ORDER BY id`, func(r *sql.Rows) error {
		var a AuditEntry
		var at int64
		if err := r.Scan(&at, &a.Session, &a.Run, &a.Pause, &a.Event, &a.Kind, &a.Tool, &a.Message, &a.Answer, &a.Reason, &a.By, &a.Remember); err != nil {
			return err
		}
		a.At = fromMS(at)
		out = append(out, a)
		return nil
	}, session)
	return out, err
}

// ReadAuditLog returns the audit log of the store file at path (of one
// session, or "" for every session), oldest first, for a store no engine
// holds: it opens the file, reads the log and closes it, leaving the
// sessions as their last owner left them (no recovery runs). A store an
// engine has open is ErrLocked; a path with no file is ErrNotFound (nothing
// is created).
func ReadAuditLog(ctx context.Context, path, session string) ([]AuditEntry, error) {
	if path == Memory {
		return nil, fmt.Errorf("store %s: %w: a store in memory ends with its engine: give the path of a store file", path, ErrNotFound)
	}
	if path != "" {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("store %s: %w: give the path of a file an engine wrote (new Engine({store}))", path, ErrNotFound)
		}
	}
	st, err := Open(ctx, path)
	if err != nil {
		return nil, err
	}
	log, err := st.AuditLog(ctx, session)
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	return log, err
}

// Interruptions returns a session's interruptions, oldest first.
func (st *Store) Interruptions(ctx context.Context, session string) ([]Interruption, error) {
	var out []Interruption
	err := st.each(ctx, "read interruptions", `SELECT run, reason, label, at, detail FROM interruptions WHERE session = ? ORDER BY id`, func(r *sql.Rows) error {
		var in Interruption
		var at int64
		var detail string
		if err := r.Scan(&in.Run, &in.Reason, &in.Label, &at, &detail); err != nil {
			return err
		}
		in.At, in.Detail = fromMS(at), json.RawMessage(detail)
		out = append(out, in)
		return nil
	}, session)
	return out, err
}

// Grants returns the remembered approvals with project scope, oldest first.
func (st *Store) Grants(ctx context.Context) ([]Grant, error) {
	var out []Grant
	err := st.each(ctx, "read grants", `SELECT session, tool, action, dir, by, at FROM grants ORDER BY id`, func(r *sql.Rows) error {
		var g Grant
		var at int64
		if err := r.Scan(&g.Session, &g.Tool, &g.Action, &g.Dir, &g.By, &at); err != nil {
			return err
		}
		g.At = fromMS(at)
		out = append(out, g)
		return nil
	})
	return out, err
}

// each runs query and fn for each row, holding the connection.
func (st *Store) each(ctx context.Context, what, query string, fn func(*sql.Rows) error, args ...any) error {
	st.conn.Lock()
	defer st.conn.Unlock()
	return st.eachLocked(ctx, what, query, fn, args...)
}

func (st *Store) eachLocked(ctx context.Context, what, query string, fn func(*sql.Rows) error, args ...any) error {
	rows, err := st.c.QueryContext(ctx, query, args...)
	if err != nil {
		return st.fail(what, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return st.fail(what, err)
		}
	}
	if err := rows.Err(); err != nil {
		return st.fail(what, err)
	}
	return nil
}
