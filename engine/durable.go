package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/interlock-dev/interlock/engine/store"
)

// The engine's use of its store (WithStore): what each transition writes,
// and the recovery of sessions whose previous owner died. Every write is
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

// recoverSessions loads the store's sessions. A session that was
// proceeding when its previous owner died is interrupted with
// server_restart: a question it was waiting on makes it blocked (asked
// again when it is continued; the tool call is not re-run silently: it
// goes through its own gate anew), a tool call it was running gets an
// "interrupted before completion" result (and resuming asks first when the
// tool has side effects), a task loop of prompt tasks is made again and
// resumed by Continue (one with Go function tasks cannot be), and a host's
// run is not resumable by the engine. What recovery changes is written in one
// transaction before the engine is returned.
func (e *Engine) recoverSessions(ctx context.Context) error {
	all, err := e.store.Load(ctx)
	if err != nil {
		return err
	}
	// A session its user was closing is forgotten, as its close would have.
	rows := make([]store.Session, 0, len(all))
	var closed []string
	for _, row := range all {
		if row.Closing {
			closed = append(closed, row.ID)
		} else {
			rows = append(rows, row)
		}
	}
	sessions := make([]*Session, 0, len(rows))
	cuts := make([]loopCut, 0, len(rows))
	for _, row := range rows {
		s, cut, err := e.restore(row)
		if err != nil {
			return fmt.Errorf("store %s: session %q: %w: %w: move the file away or choose another store path", e.store.Path(), row.ID, store.ErrCorrupt, err)
		}
		sessions = append(sessions, s)
		cuts = append(cuts, cut)
	}
	now := time.Now()
	err = e.update(ctx, "the recovery", func(tx *store.Tx) {
		for _, id := range closed {
			tx.DeleteSession(id)
		}
		for i, row := range rows {
			if row.Proceeding {
				sessions[i].recoverLocked(tx, row, cuts[i], now)
			}
		}
	})
	if err != nil {
		return err
	}
	for i, s := range sessions {
		seq := uint64(rows[i].Seq)
		e.sessions[s.id] = s
		e.created[s] = seq
		e.seq = max(e.seq, seq)
		if rows[i].Run > e.runSeq.Load() {
			e.runSeq.Store(rows[i].Run)
		}
		s.status.Store(int32(s.deriveLocked()))
	}
	return nil
}

// loopCut is the task loop of a restored session that was not done: the
// one to resume, or why it cannot be.
type loopCut struct {
	id, why string
}

// restore builds a session from its stored row.
func (e *Engine) restore(row store.Session) (*Session, loopCut, error) {
	s, err := e.restoreSession(row)
	if err != nil {
		return nil, loopCut{}, err
	}
	var cut loopCut
	for _, l := range row.Loops {
		tl, why, err := s.restoreLoop(l)
		if err != nil {
			return nil, loopCut{}, fmt.Errorf("task loop %q: %w", l.ID, err)
		}
		if tl != nil {
			s.loops = append(s.loops, tl)
		}
		if why != "" || (tl != nil && !tl.done) {
			cut = loopCut{id: l.ID, why: why}
			s.cutLoop = tl
		}
	}
	// A loop interrupted before the restart that could not be made again.
	if in := s.interruption; in != nil && in.Loop != "" && in.Loop == cut.id && cut.why != "" {
		in.Resumable, in.NotResumable = false, cut.why
	}
	return s, cut, nil
}

// restoreLoop makes a stored task loop again when all its tasks are
// prompts; else it says why it cannot (why), unless the loop was done.
func (s *Session) restoreLoop(l store.Loop) (tl *TaskLoop, why string, err error) {
	var st TaskLoopState
	if err := json.Unmarshal(l.State, &st); err != nil {
		return nil, "", fmt.Errorf("state: %w", err)
	}
	tasks := make([]Task, len(l.Tasks))
	infos := make([]TaskInfo, len(l.Tasks))
	for i, t := range l.Tasks {
		switch t.Kind {
		case taskKindPrompt:
			tasks[i] = Task{Title: t.Title, Prompt: t.Prompt}
			if len(t.Provider) > 0 {
				tasks[i].Provider = s.eng.loadProvider(fmt.Sprintf("%s (task %d)", s.id, i+1), t.Provider)
			}
		case taskKindFunc:
			why = NotEligibleTaskLoop
		default:
			why = cmp.Or(why, NotEligibleOldLoop)
		}
		status := TaskStatus(t.Status)
		if status == TaskRunning { // cut by the restart
			status = TaskInterrupted
		}
		infos[i] = TaskInfo{Index: i, Title: t.Title, Status: status, Error: t.Error}
	}
	if st.Done || st.Current < 0 && !st.Interrupted {
		return nil, "", nil // ended, or never started: nothing to resume
	}
	if why != "" {
		return nil, why, nil
	}
	return &TaskLoop{id: l.ID, s: s, tasks: tasks, infos: infos, current: st.Current, pauseMode: st.PauseMode,
		completed: st.Completed, failed: st.Failed, started: true, interrupted: true, version: st.Version,
		log: eventLog[TaskEvent]{max: 256}}, "", nil
}

