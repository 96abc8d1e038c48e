package bash

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
)

// bashCall is a scripted call of the Bash tool running command.
func bashCall(t *testing.T, command string) engine.ScriptCall {
	t.Helper()
	args, err := json.Marshal(Args{Command: command})
	require.NoError(t, err)
	return engine.ScriptCall{Name: "Bash", Args: args}
}

// ticker prints a line every 50 ms for half a minute, ignoring SIGTERM:
// only the SIGKILL after the grace ends it.
const ticker = `trap '' TERM; for i in $(seq 1 600); do echo "tick $i"; sleep 0.05; done`

// Attack (issue 27): a turn runs two calls in parallel, one still running
// (a command printing progress), one waiting at a confirm. The session
// counted as blocked, so EmergencyStop stopped nothing and the command
// went on printing. A session with a call running is proceeding whatever
// else waits: the stop cuts all of it, answers the confirm interrupted,
// and the command's process tree is gone when it returns.
func TestEmergencyStopCutsACommandRunningBesideAConfirm(t *testing.T) {
	t.Parallel()
	groups := make(chan int, 2)
	h := newHarness(t, New(tracked(func(pgid int) { groups <- pgid }), WithGrace(150*time.Millisecond)))
	a := h.session("", func(o *engine.SessionOptions) {
		o.Provider = engine.NewScriptedProvider([]engine.ScriptTurn{
			{ToolCalls: []engine.ScriptCall{bashCall(t, ticker), bashCall(t, "rm -rf victim")}},
			{Text: "done"},
		})
	})
	victim := filepath.Join(a.dir, "victim")
	require.NoError(t, os.MkdirAll(victim, 0o755))
	out := a.start()
	var paused *engine.Pause
	ticking := false
	for paused == nil || !ticking {
		ev := a.next()
		switch {
		case ev.Type == engine.EventPaused:
			paused = ev.Pause
		case ev.Type == engine.EventToolProgress && strings.Contains(ev.Text, "tick"):
			ticking = true
		}
	}
	pgid := <-groups
	assert.Equal(t, engine.StatusPaused, a.s.Status(), "the confirm is shown")
	assert.Equal(t, engine.RunProceeding, a.s.RunState(), "a command runs beside the confirm")
	assert.Equal(t, engine.Counts{Proceeding: 1, NeedsInput: 1}, h.eng.Counts())

	begun := time.Now()
	rep := h.eng.EmergencyStop()
	took := time.Since(begun)
	stoppedAt := a.s.Version()
	require.Equal(t, []string{a.s.ID()}, rep.Stopped, "the session with a running command is stopped")
	requireGroupGone(t, pgid) // no process of the command left when the stop reports
	assert.GreaterOrEqual(t, took, 150*time.Millisecond, "the command ignores SIGTERM: gone only after the grace")
	assert.Zero(t, h.eng.Counts().Proceeding, "stopping or stopped: nothing left for an emergency stop")
	assert.Empty(t, h.eng.EmergencyStop().Stopped, "a second stop stops nothing more")

	answered := false
	for {
		ev := a.next()
		if ev.Type == engine.EventPauseAnswered && ev.Answered.ID == paused.ID {
			assert.Equal(t, engine.AnswerInterrupted, ev.Answer)
			answered = true
		}
		assert.False(t, ev.Type == engine.EventToolProgress && ev.Version > stoppedAt, "progress after the stop reported: %q", ev.Text)
		if ev.Type == engine.EventInterrupted {
			break
		}
	}
	assert.True(t, answered, "the pending confirm is answered interrupted")
	o := a.finish(out)
	require.ErrorIs(t, o.Err, engine.ErrInterrupted)
	assert.Equal(t, engine.ReasonEmergencyStop, o.Result.Interruption.Reason)
	assert.DirExists(t, victim, "the confirmed command never ran")
	assert.Empty(t, groups, "only the ticker started a command")
}

// next reads the session's next event.
func (a *agent) next() engine.Event {
	a.h.t.Helper()
	ctx, cancel := context.WithTimeout(a.h.t.Context(), 20*time.Second)
	defer cancel()
	ev, err := a.sub.Next(ctx)
	require.NoError(a.h.t, err)
	return ev
}

// requests records the messages of every model request a provider gets.
type requests struct {
	engine.Provider
	mu   sync.Mutex
	seen [][]engine.Message
}

func (r *requests) Stream(ctx context.Context, req engine.ModelRequest) (engine.Stream, error) {
	r.mu.Lock()
	r.seen = append(r.seen, append([]engine.Message(nil), req.Messages...))
	r.mu.Unlock()
	return r.Provider.Stream(ctx, req)
}

func (r *requests) last() []engine.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen[len(r.seen)-1]
}

// Seed 004: Esc stops a command that has printed a line and sleeps. Its
// result kept only "interrupted before completion": the model and the
// person did not see what ran. Now it holds the lines printed so far, then
// the note, in the history and in what the next model request sends.
func TestInterruptKeepsTheOutputPrintedSoFar(t *testing.T) {
	t.Parallel()
	h := newHarness(t, New(tracked(nil)))
	model := &requests{}
	a := h.session("echo 'first line'; echo 'second line'; sleep 30; echo 'never printed'", func(o *engine.SessionOptions) {
		model.Provider = o.Provider
		o.Provider = model
	})
	out := a.start()
	a.waitFor(engine.EventToolProgress, func(ev engine.Event) bool { return strings.Contains(ev.Text, "first line") })
	require.NoError(t, a.s.Interrupt(engine.ReasonUserStop))
	require.ErrorIs(t, a.finish(out).Err, engine.ErrInterrupted)

	res := a.toolResult()
	assert.True(t, res.Interrupted)
	assert.True(t, strings.HasPrefix(res.Text, "first line\n"), "the output printed before the stop comes first: %q", res.Text)
	assert.True(t, strings.HasSuffix(res.Text, "\ninterrupted before completion"), "then the note: %q", res.Text)
	assert.NotContains(t, res.Text, "never printed")

	_, done, err := a.s.StartContinue(t.Context())
	require.NoError(t, err)
	a.waitFor(engine.EventPaused, nil) // a command was cut: continuing asks first
	require.NoError(t, a.s.Confirm("", true))
	require.NoError(t, a.finish(done).Err)
	var sent *engine.Message
	for _, m := range model.last() {
		if m.Role == engine.RoleTool {
			sent = &m
		}
	}
	require.NotNil(t, sent, "the next request carries the cut call's result")
	assert.Equal(t, res.Text, sent.Text)
}

// The output a cut command keeps is capped as any command's is.
func TestInterruptKeepsTheOutputCap(t *testing.T) {
	t.Parallel()
	h := newHarness(t, New(tracked(nil), WithOutputLimit(200)))
	a := h.session("head -c 10000 /dev/zero | tr '\\0' x; echo; echo 'last line'; sleep 30")
	out := a.start()
	a.waitFor(engine.EventToolProgress, func(ev engine.Event) bool { return strings.Contains(ev.Text, "last line") })
	require.NoError(t, a.s.Interrupt(engine.ReasonUserStop))
	require.ErrorIs(t, a.finish(out).Err, engine.ErrInterrupted)
	res := a.toolResult().Text
	assert.Contains(t, res, "bytes omitted")
	assert.Less(t, len(res), 300, "capped: %q", res)
	assert.True(t, strings.HasSuffix(res, "last line\ninterrupted before completion"), "the tail and the note: %q", res)
}
