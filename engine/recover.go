package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/interlock-dev/interlock/engine/store"
)

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
	var ts []transition
	for _, id := range closed {
		ts = append(ts, transition{kind: transSessionClosed, session: id})
	}
	for i, row := range rows {
		if row.Proceeding {
			ts = sessions[i].recoverLocked(ts, row, cuts[i], now)
		}
	}
	if err := e.journal.record(ctx, "the recovery", ts...); err != nil {
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
	if opts.Tools != nil {
		s.tools = *opts.Tools
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
// died (see recoverSessions) and returns ts with the transitions that
// record the change. cut is its task loop that was not done, if any.
func (s *Session) recoverLocked(ts []transition, row store.Session, cut loopCut, now time.Time) []transition {
	kind := row.RunKind
	if kind == runKindPrompt && row.StopReason == "" && len(row.Pauses) == 0 && s.answeredLocked() {
		// The model had given its final answer: the run had ended but for
		// the write of its end. Continue would ask the model again.
		s.lastEnd = endFinished
		return append(ts, transition{kind: transRunEnded, session: s.id, run: row.Run, end: s.runEndLocked()})
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
			ts = append(ts, transition{kind: transPauseRecovered, session: s.id, run: row.Run, pause: &p, at: now,
				answer:       AnswerInterrupted,
				answerReason: "pending when the previous owner of the store stopped; asked again when the session is continued"})
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
	from := s.appendMemoryLocked(msgs)
	s.lastEnd = endInterrupted
	s.interruption = in
	return append(ts, transition{kind: transRunEnded, session: s.id, run: row.Run, end: s.runEndLocked(),
		from: from, history: s.history[from:]})
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

// loadProvider makes a restored session's own provider from its stored
// description. When that cannot be done its runs fail saying why: the
// session never silently talks to another model.
func (e *Engine) loadProvider(session string, spec json.RawMessage) Provider {
	typ := providerType(spec)
	load := e.loaders[typ]
	if load == nil {
		return unavailableProvider{fmt.Errorf("session %q was created with its own model (type %q), and this engine has no loader for that type: open the store with engine.WithProviderLoader(%q, ...) (the Node package and the C API load \"openai\" and \"script\")", session, typ, typ)}
	}
	p, err := load(spec)
	if err != nil {
		return unavailableProvider{fmt.Errorf("session %q: its model (type %q) could not be made again from the store: %w", session, typ, err)}
	}
	return p
}
