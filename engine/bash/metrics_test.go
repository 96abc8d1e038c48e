package bash

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
)

// TestMetrics measures interrupt latency and classifier speed and writes
// $INTERLOCK_METRICS_DIR/bash.json. It is skipped unless that is set.
func TestMetrics(t *testing.T) {
	dir := os.Getenv("INTERLOCK_METRICS_DIR")
	if dir == "" {
		t.Skip("set INTERLOCK_METRICS_DIR to measure")
	}
	type metric struct {
		Value float64 `json:"value"`
		Unit  string  `json:"unit"`
	}
	metrics := map[string]metric{}

	// Interrupt -> status interrupted with the process group gone: a child
	// and a grandchild that honour SIGTERM. "started" is printed once the
	// grandchild is forked (and SIGTERM ignored, in the second case).
	honour := interruptLatencies(t, 50, "sh -c 'sleep 30 & echo started; sleep 30; wait'")
	metrics["bash_interrupt_p50_ms"] = metric{percentile(honour, 50), "ms"}
	metrics["bash_interrupt_p99_ms"] = metric{percentile(honour, 99), "ms"}
	// The same with SIGTERM ignored: SIGKILL after the default grace.
	ignore := interruptLatencies(t, 20, "sh -c \"trap '' TERM; sleep 30 & echo started; sleep 30; wait\"")
	metrics["bash_interrupt_sigterm_ignored_p99_ms"] = metric{percentile(ignore, 99), "ms"}

	corpus := loadCorpus(t)
	const rounds = 20
	start := time.Now()
	for range rounds {
		for _, e := range corpus {
			CheckCommand(e.command)
		}
	}
	perCommand := time.Since(start) / time.Duration(rounds*len(corpus))
	metrics["classifier_us_per_command"] = metric{math.Round(float64(perCommand.Nanoseconds())/10) / 100, "us"}

	for name, m := range metrics {
		t.Logf("%s = %v %s", name, m.Value, m.Unit)
	}
	data, err := json.MarshalIndent(metrics, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bash.json"), append(data, '\n'), 0o644))
}

// interruptLatencies runs command n times in a session, interrupts it once
// it printed "started", and measures Interrupt until the interrupted event,
// checking each time that the process group is gone.
func interruptLatencies(t *testing.T, n int, command string) []float64 {
	groups := make(chan int, 1)
	h := newHarness(t, New(tracked(func(pgid int) { groups <- pgid })))
	var ms []float64
	for range n {
		a := h.session(command)
		out := a.start()
		a.waitFor(engine.EventToolProgress, func(ev engine.Event) bool { return strings.Contains(ev.Text, "started") })
		pgid := <-groups
		start := time.Now()
		require.NoError(t, a.s.Interrupt(engine.ReasonUserStop))
		a.waitFor(engine.EventInterrupted, nil)
		ms = append(ms, float64(time.Since(start).Microseconds())/1000)
		requireGroupGone(t, pgid)
		require.ErrorIs(t, a.finish(out).Err, engine.ErrInterrupted)
		require.NoError(t, a.s.Close())
	}
	return ms
}

// percentile is the nearest-rank percentile p of vs, rounded to 0.01.
func percentile(vs []float64, p float64) float64 {
	s := slices.Clone(vs)
	slices.Sort(s)
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	return math.Round(s[max(i, 0)]*100) / 100
}
