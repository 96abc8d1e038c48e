package engine

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// pending is a pause waiting for its answer: a goroutine blocked on
// answered, or a parked run (parked) that the answer continues. answered
// has room for exactly one answer and is never reused, and a parked run is
// continued only by the one answer or interrupt that takes the pause off
// the list, so a stale answer can't release a later pause.
type pending struct {
	Pause
	answered chan PauseResult // the waiter's (nil when parked)
	parked   parked           // the parked run (nil when a goroutine waits)
	// What an approval remembers (PauseRequest.RememberKey), and where;
	// nil for most pauses (a pointer: a parked pause holds only that).
	grant *grantKey
	// held: a running tool call's goroutine waits for it (see
	// Session.executingLocked).
	held bool
}

// parked is where a parked run goes on once its pause has ended: answered
// (res), or interrupted (err). resume runs on a goroutine of its own.
type parked interface {
	resume(s *Session, res PauseResult, err error)
}

func (p *pending) String() string { return fmt.Sprintf("pause %s (%s)", p.ID, p.Kind) }

// pauseFor raises a pause for run r and blocks until it is answered, ctx is
// done, or r is interrupted.
func (s *Session) pauseFor(ctx context.Context, r *run, req PauseRequest, src PauseSource, step, task int, by *Env) (PauseResult, error) {
	p, err := s.raisePause(ctx, r, req, src, step, task, by)
	if err != nil {
		return PauseResult{Answer: AnswerInterrupted}, err
	}
	return s.waitPause(ctx, r, p, req.Timeout)
}

// raisePause makes a pause of run r pending (status paused) and emits it;
// by is the tool call that waits for it, if one does.
func (s *Session) raisePause(ctx context.Context, r *run, req PauseRequest, src PauseSource, step, task int, by *Env) (*pending, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.raisePauseLocked(ctx, r, req, src, step, task, nil, by)
}

// raisePauseLocked makes the pause pending: a goroutine waits for it with
// waitPause, or, when parked is set, the answer continues the parked run
// with it (see park, parkAtBoundary). by is the running tool call whose
// goroutine waits for it (nil: none, or not a tool's): while it waits, the
// call does not count as executing.
func (s *Session) raisePauseLocked(ctx context.Context, r *run, req PauseRequest, src PauseSource, step, task int, parked parked, by *Env) (*pending, error) {
	if !req.Kind.valid() {
		return nil, fmt.Errorf("%w: pause kind %q (want %q or %q)", ErrInvalidArgument, req.Kind, PauseContinue, PauseConfirm)
	}
	if s.closed {
		return nil, fmt.Errorf("session %s: %w", s.id, ErrClosed)
	}
	if s.run != r { // e.g. a tool's goroutine that outlived its call
		return nil, fmt.Errorf("session %s: %w: the run that raised the pause has ended", s.id, ErrNotRunning)
	}
	// Interrupted before the pause was raised: never show it. The run's
	// context is checked too, in case ctx is not derived from it.
	for _, c := range []context.Context{ctx, r.ctx} {
		if c.Err() != nil {
			return nil, interruptErr(c)
		}
	}
	s.pauseSeq++
	p := &pending{
		Pause: Pause{
			ID: "p" + strconv.FormatUint(s.pauseSeq, 10), Kind: req.Kind, Source: src, Tool: req.Tool,
			Message: req.Message, Details: req.Details, Reasons: req.Reasons, RememberScopes: req.RememberScopes,
			RememberKey: req.RememberKey,
			Step:        step, Task: task, At: time.Now(),
			Version: s.version.Load() + 1, // the version emitLocked gives the paused event
		},
		parked: parked,
		grant:  req.grant,
		held:   by != nil && by.running,
	}
	if parked == nil {
		p.answered = make(chan PauseResult, 1)
	}
	s.pauses = append(s.pauses, p)
	s.emitLocked(Event{Type: EventPaused, Tool: req.Tool})
	return p, nil
}

// waitPause blocks until p is answered, ctx is done, run r is interrupted
// (even when ctx is not derived from r's context), or the timeout fires.
func (s *Session) waitPause(ctx context.Context, r *run, p *pending, timeout time.Duration) (PauseResult, error) {
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	for {
		select {
		case res := <-p.answered:
			return res, nil
		case <-ctx.Done():
			return s.abandonPause(ctx, p)
		case <-r.ctx.Done():
			return s.abandonPause(r.ctx, p)
		case <-expired:
			expired = nil
			s.mu.Lock()
			timedOut := s.removePauseLocked(p)
			if timedOut {
				s.emitLocked(Event{Type: EventPauseAnswered, Answered: &p.Pause, Answer: AnswerTimedOut})
			}
			s.mu.Unlock()
			if timedOut {
				return PauseResult{Answer: AnswerTimedOut}, nil
			}
			// Answered or interrupted just before the timer fired: the
			// next select sees which (an interrupt sends no answer).
		}
	}
}

