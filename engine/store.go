package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/interlock-dev/interlock/engine/store"
)

// The engine's use of its store (WithStore): what each transition writes
// (the recovery of sessions whose previous owner died is recover.go). Every write is
// made by the goroutine making the transition, under the session's lock,
// before the transition's event reaches any observer (see engine/store).

// storedOptions are the session options kept in the store: never secrets.
// A session created with its own StorableProvider keeps its description
// (made again at a restart by the engine's ProviderLoader for its type);
// any other comes back with the engine's provider. Of the environment only
// the names are kept (values can hold keys), so a restored session's
// commands run without them.
type storedOptions struct {
	Dir      string   `json:"dir,omitempty"`
	Model    string   `json:"model,omitempty"`
	EnvNames []string `json:"env_names,omitempty"`
	// Provider describes the session's own model; ProviderLeft says what
	// of it was not stored because it looks secret.
	Provider     json.RawMessage `json:"provider,omitempty"`
	ProviderLeft []string        `json:"provider_left,omitempty"`
	// Tools is SessionOptions.Tools: a restored session offers no more.
	Tools *[]string `json:"tools,omitempty"`
}

// Run kinds as stored: who drives the run, and so who can resume it.
const (
	runKindPrompt = "prompt"
	runKindLoop   = "loop"
	runKindHost   = "host"
)

func (r *run) kind() string {
	switch {
	case r.loop != nil:
		return runKindLoop
	case r.hostOwned:
		return runKindHost
	}
	return runKindPrompt
}

// persistLocked writes one transition of the session. A failed write does
// not stop the transition (the run goes on) but is reported to observers
// as a warning: the store no longer matches the session.
//
// Once the engine closes (its host shutting down) nothing more is written:
// the runs its close interrupts stay in the store as they were, so the
// next owner finds them as after a crash — proceeding ones interrupted by
// server restart, a question asked again — not stopped by the system and
// no longer waiting for their answer.
//
// It reports whether fn's writes were committed.
func (s *Session) persistLocked(what string, fn func(*store.Tx)) bool {
	if s.eng.store == nil || s.eng.shuttingDown.Load() {
		return false
	}
	if err := s.eng.update(context.Background(), what, fn); err != nil {
		s.emitLocked(Event{Type: EventWarning, Tool: "store", Text: fmt.Sprintf("could not record %s: %v; after a crash this session would come back as it was before", what, err)})
		return false
	}
	return true
}

// update runs fn's writes (what: what they record) in one transaction of
// the store: every write of the engine goes through it, so that a test can
// stop the process between two commits (afterCommit).
func (e *Engine) update(ctx context.Context, what string, fn func(*store.Tx)) error {
	err := e.store.Update(ctx, fn)
	if err == nil && e.afterCommit != nil {
		e.afterCommit(what)
	}
	return err
}

