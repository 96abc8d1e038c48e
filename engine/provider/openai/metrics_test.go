package openai_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/internal/benchmetrics"
)

// TestMetrics measures, for make bench, how long an interrupt takes while
// the model stalls mid-stream: from Interrupt() to the interrupted event,
// which comes after the stream's connection was closed.
func TestMetrics(t *testing.T) {
	dir := benchmetrics.Dir(t)
	srv := server(t)
	s, _ := setup(t, srv, "stall", nil)
	sub := s.Subscribe()
	defer sub.Close()
	const n = 300
	ds := make([]time.Duration, 0, n)
	for range n {
		_, out, err := s.Start(t.Context(), "think")
		require.NoError(t, err)
		waitFor(t, sub, engine.EventText) // the stream is open and has spoken
		t0 := time.Now()
		require.NoError(t, s.Interrupt(engine.ReasonUserStop))
		waitFor(t, sub, engine.EventInterrupted)
		ds = append(ds, time.Since(t0))
		<-out
	}
	benchmetrics.Set{
		"provider_interrupt_p50_ms": benchmetrics.Millis(benchmetrics.Percentile(ds, 50)),
		"provider_interrupt_p99_ms": benchmetrics.Millis(benchmetrics.Percentile(ds, 99)),
	}.Write(t, dir, "provider.json")
}

func waitFor(t *testing.T, sub *engine.Subscription[engine.Event], tp engine.EventType) {
	t.Helper()
	for {
		ev, err := sub.Next(t.Context())
		require.NoError(t, err)
		if ev.Type == tp {
			return
		}
	}
}