// restoreSession builds a session, without its loops, from its stored row.
func (e *Engine) restoreSession(row store.Session) (*Session, error) {
	var opts storedOptions
	if err := json.Unmarshal(row.Options, &opts); err != nil {
		return nil, fmt.Errorf("options: %w", err)
	}
	s := &Session{id: row.ID, eng: e, provider: e.provider, dir: opts.Dir,
		lastEnd: runEnd(row.LastEnd), lastError: row.LastError, step: row.Step, pauseSeq: row.PauseSeq,
		tokens: Usage{Input: row.TokensIn, Output: row.TokensOut}}
	if s.dir == "" {
		s.dir = e.workDir
	}
	if len(opts.Provider) > 0 {
		s.provider = e.loadProvider(row.ID, opts.Provider)
	}
	s.history = make([]Message, len(row.History))
	for i, m := range row.History {
		if err := json.Unmarshal(m, &s.history[i]); err != nil {
			return nil, fmt.Errorf("history message %d: %w", i, err)
		}
	}
	if len(row.Interruption) > 0 {
		s.interruption = new(Interruption)
		if err := json.Unmarshal(row.Interruption, s.interruption); err != nil {
			return nil, fmt.Errorf("interruption: %w", err)
		}
	}
	if len(row.NeedsInput) > 0 {
		s.needsInput = new(Pause)
		if err := json.Unmarshal(row.NeedsInput, s.needsInput); err != nil {
			return nil, fmt.Errorf("pending question: %w", err)
		}
	}
	for _, g := range row.Grants {
		if s.grants == nil {
			s.grants = map[grantKey]time.Time{}
		}
		s.grants[grantKey{g.Tool, "", g.Action}] = g.At
	}
	return s, nil
}

// recoverLocked interrupts a session that was proceeding when its owner
// died (see recoverSessions) and writes the change with tx. cut is its
// task loop that was not done, if any.
func (s *Session) recoverLocked(tx *store.Tx, row store.Session, cut loopCut, now time.Time) {
	kind := row.RunKind
	if kind == runKindPrompt && row.StopReason == "" && len(row.Pauses) == 0 && s.answeredLocked() {
		// The model had given its final answer: the run had ended but for
		// the write of its end. Continue would ask the model again.
		s.lastEnd = endFinished
		tx.RunEnded(s.id, s.runEndLocked(row.Run))
		return
	}
	loopOK := kind == runKindLoop && s.cutLoop != nil
	// A stop the user (or the system) requested while the run unwound
	// is what ended it: its reason is kept.
	reason, at := ReasonServerRestart, now
	if r := Reason(row.StopReason); r.Valid() {
		reason, at = r, row.StopAt
	}
	in := &Interruption{Reason: reason, Label: ReasonLabel(reason), At: at,
		Resumable: kind == runKindPrompt || loopOK, HostOwned: kind == runKindHost, Run: row.Run}
	if kind == runKindLoop {
		in.Loop, in.NotResumable = cut.id, cut.why
		if cut.id == "" { // no loop to resume: not begun, or done
			in.NotResumable = NotEligibleLoopNoTask
		}
	}
	var msgs []Message
	if len(row.Pauses) > 0 && (kind == runKindPrompt || loopOK) {
		var p Pause
		if json.Unmarshal(row.Pauses[0].Pause, &p) == nil {
			s.needsInput = &p
		}
	}
	asking := 0         // calls waiting at a question: each is asked again, not run on
	atBoundary := false // a signal's or a task loop's pause: no call was running
	for _, rp := range row.Pauses {
		var p Pause
		if json.Unmarshal(rp.Pause, &p) == nil {
			a := auditOf(s.id, row.Run, &p, "recovered")
			a.Answer = string(AnswerInterrupted)
			a.Reason = "pending when the previous owner of the store stopped; asked again when the session is continued"
			tx.Audit(a)
			if p.Source == SourceTool {
				asking++
			} else {
				atBoundary = true
			}
		}
	}
	// Calls cut mid-run get their result, unless a question they wait on
	// is asked again. One that may have had side effects makes resuming
	// ask first: when there are more cut calls than questions, some call
	// had started (which one is not known, so any of them counts), and a
	// call waiting on its question may have acted before it asked (unless
	// its tool asks first: AsksFirst); not when the run was held at
	// a step boundary, before the calls.
	calls := s.rerunCallsLocked()
	for _, c := range calls {
		if s.needsInput == nil {
			msgs = append(msgs, interruptedResult(c, ""))
		}
		if !atBoundary && s.eng.mayHaveSideEffects(c) && (len(calls) > asking || !s.eng.asksBeforeActing(c)) {
			in.SideEffectCut = true
		}
	}
	// A stop whose run's end was not written: its cut calls have their
	// "interrupted before completion" results, and no marker yet.
	for _, c := range s.stoppedCallsLocked() {
		if s.eng.mayHaveSideEffects(c) {
			in.SideEffectCut = true
		}
	}
	// A resumption that had not yet started (nothing recorded since the
	// last interruption: its "Resuming may repeat..." question was pending,
	// or just answered) still has to ask it.
	if prev := s.interruption; prev != nil && prev.SideEffectCut && len(s.history) > 0 {
		if last := s.history[len(s.history)-1]; last.Role == RoleMarker && last.Reason != "" {
			in.SideEffectCut = true
		}
	}
	msgs = append(msgs, Message{Role: RoleMarker, Text: in.Label, Reason: in.Reason})
	from := len(s.history)
	s.history = append(s.history, msgs...)
	bodies := make([]json.RawMessage, len(msgs))
	for i, m := range msgs {
		bodies[i], _ = json.Marshal(m)
	}
	tx.AppendHistory(s.id, from, bodies...)
	s.lastEnd = endInterrupted
	s.interruption = in
	tx.RunEnded(s.id, s.runEndLocked(row.Run))
}