// persistEventLocked writes what ev changes, before ev is published.
func (s *Session) persistEventLocked(ev *Event) {
	if s.eng.store == nil {
		return
	}
	switch ev.Type {
	case EventRunStarted:
		r := s.run
		added := s.history[r.startHistory:]
		bodies := make([]json.RawMessage, len(added))
		for i, m := range added {
			bodies[i], _ = json.Marshal(m)
		}
		s.persistLocked("the run's start", func(tx *store.Tx) {
			tx.RunStarted(s.id, r.id, r.kind())
			if len(bodies) > 0 {
				tx.AppendHistory(s.id, r.startHistory, bodies...)
			}
		})
	case EventPaused:
		p := s.pauses[len(s.pauses)-1].Pause // the one just raised
		body, _ := json.Marshal(p)
		run := s.runID()
		s.persistLocked("the pause "+p.ID, func(tx *store.Tx) {
			tx.PauseRaised(s.id, store.Pause{ID: p.ID, Run: run, Pause: body})
			tx.Audit(auditOf(s.id, run, &p, "raised"))
		})
	case EventPauseAnswered:
		p := ev.Answered
		run := s.runID()
		g := s.remembering
		stored := s.persistLocked("the answer to "+p.ID, func(tx *store.Tx) {
			tx.PauseEnded(s.id, p.ID)
			a := auditOf(s.id, run, p, "answered")
			a.Answer, a.Reason, a.By, a.Remember = string(ev.Answer), ev.AnswerReason, ev.By, ev.Remember
			tx.Audit(a) // a grant a tool keeps itself (GrantKeeper) is written by the tool
			if g != nil {
				g.write(tx, s.id) // the approval it remembers: both or neither after a crash
			}
		})
		if g != nil {
			g.stored = stored
		}
	case EventGranted:
		run := s.runID()
		s.persistLocked("the approval by a grant", func(tx *store.Tx) {
			tx.Audit(store.AuditEntry{At: time.Now(), Session: s.id, Run: run, Event: "granted", Kind: string(PauseConfirm), Tool: ev.Tool,
				Message: ev.Text, Answer: string(AnswerApproved), By: ev.By, Remember: ev.Remember})
		})
	case EventDecided:
		run := s.runID()
		s.persistLocked("the decision by the "+ev.By, func(tx *store.Tx) {
			tx.Audit(store.AuditEntry{At: time.Now(), Session: s.id, Run: run, Event: "decided", Kind: string(PauseConfirm), Tool: ev.Tool,
				Message: ev.Text, Answer: string(ev.Answer), Reason: ev.AnswerReason, By: ev.By})
		})
	case EventStopping:
		s.persistLocked("the stop", func(tx *store.Tx) { tx.RunStopping(s.id, string(ev.Reason), time.Now()) })
	case EventInterrupted, EventRunFinished, EventRunFailed:
		end := s.runEndLocked(ev.Run)
		var marker json.RawMessage
		at := s.endMarker - 1
		if at >= 0 {
			marker, _ = json.Marshal(s.history[at])
		}
		s.persistLocked("the run's end", func(tx *store.Tx) {
			if marker != nil {
				tx.AppendHistory(s.id, at, marker)
			}
			tx.RunEnded(s.id, end)
		})
	case EventClosed: // closed by its user: forgotten (the engine's close writes nothing)
		s.persistLocked("the session's close", func(tx *store.Tx) { tx.DeleteSession(s.id) })
	}
}

func (s *Session) runID() uint64 {
	if s.run != nil {
		return s.run.id
	}
	return 0
}

func auditOf(session string, run uint64, p *Pause, event string) store.AuditEntry {
	return store.AuditEntry{At: time.Now(), Session: session, Run: run, Pause: p.ID, Event: event, Kind: string(p.Kind), Tool: p.Tool, Message: p.Message}
}

// runEndLocked is what the store keeps of how the last run ended.
func (s *Session) runEndLocked(run uint64) store.RunEnd {
	end := store.RunEnd{Run: run, LastEnd: int(s.lastEnd), TokensIn: s.tokens.Input, TokensOut: s.tokens.Output, Step: s.step, LastError: s.lastError, PauseSeq: s.pauseSeq}
	if s.lastEnd == endInterrupted && s.interruption != nil {
		end.Interruption = storedInterruption(s.interruption)
	}
	if s.needsInput != nil {
		end.NeedsInput, _ = json.Marshal(s.needsInput)
	}
	return end
}

func storedInterruption(in *Interruption) *store.Interruption {
	detail, _ := json.Marshal(in)
	return &store.Interruption{Run: in.Run, Reason: string(in.Reason), Label: in.Label, At: in.At, Detail: detail}
}

// appendHistoryLocked appends msgs to the history and records them with the
// session's token counts and step, in one write.
func (s *Session) appendHistoryLocked(msgs ...Message) { s.appendLocked(false, msgs) }

// appendResultsLocked is appendHistoryLocked for a turn's tool results: the
// next model request follows at once and nobody waits on this write, so
// the store may checkpoint after it (store.Tx.MayCheckpoint).
func (s *Session) appendResultsLocked(msgs ...Message) { s.appendLocked(true, msgs) }

func (s *Session) appendLocked(beforeTurn bool, msgs []Message) {
	from := s.appendMemoryLocked(msgs)
	if s.eng.store == nil {
		return
	}
	bodies := make([]json.RawMessage, len(msgs))
	for i, m := range msgs {
		bodies[i], _ = json.Marshal(m)
	}
	what := "history"
	if beforeTurn {
		what = "the tool results"
	}
	s.persistLocked(what, func(tx *store.Tx) {
		tx.AppendHistory(s.id, from, bodies...)
		tx.Counters(s.id, s.tokens.Input, s.tokens.Output, s.step, s.pauseSeq)
		if beforeTurn {
			tx.MayCheckpoint()
		}
	})
}

