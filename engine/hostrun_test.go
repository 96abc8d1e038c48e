package engine_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
)

func TestHostRunPausesProgressAndEnds(t *testing.T) {
	t.Parallel()
	_, s := newEngine(t, nil)
	sub := s.Subscribe()
	defer sub.Close()
	run, err := s.Begin(t.Context())
	require.NoError(t, err)
	assert.Equal(t, engine.StatusRunning, s.Status(), "the session is proceeding while the host's loop runs")
	_, err = s.Begin(t.Context())
	assert.ErrorIs(t, err, engine.ErrRunning, "one run at a time, host-driven or not")

	require.NoError(t, run.Progress("fetch", "downloading...\n"))
	ev := waitEvent(t, sub, isType(engine.EventToolProgress))
	assert.Equal(t, "downloading...\n", ev.Text)
	assert.Equal(t, "fetch", ev.Tool)

	answered := make(chan engine.PauseResult, 1)
	go func() {
		res, err := run.Pause(context.Background(), engine.PauseRequest{Kind: engine.PauseConfirm, Tool: "deploy", Message: "Deploy to prod?", Details: "v1.2"})
		assert.NoError(t, err)
		answered <- res
	}()
	ev = waitEvent(t, sub, isType(engine.EventPaused))
	assert.Equal(t, "Deploy to prod?", ev.Pause.Message)
	assert.Equal(t, engine.StatusPaused, s.Status())
	require.NoError(t, s.Confirm("", true))
	assert.True(t, (<-answered).Approved())

	res, err := run.End(nil)
	require.NoError(t, err)
	assert.Equal(t, engine.StatusIdle, res.Status)
	waitEvent(t, sub, isType(engine.EventRunFinished))
	_, err = run.End(nil)
	assert.ErrorIs(t, err, engine.ErrNotRunning)
	assert.ErrorIs(t, run.Progress("", "late"), engine.ErrNotRunning)
}

func TestHostRunFailure(t *testing.T) {
	t.Parallel()
	_, s := newEngine(t, nil)
	sub := s.Subscribe()
	defer sub.Close()
	run, err := s.Begin(t.Context())
	require.NoError(t, err)
	res, err := run.End(errors.New("model client: HTTP 500"))
	require.Error(t, err)
	assert.Equal(t, "model client: HTTP 500", res.Error)
	ev := waitEvent(t, sub, isType(engine.EventRunFailed))
	assert.Equal(t, "model client: HTTP 500", ev.Text)
}

// Esc and emergency stop reach a host-driven run: its Context ends, the
// session is stopping until the host calls End, then interrupted.
func TestHostRunInterrupt(t *testing.T) {
	t.Parallel()
	for _, stop := range []string{"interrupt", "emergency stop"} {
		t.Run(stop, func(t *testing.T) {
			t.Parallel()
			e, s := newEngine(t, nil)
			run, err := s.Begin(t.Context())
			require.NoError(t, err)
			if stop == "interrupt" {
				require.NoError(t, s.Interrupt(engine.ReasonUserStop))
			} else {
				assert.Equal(t, []string{s.ID()}, e.EmergencyStop().Stopped)
			}
			<-run.Context().Done()
			assert.Equal(t, engine.StatusStopping, s.Status(), "stopping until the host's loop has unwound")
			res, err := run.End(nil)
			assert.ErrorIs(t, err, engine.ErrInterrupted)
			require.NotNil(t, res.Interruption)
			want := map[string]engine.Reason{"interrupt": engine.ReasonUserStop, "emergency stop": engine.ReasonEmergencyStop}[stop]
			assert.Equal(t, want, res.Interruption.Reason)
			assert.Equal(t, engine.StatusInterrupted, s.Status())
		})
	}
}

// A host loop that ignores the interrupt is cut off after the grace; its
// late End is refused. Close does not hang on it.
func TestHostRunIgnoringTheInterrupt(t *testing.T) {
	t.Parallel()
	_, s := newEngine(t, nil)
	sub := s.Subscribe()
	defer sub.Close()
	run, err := s.Begin(t.Context(), engine.WithHostGrace(20*time.Millisecond))
	require.NoError(t, err)
	require.NoError(t, s.Interrupt(engine.ReasonUserStop))
	waitEvent(t, sub, isType(engine.EventStopping))
	ev := waitEvent(t, sub, isType(engine.EventInterrupted))
	assert.Equal(t, engine.ReasonUserStop, ev.Reason)
	_, err = run.End(nil)
	assert.ErrorIs(t, err, engine.ErrNotRunning)

	run2, err := s.Begin(t.Context(), engine.WithHostGrace(20*time.Millisecond))
	require.NoError(t, err)
	require.NoError(t, s.Close(), "close interrupts and, after the grace, ends the ignored run")
	assert.ErrorIs(t, run2.Context().Err(), context.Canceled)
}
