package hub

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/store"
)

// Command states and the codes of a refusal (Result.Code).
const (
	StatePending = "pending"
	StateApplied = "applied"
	StateRefused = "refused"

	CodeExpired        = "expired"         // its expiry passed before the host applied it
	CodeStale          = "stale"           // the pause is no longer pending, or the client had not seen it
	CodeAltered        = "altered"         // what the client was shown differs from the pause
	CodeUnknownSession = "unknown_session" // the host has no such session
	CodeInvalid        = "invalid"         // the answer does not fit the pause
	CodeNotEligible    = "not_eligible"    // a continue or a prompt: the session cannot take it now (running, finished, asking)
	CodeUnknownGrant   = "unknown_grant"   // a revoke: the host remembers no such approval (revoked already)
	CodeNotRunning     = "not_running"     // a stop: the session runs nothing to stop
)

// Command kinds: an answer to a pause, a continue of an interrupted
// session (Fleet.Continue), the revoke of a remembered approval
// (Fleet.Revoke), the stop of one session (Fleet.Interrupt) and a prompt
// (Fleet.Prompt).
const (
	kindAnswer   = "answer"
	kindContinue = "continue"
	kindRevoke   = "revoke"
	kindStop     = "stop"
	kindPrompt   = "prompt"
)

// command is a command addressed to this host, as read from the hub.
type command struct {
	id                           int64
	kind                         string
	session, pause, digest       string
	seen                         int64
	answer, reason, remember, by string
	tool, key, root              string // a revoke: the grant
	prompt                       string
	expired                      bool
}

// outcome is what applying a command did; none (state "") when the host
// closed meanwhile, and the command stays pending.
type outcome struct {
	state, code, message string
	audit                *store.AuditEntry // its entry in both audit logs, if any (commandAudit)
}

// pollEvery is how often a host looks for commands and stops without a
// notification (one lost with a connection, an expiry passing).
const pollEvery = 5 * time.Second

// commands takes the commands and stops addressed to this host: those
// waiting when it connects, then each announced by a notification.
func (h *Host) commands(ctx context.Context, conn *pgx.Conn) error {
	for {
		if err := h.applyCommands(ctx, conn); err != nil {
			return err
		}
		if err := h.applyStops(ctx, conn); err != nil {
			return err
		}
		wctx, cancel := context.WithTimeout(ctx, pollEvery)
		_, err := conn.WaitForNotification(wctx)
		cancel()
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
	}
}