// appendMemoryLocked appends msgs to the history, not to the store, and
// returns the index of the first.
func (s *Session) appendMemoryLocked(msgs []Message) int {
	from := len(s.history)
	if s.history == nil && len(msgs) > 0 {
		// Room for the prompt and the model's answer, a run's first two
		// messages: one allocation less than growing from one to two.
		s.history = make([]Message, 0, max(2, len(msgs)))
	}
	s.history = append(s.history, msgs...)
	return from
}

// persistNewSession writes a new session's row.
func (e *Engine) persistNewSession(s *Session, seq uint64, o SessionOptions) error {
	if e.store == nil {
		return nil
	}
	opts := storedOptions{Dir: s.dir, Model: providerName(s.provider)}
	if s.tools != nil {
		opts.Tools = &s.tools
	}
	for _, kv := range o.Environ {
		name, _, _ := strings.Cut(kv, "=")
		opts.EnvNames = append(opts.EnvNames, name)
	}
	if sp, ok := o.Provider.(StorableProvider); ok {
		opts.Provider, opts.ProviderLeft = sp.ProviderSpec()
	}
	body, _ := json.Marshal(opts)
	err := e.update(context.Background(), "the new session "+s.id, func(tx *store.Tx) {
		tx.CreateSession(store.Session{ID: s.id, Seq: int64(seq), CreatedAt: time.Now(), Options: body})
	})
	if err == nil && len(opts.ProviderLeft) > 0 {
		// Not yet shared: no other goroutine holds s.
		s.emitLocked(Event{Type: EventWarning, Tool: "store", Text: fmt.Sprintf("not stored because it looks secret: %s. After a restart this session's model runs without it: pass a key through api_key_env (the variable's name is stored, never its value)", strings.Join(opts.ProviderLeft, ", "))})
	}
	return err
}

// persistLocked writes the loop's state and its tasks' states to the store
// (before the event is published to the engine's observers).
//
// A task's prompt (beginTask) is appended to the session's history here,
// and written with the loop's state.
func (tl *TaskLoop) persistLocked(ev TaskEvent) {
	prompt := tl.prompt
	tl.prompt = ""
	tl.s.mu.Lock()
	defer tl.s.mu.Unlock()
	var from int
	var msgs []Message
	if prompt != "" {
		msgs = []Message{{Role: RoleUser, Text: prompt}}
		from = tl.s.appendMemoryLocked(msgs)
	}
	if tl.s.eng.store == nil {
		return
	}
	l := tl.storedLocked()
	var body json.RawMessage
	if msgs != nil {
		body, _ = json.Marshal(msgs[0])
	}
	tl.s.persistLocked("task loop "+tl.id+" ("+string(ev.Type)+")", func(tx *store.Tx) {
		tx.SaveLoop(tl.s.id, l)
		if body != nil {
			tx.AppendHistory(tl.s.id, from, body)
		}
	})
}

// storedLocked is the loop's state as the store keeps it.
func (tl *TaskLoop) storedLocked() store.Loop {
	st := tl.stateLocked()
	body, _ := json.Marshal(st)
	l := store.Loop{ID: tl.id, State: body}
	for _, t := range st.Tasks {
		l.Tasks = append(l.Tasks, store.TaskState{Index: t.Index, Title: t.Title, Status: string(t.Status), Error: t.Error})
	}
	return l
}

// defineLocked writes a new loop with what its tasks are (the session's mu
// held; nobody else holds tl yet): a prompt task's prompt and the
// description of its own model when it has a storable one, never a
// secret, so that the loop can be made again after a restart.
func (tl *TaskLoop) defineLocked() {
	if tl.s.eng.store == nil {
		return
	}
	l := tl.storedLocked()
	for i, t := range tl.tasks {
		d := &l.Tasks[i]
		d.Kind = taskKindPrompt
		switch {
		case t.Func != nil:
			d.Kind = taskKindFunc
		case t.Provider != nil:
			d.Prompt = t.Prompt
			if sp, ok := t.Provider.(StorableProvider); ok {
				d.Provider, _ = sp.ProviderSpec() // what looks secret is left out
			}
		default:
			d.Prompt = t.Prompt
		}
	}
	tl.s.persistLocked("task loop "+tl.id, func(tx *store.Tx) { tx.DefineLoop(tl.s.id, l) })
}

// Task kinds as stored.
const (
	taskKindPrompt = "prompt"
	taskKindFunc   = "func"
)