// answeredLocked reports whether the history ends with the model's answer
// without tool calls: the last turn of a run.
func (s *Session) answeredLocked() bool {
	n := len(s.history)
	return n > 0 && s.history[n-1].Role == RoleAssistant && len(s.history[n-1].ToolCalls) == 0 && !s.history[n-1].Interrupted
}

// stoppedCallsLocked returns the calls of the last assistant turn whose
// results say they were interrupted before completion, when no marker
// follows them: a stop cut them and its run's end, which would say whether
// a side effect was cut, was not written.
func (s *Session) stoppedCallsLocked() []ToolCall {
	var out []ToolCall
	cut := map[string]bool{}
	for i := len(s.history) - 1; i >= 0; i-- {
		m := s.history[i]
		switch {
		case m.Role == RoleMarker:
			return nil
		case m.Role == RoleTool && m.Interrupted:
			cut[m.ToolCallID] = true
		case m.Role == RoleAssistant && len(m.ToolCalls) > 0:
			for _, c := range m.ToolCalls {
				if cut[c.ID] {
					out = append(out, c)
				}
			}
			return out
		}
	}
	return nil
}

// mayHaveSideEffects reports whether call c may have changed the outside
// world: its tool says so, or is not registered (yet): a host registers
// its own tools after the engine opened the store and recovered it.
func (e *Engine) mayHaveSideEffects(c ToolCall) bool {
	t, err := e.tools.Lookup(c.Name)
	if err != nil {
		return true
	}
	se, ok := t.(SideEffecter)
	return ok && se.HasSideEffects(c)
}

// asksBeforeActing reports whether c's tool raises its questions before it
// acts (AsksFirst); false for a tool not registered (yet).
func (e *Engine) asksBeforeActing(c ToolCall) bool {
	t, err := e.tools.Lookup(c.Name)
	if err != nil {
		return false
	}
	ab, ok := t.(AsksFirst)
	return ok && ab.AsksBeforeActing(c)
}

// AuditLog returns the store's audit log of pause decisions for session
// ("" for all sessions), oldest first. Without a store it is empty.
func (e *Engine) AuditLog(ctx context.Context, session string) ([]store.AuditEntry, error) {
	if e.store == nil {
		return nil, nil
	}
	return e.store.AuditLog(ctx, session)
}

// CheckStore runs SQLite's integrity check on the store: "ok" when sound.
func (e *Engine) CheckStore(ctx context.Context) (string, error) {
	if e.store == nil {
		return "", fmt.Errorf("engine: %w: no store configured (WithStore)", ErrInvalidArgument)
	}
	return e.store.IntegrityCheck(ctx)
}
