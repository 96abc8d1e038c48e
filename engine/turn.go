package engine

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// modelTurn streams one model turn. The partial text of a cut turn is kept.
func (s *Session) modelTurn(r *run) ([]ToolCall, error) {
	step := s.nextStep()
	s.mu.Lock()
	// History is append-only, so a view capped at its length is a stable
	// snapshot; copying it every turn made long sessions quadratic.
	req := ModelRequest{Messages: s.history[:len(s.history):len(s.history)], Tools: s.toolSpecs(), LookupEnv: s.eng.environment.LookupEnv}
	s.mu.Unlock()
	if r.provider == nil {
		return nil, fmt.Errorf("session %s: %w: no model provider configured (engine.WithProvider or SessionOptions.Provider)", s.id, ErrInvalidArgument)
	}
	ctx, idle := s.beginTurn(r)
	defer s.endTurn(r, idle)
	stream, err := idle.open(ctx, r.ctx, r.provider, req)
	if err != nil {
		if r.ctx.Err() != nil {
			return nil, interruptErr(r.ctx)
		}
		return nil, fmt.Errorf("model %s: %w", providerName(r.provider), err)
	}
	defer protect("model stream close", "", func() (struct{}, error) { return struct{}{}, stream.Close() })
	var text strings.Builder
	var calls []ToolCall
	var usage *Usage
	for {
		chunk, err := idle.recv(ctx, r.ctx, stream)
		if err == nil || err == io.EOF {
			s.markResumed(r) // the model answered: the resumed run has started
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			s.finishTurn(text.String(), calls, usage, true)
			if r.ctx.Err() != nil {
				return nil, interruptErr(r.ctx)
			}
			return nil, err
		}
		if chunk.Text != "" {
			text.WriteString(chunk.Text)
			s.mu.Lock()
			s.emitLocked(Event{Type: EventText, Text: chunk.Text})
			s.mu.Unlock()
		}
		if d := chunk.ToolCallDelta; d != nil && d.Args != "" {
			s.mu.Lock()
			s.emitLocked(Event{Type: EventToolCallDelta, Tool: d.Name, CallID: d.ID, Text: d.Args})
			s.mu.Unlock()
		}
		if c := chunk.ToolCall; c != nil {
			call := *c
			if call.ID == "" {
				call.ID = "call_" + strconv.Itoa(step) + "_" + strconv.Itoa(len(calls)+1)
			}
			calls = append(calls, call)
		}
		if chunk.Usage != nil {
			u := *chunk.Usage
			usage = &u
		}
	}
	s.finishTurn(text.String(), calls, usage, false)
	return calls, nil
}

// beginTurn returns the context of a model turn, which the stream's idle
// timeout may end with its own cause, and its idle watch, which endTurn
// ends. The context is derived from the caller's context, not from the
// run's, and the run's stop (stopLocked) ends it too: so the run's
// context, which a parked run keeps, gathers nothing from the turns (a
// context's set of children keeps its room once made).
func (s *Session) beginTurn(r *run) (context.Context, *idleWatch) {
	ctx, cancel := context.WithCancelCause(r.base)
	s.mu.Lock()
	if r.ctx.Err() != nil {
		cancel(context.Cause(r.ctx))
	} else {
		r.turnCancel = cancel
	}
	s.mu.Unlock()
	return ctx, &idleWatch{timeout: s.eng.idleTimeout, cancel: cancel, cause: interruptCause{reason: ReasonTimeout}}
}

// endTurn ends the model turn watched by w.
func (s *Session) endTurn(r *run, w *idleWatch) {
	w.stop()
	s.mu.Lock()
	r.turnCancel = nil
	s.mu.Unlock()
	w.cancel(nil)
}

