package engine

import (
	"context"
	"encoding/json"
	"time"

	"github.com/interlock-dev/interlock/engine/store"
)

// storeJournal is the journal of an engine with a store (WithStore): it
// writes each transition to the store, the transitions of one record in
// one transaction (see engine/store). The recovery of sessions whose
// previous owner died is recover.go; the audit API is store_audit.go.
type storeJournal struct {
	st *store.Store
	// afterCommit is called after each write has committed, with what it
	// recorded (nil but in the kill-point tests: WithAfterCommit).
	afterCommit func(what string)
}

// record writes ts in one transaction of the store: every write of the
// engine goes through it, so that a test can stop the process between two
// commits (afterCommit).
func (j *storeJournal) record(ctx context.Context, what string, ts ...transition) error {
	// Marshalled before the transaction: the slices of ts are the
	// session's, valid during this call only.
	ws := make([]func(*store.Tx), len(ts))
	for i := range ts {
		ws[i] = writer(&ts[i])
	}
	err := j.st.Update(ctx, func(tx *store.Tx) {
		for _, w := range ws {
			w(tx)
		}
	})
	if err == nil && j.afterCommit != nil {
		j.afterCommit(what)
	}
	return err
}

// writer returns what writes t.
func writer(t *transition) func(*store.Tx) {
	id, run := t.session, t.run
	bodies := marshalAll(t.history)
	from := t.from
	switch t.kind {
	case transSessionCreated:
		body, _ := json.Marshal(t.created)
		seq := int64(t.seq)
		return func(tx *store.Tx) {
			tx.CreateSession(store.Session{ID: id, Seq: seq, CreatedAt: time.Now(), Options: body})
		}
	case transRunStarted:
		kind := t.runKind
		return func(tx *store.Tx) {
			tx.RunStarted(id, run, kind)
			if len(bodies) > 0 {
				tx.AppendHistory(id, from, bodies...)
			}
		}
	case transHistory:
		c, checkpoint := t.counters, t.mayCheckpoint
		return func(tx *store.Tx) {
			tx.AppendHistory(id, from, bodies...)
			tx.Counters(id, c.tokens.Input, c.tokens.Output, c.step, c.pauseSeq)
			if checkpoint {
				tx.MayCheckpoint()
			}
		}
	case transPauseRaised:
		body, _ := json.Marshal(t.pause)
		p := store.Pause{ID: t.pause.ID, Run: run, Pause: body}
		a := auditOf(id, run, t.pause, "raised")
		return func(tx *store.Tx) {
			tx.PauseRaised(id, p)
			tx.Audit(a)
		}
	case transPauseAnswered:
		pauseID := t.pause.ID
		a := auditOf(id, run, t.pause, "answered")
		a.Answer, a.Reason, a.By, a.Remember = string(t.answer), t.answerReason, t.by, t.remember
		g := t.grant
		return func(tx *store.Tx) {
			tx.PauseEnded(id, pauseID)
			tx.Audit(a) // a grant a tool keeps itself (GrantKeeper) is written by the tool
			if g != nil {
				writeGrant(tx, g)
			}
		}
	case transGranted:
		a := store.AuditEntry{At: time.Now(), Session: id, Run: run, Event: "granted", Kind: string(PauseConfirm), Tool: t.tool,
			Message: t.text, Answer: string(t.answer), By: t.by, Remember: t.remember}
		return func(tx *store.Tx) { tx.Audit(a) }
	case transDecided:
		a := store.AuditEntry{At: time.Now(), Session: id, Run: run, Event: "decided", Kind: string(PauseConfirm), Tool: t.tool,
			Message: t.text, Answer: string(t.answer), Reason: t.answerReason, By: t.by}
		return func(tx *store.Tx) { tx.Audit(a) }
	case transStopping:
		reason, at := string(t.reason), t.at
		return func(tx *store.Tx) { tx.RunStopping(id, reason, at) }
	case transRunEnded:
		end := storedRunEnd(run, &t.end)
		return func(tx *store.Tx) {
			if len(bodies) > 0 {
				tx.AppendHistory(id, from, bodies...)
			}
			tx.RunEnded(id, end)
		}
	case transPauseRecovered:
		a := auditOf(id, run, t.pause, "recovered")
		a.Answer, a.Reason = string(t.answer), t.answerReason
		return func(tx *store.Tx) { tx.Audit(a) }
	case transSessionClosing:
		return func(tx *store.Tx) { tx.SessionClosing(id) }
	case transSessionClosed:
		return func(tx *store.Tx) { tx.DeleteSession(id) }
	case transLoopDefined:
		l := storedLoop(t.loop)
		return func(tx *store.Tx) { tx.DefineLoop(id, l) }
	case transLoopChanged:
		l := storedLoop(t.loop)
		return func(tx *store.Tx) {
			tx.SaveLoop(id, l)
			if len(bodies) > 0 {
				tx.AppendHistory(id, from, bodies...)
			}
		}
	case transGrantAdded:
		g := t.grant
		return func(tx *store.Tx) { writeGrant(tx, g) }
	case transGrantRevoked:
		g := *t.grant
		return func(tx *store.Tx) {
			switch {
			case g.scope == RememberSession:
				tx.RevokeSessionGrant(g.session, g.tool, g.action)
			case g.anyRoot:
				tx.RevokeGrant(g.tool, g.action)
			default:
				tx.RevokeProjectGrant(g.tool, g.root, g.action)
			}
		}
	case transAudit:
		a := *t.audit
		return func(tx *store.Tx) { tx.Audit(a) }
	}
	panic("engine: unknown transition kind") // every kind is written above
}

