package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// What each transition of a session records through the engine's journal
// (journal.go), made by the goroutine making the transition, under the
// session's lock, before the transition's event reaches any observer.

// recordLocked records ts (what: what they record) with the engine's
// journal. A failed record does not stop the transition (the run goes on)
// but is reported to observers as a warning: the store no longer matches
// the session. It reports whether ts were recorded (true without a
// journal: there is nothing to miss).
//
// Once the engine closes (its host shutting down) nothing more is
// recorded: the runs its close interrupts stay in the store as they were,
// so the next owner finds them as after a crash — proceeding ones
// interrupted by server restart, a question asked again — not stopped by
// the system and no longer waiting for their answer.
//
// what and ts stay the caller's: the journal, called through an
// interface, gets copies, made only when there is a journal. So a caller
// builds its transition on its own stack, and an engine without a store
// allocates nothing to record (appending to the history of 10,000 parked
// sessions answered at once is a hot path).
func (s *Session) recordLocked(what string, ts ...transition) bool {
	j := s.eng.journal
	if j == nil {
		return true
	}
	if s.eng.shuttingDown.Load() {
		return false
	}
	w := strings.Clone(what)
	if err := j.record(context.Background(), w, slices.Clone(ts)...); err != nil {
		s.emitLocked(Event{Type: EventWarning, Tool: "store", Text: fmt.Sprintf("could not record %s: %v; after a crash this session would come back as it was before", w, err)})
		return false
	}
	return true
}

// recordEventLocked records what ev changes, before ev is published.
func (s *Session) recordEventLocked(ev *Event) {
	if s.eng.journal == nil {
		return // nothing to build
	}
	switch ev.Type {
	case EventRunStarted:
		r := s.run
		s.recordLocked("the run's start", transition{kind: transRunStarted, session: s.id, run: r.id, runKind: r.kind(),
			from: r.startHistory, history: s.history[r.startHistory:]})
	case EventPaused:
		p := &s.pauses[len(s.pauses)-1].Pause // the one just raised
		s.recordLocked("the pause "+p.ID, transition{kind: transPauseRaised, session: s.id, run: s.runID(), pause: p})
	case EventPauseAnswered:
		p := ev.Answered
		g := s.remembering
		t := transition{kind: transPauseAnswered, session: s.id, run: s.runID(), pause: p,
			answer: ev.Answer, answerReason: ev.AnswerReason, by: ev.By, remember: ev.Remember}
		if g != nil {
			t.grant = g.record(s.id) // the approval it remembers: both or neither after a crash
		}
		if !s.recordLocked("the answer to "+p.ID, t) && g != nil {
			g.unrecorded = true
		}
	case EventGranted:
		s.recordLocked("the approval by a grant", transition{kind: transGranted, session: s.id, run: s.runID(),
			tool: ev.Tool, text: ev.Text, answer: AnswerApproved, by: ev.By, remember: ev.Remember})
	case EventDecided:
		s.recordLocked("the decision by the "+ev.By, transition{kind: transDecided, session: s.id, run: s.runID(),
			tool: ev.Tool, text: ev.Text, answer: ev.Answer, answerReason: ev.AnswerReason, by: ev.By})
	case EventStopping:
		s.recordLocked("the stop", transition{kind: transStopping, session: s.id, reason: ev.Reason, at: time.Now()})
	case EventInterrupted, EventRunFinished, EventRunFailed:
		t := transition{kind: transRunEnded, session: s.id, run: ev.Run, end: s.runEndLocked()}
		if at := s.endMarker - 1; at >= 0 {
			t.from, t.history = at, s.history[at:at+1]
		}
		s.recordLocked("the run's end", t)
	case EventClosed: // closed by its user: forgotten (the engine's close records nothing)
		s.recordLocked("the session's close", transition{kind: transSessionClosed, session: s.id})
	}
}

func (s *Session) runID() uint64 {
	if s.run != nil {
		return s.run.id
	}
	return 0
}

func (r *run) kind() string {
	switch {
	case r.loop != nil:
		return runKindLoop
	case r.hostOwned:
		return runKindHost
	}
	return runKindPrompt
}

// runEndLocked is what is kept of how the last run ended.
func (s *Session) runEndLocked() runEndRecord {
	end := runEndRecord{lastEnd: s.lastEnd, counters: s.countersLocked(), lastError: s.lastError, needsInput: s.needsInput}
	if s.lastEnd == endInterrupted {
		end.interruption = s.interruption
	}
	return end
}

func (s *Session) countersLocked() counters {
	return counters{tokens: s.tokens, step: s.step, pauseSeq: s.pauseSeq}
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
	what := "history"
	if beforeTurn {
		what = "the tool results"
	}
	s.recordLocked(what, transition{kind: transHistory, session: s.id, from: from, history: s.history[from:],
		counters: s.countersLocked(), mayCheckpoint: beforeTurn})
}

// appendMemoryLocked appends msgs to the history, not to the journal, and
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

// recordCreated records a new session, created with o as the seq-th.
// Not yet shared: no other goroutine holds s.
func (s *Session) recordCreated(seq uint64, o SessionOptions) error {
	j := s.eng.journal
	if j == nil {
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
	err := j.record(context.Background(), "the new session "+s.id, transition{kind: transSessionCreated, session: s.id, seq: seq, created: &opts})
	if err == nil && len(opts.ProviderLeft) > 0 {
		s.emitLocked(Event{Type: EventWarning, Tool: "store", Text: fmt.Sprintf("not stored because it looks secret: %s. After a restart this session's model runs without it: pass a key through apiKeyEnv (the variable's name is stored, never its value)", strings.Join(opts.ProviderLeft, ", "))})
	}
	return err
}