// abandonPause ends p because ctx is done: the answer is interrupted.
func (s *Session) abandonPause(ctx context.Context, p *pending) (PauseResult, error) {
	s.mu.Lock()
	if s.removePauseLocked(p) {
		s.emitLocked(Event{Type: EventPauseAnswered, Answered: &p.Pause, Answer: AnswerInterrupted})
	}
	s.mu.Unlock()
	return PauseResult{Answer: AnswerInterrupted}, interruptErr(ctx)
}

func (s *Session) removePauseLocked(p *pending) bool {
	i := slices.Index(s.pauses, p)
	if i < 0 {
		return false
	}
	s.pauses = slices.Delete(s.pauses, i, i+1)
	return true
}

// Resume answers a continue pause (Enter): the one with id pauseID, or the
// current (oldest) one when pauseID is "". A pause is answered once: a
// second or stale answer returns ErrUnknownPause and can never release a
// later pause.
func (s *Session) Resume(pauseID string, opts ...AnswerOption) error {
	return s.answer(pauseID, AnswerResumed, opts...)
}

// Confirm answers a confirm pause (Y / N): the one with id pauseID, or the
// current one when pauseID is "". WithReason gives the model the user's
// reason; Remember asks the tool to remember an approval.
func (s *Session) Confirm(pauseID string, approved bool, opts ...AnswerOption) error {
	a := AnswerDenied
	if approved {
		a = AnswerApproved
	}
	return s.answer(pauseID, a, opts...)
}

// answer is the one path that answers a pause.
func (s *Session) answer(pauseID string, a Answer, opts ...AnswerOption) error {
	res := PauseResult{Answer: a}
	for _, o := range opts {
		o(&res)
	}
	switch res.Remember {
	case "", RememberOnce:
	case RememberSession, RememberProject:
		// A scope on a denial would read as a remembered denial: nothing remembers one.
		if a != AnswerApproved {
			return fmt.Errorf("%w: remember scope %q with answer %s: only an approval is remembered (answer without a scope, or \"once\")", ErrInvalidArgument, res.Remember, a)
		}
	default:
		return fmt.Errorf("%w: remember scope %q (want once, session or project)", ErrInvalidArgument, res.Remember)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("session %s: %w", s.id, ErrClosed)
	}
	if len(s.pauses) == 0 {
		if s.needsInput != nil {
			return fmt.Errorf("session %s: %w: the question was asked before a restart; continue the session to be asked again", s.id, ErrNotPaused)
		}
		return fmt.Errorf("session %s (%s): %w", s.id, s.deriveLocked(), ErrNotPaused)
	}
	i := 0
	if pauseID != "" {
		i = slices.IndexFunc(s.pauses, func(p *pending) bool { return p.ID == pauseID })
		if i < 0 {
			return fmt.Errorf("session %s: pause %q: %w (already answered or never raised)", s.id, pauseID, ErrUnknownPause)
		}
	}
	p := s.pauses[i]
	if !p.Kind.fits(a) {
		want := "resume it"
		if p.Kind == PauseConfirm {
			want = "approve or deny it"
		}
		return fmt.Errorf("session %s: %s is a %s pause, cannot answer %s: %w; %s", s.id, p.ID, p.Kind, a, ErrWrongPauseKind, want)
	}
	if res.Remember != "" && res.Remember != RememberOnce && !slices.Contains(p.RememberScopes, res.Remember) {
		offered := "it cannot be remembered: answer without a scope, or \"once\""
		if len(p.RememberScopes) > 0 {
			offered = fmt.Sprintf("it offers %s: answer with one of those, or \"once\"", strings.Join(p.RememberScopes, ", "))
		}
		return fmt.Errorf("session %s: %s: %w: remember scope %q is not offered by this pause; %s", s.id, p.ID, ErrInvalidArgument, res.Remember, offered)
	}
	s.pauses = slices.Delete(s.pauses, i, i+1)
	if p.answered != nil {
		p.answered <- res // room for exactly one; only ever sent here, under the lock
	}
	g := rememberingOf(p, res)
	s.remembering = g // written with the answer
	s.emitLocked(Event{Type: EventPauseAnswered, Answered: &p.Pause, Answer: a, AnswerReason: res.Reason, Remember: res.Remember, By: res.By})
	s.remembering = nil
	if g != nil {
		s.rememberedLocked(p, g)
	}
	if p.parked != nil { // the pause is off the list: nothing else can take the run
		s.eng.runs.start(func() { p.parked.resume(s, res, nil) })
	}
	return nil
}