// applyCommands applies the pending answers addressed to this host, each
// once: the rows are locked while they are applied and marked applied or
// refused in the same transaction.
func (h *Host) applyCommands(ctx context.Context, conn *pgx.Conn) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.Background())
	rows, err := tx.Query(ctx, `SELECT id, kind, session, pause, seen, digest, answer, reason, remember, by, tool, grant_key, root, prompt, expires_at <= clock_timestamp()
		FROM interlock_commands WHERE host = $1 AND state = 'pending' AND kind IN ('answer', 'continue', 'revoke', 'stop', 'prompt') ORDER BY id FOR UPDATE SKIP LOCKED`, h.cfg.Host)
	if err != nil {
		return err
	}
	var cmds []command
	for rows.Next() {
		var c command
		if err := rows.Scan(&c.id, &c.kind, &c.session, &c.pause, &c.seen, &c.digest, &c.answer, &c.reason, &c.remember, &c.by, &c.tool, &c.key, &c.root, &c.prompt, &c.expired); err != nil {
			rows.Close()
			return err
		}
		cmds = append(cmds, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(cmds) == 0 {
		return nil
	}
	b := &pgx.Batch{}
	for _, c := range cmds {
		o := h.apply(ctx, c)
		if o.state == "" {
			continue
		}
		b.Queue(`UPDATE interlock_commands SET state = $2, code = $3, message = $4, done_at = clock_timestamp() WHERE id = $1`, c.id, o.state, o.code, o.message)
		if a := o.audit; a != nil {
			b.Queue(`INSERT INTO interlock_audit (host, session, pause, event, kind, tool, message, answer, reason, by, at)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
				h.cfg.Host, a.Session, a.Pause, a.Event, a.Kind, a.Tool, a.Message, a.Answer, a.Reason, a.By, a.At)
		}
		b.Queue(`SELECT pg_notify('interlock_done', $1)`, strconv.FormatInt(c.id, 10))
	}
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return err
	}
	h.doneMu.Lock()
	for _, c := range cmds {
		delete(h.applied, c.id)
	}
	h.doneMu.Unlock()
	return nil
}

// commandAudit is the audit entry of what became of c, for the host's log
// and the hub's: every refusal, and each continue, stop or prompt applied
// (an applied answer or revoke has its event's entry, which says who sent
// it); nil for none.
func commandAudit(c command, o outcome) *store.AuditEntry {
	if o.state == StateApplied && (c.kind == kindAnswer || c.kind == kindRevoke) {
		return nil
	}
	a := &store.AuditEntry{At: time.Now(), Session: c.session, Pause: c.pause, Event: o.state, Answer: c.answer, By: c.by}
	if o.state == StateRefused {
		a.Reason = o.code + ": " + o.message
	}
	switch c.kind {
	case kindRevoke: // what it would have revoked
		a.Kind, a.Tool, a.Message = kindRevoke, c.tool, c.key
	case kindContinue, kindStop, kindPrompt:
		a.Kind, a.Message = c.kind, c.prompt
	}
	return a
}

// apply answers c's pause if it is still the pause its client was shown,
// or says why not. An outcome the hub has not yet recorded (its commit
// failed) is given again, never applied twice.
func (h *Host) apply(ctx context.Context, c command) outcome {
	h.doneMu.Lock()
	if o, ok := h.applied[c.id]; ok {
		h.doneMu.Unlock()
		return o
	}
	h.doneMu.Unlock()
	o := h.check(ctx, c)
	if o.state == "" {
		return o
	}
	if o.audit = commandAudit(c, o); o.audit != nil { // the host's own audit log has it too
		if err := h.eng.RecordAudit(ctx, *o.audit); err != nil {
			h.logf("%v", err)
		}
	}
	h.doneMu.Lock()
	h.applied[c.id] = o
	h.doneMu.Unlock()
	return o
}

func refused(code, format string, args ...any) outcome {
	return outcome{state: StateRefused, code: code, message: fmt.Sprintf(format, args...)}
}

func (h *Host) check(ctx context.Context, c command) outcome {
	switch c.kind {
	case kindContinue:
		return h.checkContinue(c)
	case kindRevoke:
		return h.checkRevoke(ctx, c)
	case kindStop:
		return h.checkStop(ctx, c)
	case kindPrompt:
		return h.checkPrompt(c)
	}
	if c.expired {
		return refused(CodeExpired, "the answer to pause %s of session %s expired before host %s could apply it; answer again", c.pause, c.session, h.cfg.Host)
	}
	s, err := h.eng.Session(c.session)
	if err != nil {
		return refused(CodeUnknownSession, "host %s has no session %q (closed meanwhile?)", h.cfg.Host, c.session)
	}
	var shown *engine.Pause
	for _, p := range s.Pauses() {
		if p.ID == c.pause {
			shown = &p
			break
		}
	}
	switch {
	case shown == nil:
		return refused(CodeStale, "pause %s of session %s is no longer pending on host %s (answered or interrupted meanwhile)", c.pause, c.session, h.cfg.Host)
	case uint64(c.seen) < shown.Version:
		return refused(CodeStale, "the client saw session %s at version %d, before pause %s was raised (version %d)", c.session, c.seen, c.pause, shown.Version)
	case Digest(*shown) != c.digest:
		return refused(CodeAltered, "pause %s of session %s on host %s is not what the client was shown; answer the pause as shown now", c.pause, c.session, h.cfg.Host)
	}
	opts := []engine.AnswerOption{engine.AnsweredBy(c.by)}
	if c.reason != "" {
		opts = append(opts, engine.WithReason(c.reason))
	}
	if c.remember != "" {
		opts = append(opts, engine.Remember(c.remember))
	}
	switch engine.Answer(c.answer) {
	case engine.AnswerApproved, engine.AnswerDenied:
		err = s.Confirm(c.pause, c.answer == string(engine.AnswerApproved), opts...)
	case engine.AnswerResumed:
		err = s.Resume(c.pause, opts...)
	default:
		return refused(CodeInvalid, "answer %q: want approved, denied or resumed", c.answer)
	}
	switch {
	case errors.Is(err, engine.ErrUnknownPause), errors.Is(err, engine.ErrNotPaused), errors.Is(err, engine.ErrClosed):
		return refused(CodeStale, "%v", err)
	case err != nil:
		return refused(CodeInvalid, "%v", err)
	}
	return outcome{state: StateApplied}
}

// sessionAsSeen is c's session if c has not expired and the session is at
// the version its client saw (a continue, a prompt); else nil and the
// refusal. what and again word the expiry: "the continue of", "continue
// again".
func (h *Host) sessionAsSeen(c command, what, again string) (*engine.Session, outcome) {
	if c.expired {
		return nil, refused(CodeExpired, "%s session %s expired before host %s could apply it; %s", what, c.session, h.cfg.Host, again)
	}
	s, err := h.eng.Session(c.session)
	if err != nil {
		return nil, refused(CodeUnknownSession, "host %s has no session %q (closed meanwhile?)", h.cfg.Host, c.session)
	}
	if v := s.Version(); uint64(c.seen) != v {
		return nil, refused(CodeStale, "session %s on host %s changed since the client saw it (version %d, now %d): look at it again", c.session, h.cfg.Host, c.seen, v)
	}
	return s, outcome{}
}

// checkContinue continues c's session if it is as its client saw it (the
// same version) and can be continued, or says why not.
func (h *Host) checkContinue(c command) outcome {
	s, o := h.sessionAsSeen(c, "the continue of", "continue again")
	if s == nil {
		return o
	}
	// The run belongs to the host's engine, not to this command.
	if _, _, err := s.StartContinue(context.Background()); err != nil {
		return refused(CodeNotEligible, "continue session %s on host %s: %v", c.session, h.cfg.Host, err)
	}
	return outcome{state: StateApplied}
}

// checkRevoke revokes the approval c names, one this host remembers for a
// project, or says why not. Its audit entries (the host's, and the hub's
// from the mirror) say who revoked it.
func (h *Host) checkRevoke(ctx context.Context, c command) outcome {
	what := fmt.Sprintf("%s %q for project %s", c.tool, c.key, c.root)
	if c.expired {
		return refused(CodeExpired, "the revoke of %s expired before host %s could apply it; revoke again", what, h.cfg.Host)
	}
	g := engine.Grant{Tool: c.tool, Key: c.key, Scope: engine.RememberProject, Root: c.root}
	k := revokeKey{g.Tool, g.Key, g.Root}
	// Set before the revocation's event can reach the mirror; one still set
	// is an earlier revoke's, not yet mirrored (this one is then refused).
	h.doneMu.Lock()
	_, earlier := h.revokes[k]
	if !earlier {
		h.revokes[k] = c.by
	}
	h.doneMu.Unlock()
	err := h.eng.RevokeGrant(ctx, g)
	if err != nil && !earlier {
		h.doneMu.Lock()
		delete(h.revokes, k)
		h.doneMu.Unlock()
	}
	switch {
	case errors.Is(err, engine.ErrUnknownGrant):
		return refused(CodeUnknownGrant, "host %s remembers no approval of %s (revoked already?); the list shows what is remembered now", h.cfg.Host, what)
	case err != nil:
		return refused(CodeInvalid, "revoke %s on host %s: %v", what, h.cfg.Host, err)
	}
	if err := h.eng.RecordAudit(ctx, store.AuditEntry{At: time.Now(), Event: "grant " + engine.GrantRevoked, Kind: engine.RememberProject,
		Tool: c.tool, Message: c.key, Reason: c.root, By: c.by}); err != nil {
		h.logf("%v", err)
	}
	return outcome{state: StateApplied}
}

// revokeKey names a project grant revoked by a command, until the mirror
// writes its revocation with who revoked it.
type revokeKey struct{ tool, key, root string }

// revokedBy returns who revoked g from the hub, if a command did.
func (h *Host) revokedBy(g *engine.Grant) string {
	k := revokeKey{g.Tool, g.Key, g.Root}
	h.doneMu.Lock()
	defer h.doneMu.Unlock()
	by, ok := h.revokes[k]
	if ok {
		delete(h.revokes, k)
	}
	return by
}

// checkStop stops c's session as a user's Stop does, and says it is
// applied once its process trees are gone, or says why not.
func (h *Host) checkStop(ctx context.Context, c command) outcome {
	if c.expired {
		return refused(CodeExpired, "the stop of session %s expired before host %s could apply it; stop it again if it still runs", c.session, h.cfg.Host)
	}
	s, err := h.eng.Session(c.session)
	if err != nil {
		return refused(CodeUnknownSession, "host %s has no session %q (closed meanwhile?)", h.cfg.Host, c.session)
	}
	err = s.InterruptWait(ctx, engine.ReasonUserStop)
	switch {
	case errors.Is(err, engine.ErrNotRunning):
		return refused(CodeNotRunning, "session %s on host %s runs nothing to stop (%s)", c.session, h.cfg.Host, s.Status())
	case errors.Is(err, engine.ErrClosed):
		return refused(CodeUnknownSession, "host %s has no session %q (closed meanwhile)", h.cfg.Host, c.session)
	case err != nil && ctx.Err() != nil: // the host is closing: no outcome, the command stays pending
		return outcome{}
	case err != nil:
		return refused(CodeInvalid, "stop session %s on host %s: %v", c.session, h.cfg.Host, err)
	}
	return outcome{state: StateApplied}
}

// checkPrompt sends c's prompt to its session if it is as its client saw
// it (the same version) and can take a prompt now, or says why not.
func (h *Host) checkPrompt(c command) outcome {
	s, o := h.sessionAsSeen(c, "the prompt to", "send it again")
	if s == nil {
		return o
	}
	// The run belongs to the host's engine, not to this command.
	if _, _, err := s.Start(context.Background(), c.prompt); err != nil {
		code := CodeNotEligible
		if errors.Is(err, engine.ErrInvalidArgument) {
			code = CodeInvalid
		}
		return refused(code, "send to session %s on host %s: %v", c.session, h.cfg.Host, err)
	}
	return outcome{state: StateApplied}
}

// applyStops carries out the fleet's emergency stops in force that this
// host has not yet carried out (one made while it was offline included),
// and writes a receipt per session it stopped once the session's process
// trees are gone.
func (h *Host) applyStops(ctx context.Context, conn *pgx.Conn) error {
	rows, err := conn.Query(ctx, `SELECT id FROM interlock_stops s WHERE expires_at > clock_timestamp()
		AND NOT EXISTS (SELECT 1 FROM interlock_stop_hosts d WHERE d.stop = s.id AND d.host = $1) ORDER BY id`, h.cfg.Host)
	if err != nil {
		return err
	}
	stops, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil || len(stops) == 0 {
		return err
	}
	began := time.Now()
	rep := h.eng.EmergencyStop() // returns once the stopped commands' trees are gone
	h.logf("emergency stop %v: stopped %d sessions, their process trees gone in %v", stops, len(rep.Stopped), time.Since(began))
	b := &pgx.Batch{}
	for _, id := range stops {
		for _, s := range rep.Stopped {
			b.Queue(`INSERT INTO interlock_stop_receipts (stop, host, session, gone_at) VALUES ($1, $2, $3, clock_timestamp()) ON CONFLICT DO NOTHING`, id, h.cfg.Host, s)
		}
		b.Queue(`INSERT INTO interlock_stop_hosts (stop, host, done_at, stopped) VALUES ($1, $2, clock_timestamp(), $3) ON CONFLICT DO NOTHING`, id, h.cfg.Host, len(rep.Stopped))
		b.Queue(`SELECT pg_notify('interlock_done', $1)`, "stop "+strconv.FormatInt(id, 10))
	}
	return sendTx(ctx, conn, b)
}