func marshalAll(msgs []Message) []json.RawMessage {
	if len(msgs) == 0 {
		return nil
	}
	bodies := make([]json.RawMessage, len(msgs))
	for i, m := range msgs {
		bodies[i], _ = json.Marshal(m)
	}
	return bodies
}

// writeGrant writes a remembered approval g.
func writeGrant(tx *store.Tx, g *grantRecord) {
	if g.scope == RememberSession {
		tx.SessionGrant(g.session, store.SessionGrant{Tool: g.tool, Action: g.action, By: g.by, At: g.at})
		return
	}
	tx.Grant(store.Grant{Session: g.session, Tool: g.tool, Action: g.action, Dir: g.root, By: g.by, At: g.at})
}

func auditOf(session string, run uint64, p *Pause, event string) store.AuditEntry {
	return store.AuditEntry{At: time.Now(), Session: session, Run: run, Pause: p.ID, Event: event, Kind: string(p.Kind), Tool: p.Tool, Message: p.Message}
}

// storedRunEnd is what the store keeps of how the last run ended.
func storedRunEnd(run uint64, e *runEndRecord) store.RunEnd {
	end := store.RunEnd{Run: run, LastEnd: int(e.lastEnd), TokensIn: e.counters.tokens.Input, TokensOut: e.counters.tokens.Output,
		Step: e.counters.step, LastError: e.lastError, PauseSeq: e.counters.pauseSeq}
	if in := e.interruption; in != nil {
		detail, _ := json.Marshal(in)
		end.Interruption = &store.Interruption{Run: in.Run, Reason: string(in.Reason), Label: in.Label, At: in.At, Detail: detail}
	}
	if e.needsInput != nil {
		end.NeedsInput, _ = json.Marshal(e.needsInput)
	}
	return end
}

// storedLoop is a task loop as the store keeps it.
func storedLoop(r *taskLoopRecord) store.Loop {
	body, _ := json.Marshal(r.state)
	l := store.Loop{ID: r.id, State: body}
	for i, t := range r.state.Tasks {
		ts := store.TaskState{Index: t.Index, Title: t.Title, Status: string(t.Status), Error: t.Error}
		if i < len(r.tasks) {
			ts.Kind, ts.Prompt, ts.Provider = r.tasks[i].kind, r.tasks[i].prompt, r.tasks[i].provider
		}
		l.Tasks = append(l.Tasks, ts)
	}
	return l
}