// idleWatch ends a model turn whose stream stays silent longer than the
// idle timeout: one timer per turn, armed at the request (waiting for the
// server's answer is a wait like a read). A read only
// notes when it began (a chunk per read: re-arming a runtime timer for
// each of a streamed answer's hundreds of chunks cost two timer-heap
// updates each); the timer, when it fires, ends the turn if a read has
// been waiting for the whole timeout and is set again for the rest
// otherwise. One allocation holds what a turn needs besides its context
// and the timer.
type idleWatch struct {
	timeout time.Duration
	cancel  context.CancelCauseFunc // the turn's
	timer   *time.Timer
	cause   interruptCause // what the timer ends the turn with
	start   time.Time      // the request: waits are timed from it
	waiting atomic.Int64   // since when (after start) a read waits; notWaiting between reads
	ended   atomic.Bool    // endTurn: the timer does nothing more
}

// notWaiting is idleWatch.waiting between two reads.
const notWaiting = math.MaxInt64

func (w *idleWatch) fire() {
	if w.ended.Load() {
		return
	}
	rest := w.timeout
	if since := w.waiting.Load(); since != notWaiting {
		rest -= time.Since(w.start) - time.Duration(since)
		if rest <= 0 {
			w.cancel(&w.cause)
			return
		}
	}
	w.timer.Reset(rest)
}

// stop ends the watch at the end of its turn.
func (w *idleWatch) stop() {
	w.ended.Store(true)
	if w.timer != nil {
		w.timer.Stop()
	}
}

// open sends the turn's request: waiting for the server's answer is
// silence too (a server that takes the connection and never answers), so
// the idle timeout counts from here.
func (w *idleWatch) open(ctx, run context.Context, p Provider, req ModelRequest) (st Stream, err error) {
	err = w.wait(ctx, run, func() error {
		st, err = protect("Stream", "", func() (Stream, error) { return p.Stream(ctx, req) })
		return err
	})
	return st, err
}

// recv reads one chunk from the turn's stream (ctx is the turn's, run the
// run's), failing with a timeout interruption when the stream stays silent
// longer than the idle timeout.
func (w *idleWatch) recv(ctx, run context.Context, st Stream) (c Chunk, err error) {
	err = w.wait(ctx, run, func() error {
		c, err = protect("model stream", "", func() (Chunk, error) { return st.Recv(ctx) })
		return err
	})
	return c, err
}

// wait runs f, one wait for the model server, under the idle timeout.
func (w *idleWatch) wait(ctx, run context.Context, f func() error) error {
	if w.timeout <= 0 {
		return f()
	}
	if w.timer == nil {
		w.start = time.Now()
		w.waiting.Store(0)
		// Armed once w.timer is set: fire may reset it.
		w.timer = time.AfterFunc(math.MaxInt64, w.fire)
		w.timer.Reset(w.timeout)
	} else {
		w.waiting.Store(int64(time.Since(w.start)))
	}
	err := f()
	w.waiting.Store(notWaiting)
	if err != nil && run.Err() == nil && context.Cause(ctx) == error(&w.cause) {
		return fmt.Errorf("%w after %s: %w", ErrIdleTimeout, w.timeout, &w.cause)
	}
	return err
}

// finishTurn appends the assistant message and counts tokens: the provider's
// usage when it sent one, else an estimate of what was streamed.
func (s *Session) finishTurn(text string, calls []ToolCall, usage *Usage, cut bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if usage != nil {
		s.tokens.Input += usage.Input
		s.tokens.Output += usage.Output
	} else {
		s.tokens.Output += (len(text) + 3) / 4
	}
	if r := s.run; r != nil && !cut {
		r.text = text // the run's final answer is its last turn's text ("" after tool calls)
	}
	if text == "" && len(calls) == 0 {
		s.appendHistoryLocked() // the tokens, even when there is no message
		return
	}
	msg := Message{Role: RoleAssistant, Text: text, ToolCalls: calls, Interrupted: cut}
	if !cut {
		s.appendHistoryLocked(msg)
		return
	}
	msgs := []Message{msg}
	for _, c := range calls {
		msgs = append(msgs, interruptedResult(c, ""))
	}
	s.appendHistoryLocked(msgs...)
}
