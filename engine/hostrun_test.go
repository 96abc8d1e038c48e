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

// A pause signal takes effect at the host loop's next Step, with the
// engine loop's events: pause_requested, then paused (source signal) at
// the boundary, resumed by Signal(resume). Step never parks while no pause
// was requested, and advances the step index.
func TestHostRunStepParksOnPauseSignal(t *testing.T) {
	t.Parallel()
	_, s := newEngine(t, nil)
	sub := s.Subscribe()
	defer sub.Close()
	run, err := s.Begin(t.Context())
	require.NoError(t, err)

	step, err := run.Step(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 1, step)
	assert.Equal(t, engine.StatusRunning, s.Status())

	require.NoError(t, s.Signal(engine.SignalPause))
	waitEvent(t, sub, isType(engine.EventPauseRequested))
	assert.Equal(t, engine.StatusRunning, s.Status(), "a pause signal never cuts the host's work in flight")

	stepped := make(chan int, 1)
	go func() {
		n, err := run.Step(context.Background())
		assert.NoError(t, err)
		stepped <- n
	}()
	ev := waitEvent(t, sub, isType(engine.EventPaused))
	require.NotNil(t, ev.Pause)
	assert.Equal(t, engine.SourceSignal, ev.Pause.Source)
	assert.Equal(t, "Paused at step 1", ev.Pause.Message)
	assert.Equal(t, engine.StatusPaused, s.Status())
	select {
	case <-stepped:
		t.Fatal("Step returned while the signal pause was pending")
	default:
	}
	require.NoError(t, s.Signal(engine.SignalResume))
	assert.Equal(t, 2, <-stepped)
	ev = waitEvent(t, sub, isType(engine.EventPauseAnswered))
	assert.Equal(t, engine.AnswerResumed, ev.Answer)

	_, err = run.End(nil)
	require.NoError(t, err)
	_, err = run.Step(t.Context())
	assert.ErrorIs(t, err, engine.ErrInterrupted, "the ended run's context is done")
}

// Cancel (and any interrupt) ends a Step parked on a signal pause, and
// every later Step refuses to go on; the run ends interrupted.
func TestHostRunStepInterrupted(t *testing.T) {
	t.Parallel()
	_, s := newEngine(t, nil)
	sub := s.Subscribe()
	defer sub.Close()
	run, err := s.Begin(t.Context())
	require.NoError(t, err)
	require.NoError(t, s.Signal(engine.SignalPause))
	stepErr := make(chan error, 1)
	go func() {
		_, err := run.Step(context.Background())
		stepErr <- err
	}()
	waitEvent(t, sub, isType(engine.EventPaused))
	require.NoError(t, s.Signal(engine.SignalCancel))
	err = <-stepErr
	require.ErrorIs(t, err, engine.ErrInterrupted)
	reason, ok := engine.ReasonOf(err)
	assert.True(t, ok)
	assert.Equal(t, engine.ReasonUserStop, reason)
	_, err = run.Step(t.Context())
	assert.ErrorIs(t, err, engine.ErrInterrupted)
	res, err := run.End(nil)
	assert.ErrorIs(t, err, engine.ErrInterrupted)
	require.NotNil(t, res.Interruption)
	assert.Equal(t, engine.ReasonUserStop, res.Interruption.Reason)
}
