package engine_test

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/internal/benchmetrics"
)

// storeMetrics measures the engine with a file store (make bench):
//   - engine_pause_notify_store_*_us, engine_pause_answer_store_*_us: the
//     pause round trip of pauseLatencies, every transition written first;
//   - store_recovery_ms: Open of a store of 10,000 sessions (half with a
//     finished run, half proceeding in a tool when their owner died, so
//     recovery interrupts and rewrites those);
//   - store_bytes_per_session: the file's size per session after 10 runs
//     of each (a prompt, a tool call and its result, an answer).
func storeMetrics(t *testing.T, m benchmetrics.Set) {
	dir := t.TempDir()
	us := func(ds []time.Duration, p float64) benchmetrics.Metric {
		return benchmetrics.Micros(benchmetrics.Percentile(ds, p))
	}
	notify, answer := pauseLatencies(t, 2000, engine.WithStore(filepath.Join(dir, "pause.db")))
	m["engine_pause_notify_store_p50_us"] = us(notify, 50)
	m["engine_pause_notify_store_p99_us"] = us(notify, 99)
	m["engine_pause_answer_store_p50_us"] = us(answer, 50)
	m["engine_pause_answer_store_p99_us"] = us(answer, 99)
	m["store_recovery_ms"] = benchmetrics.Millis(storeRecovery(t, filepath.Join(dir, "recovery.db"), 10_000))
	m["store_bytes_per_session"] = benchmetrics.Metric{Value: math.Round(storeBytesPerSession(t, filepath.Join(dir, "bytes.db"), 500, 10)), Unit: "bytes"}
}

// storeRecovery fills a store with n sessions (half with a finished run,
// half proceeding in a tool when the owner "dies") and times opening it
// again: loading every session and interrupting the proceeding ones.
func storeRecovery(t *testing.T, path string, n int) time.Duration {
	hello := engine.NewScriptedProvider([]engine.ScriptTurn{{Text: "hello there"}})
	sleepy := engine.NewScriptedProvider([]engine.ScriptTurn{{Text: "Let me wait.", ToolCalls: []engine.ScriptCall{call("sleep", map[string]int{"ms": 600000})}}})
	e, err := engine.Open(t.Context(), engine.WithStore(path))
	require.NoError(t, err)
	sub := e.Subscribe()
	defer sub.Close()
	proceeding := 0
	for k := range n {
		if k%2 == 0 { // proceeding in a tool when the owner dies
			s, err := e.NewSession(engine.SessionOptions{Provider: sleepy})
			require.NoError(t, err)
			_, _, err = s.Start(t.Context(), "wait")
			require.NoError(t, err)
			proceeding++
			continue
		}
		s, err := e.NewSession(engine.SessionOptions{Provider: hello})
		require.NoError(t, err)
		_, err = s.Prompt(t.Context(), "hi")
		require.NoError(t, err)
	}
	// Until every proceeding session is in its tool: the model's turn
	// (with the call) is in the history. (Polled: with 10,000 sessions an
	// event reader lags and gets coalesced events.)
	for _, s := range e.Sessions() {
		for s.Status() == engine.StatusRunning && len(s.History()) < 2 {
			time.Sleep(time.Millisecond)
		}
	}
	require.NoError(t, e.CrashStore())
	e.Close() // its writes fail now: the store stays as the crash left it

	t0 := time.Now()
	e, err = engine.Open(t.Context(), engine.WithStore(path))
	took := time.Since(t0)
	require.NoError(t, err)
	defer e.Close()
	require.Len(t, e.Sessions(), n)
	require.Equal(t, proceeding, countReason(e, engine.ReasonServerRestart), "every proceeding session was recovered")
	return took
}

func countReason(e *engine.Engine, r engine.Reason) int {
	k := 0
	for _, s := range e.Sessions() {
		if in := s.Snapshot().Interruption; in != nil && in.Reason == r {
			k++
		}
	}
	return k
}

// storeBytesPerSession runs runs prompts in each of n sessions and returns
// the store's size (file and WAL) per session.
func storeBytesPerSession(t *testing.T, path string, n, runs int) float64 {
	turns := []engine.ScriptTurn{{Text: "Let me look.", ToolCalls: []engine.ScriptCall{call("sleep", map[string]int{"ms": 0})}}, {Text: "Done: nothing to change."}}
	e, err := engine.Open(t.Context(), engine.WithStore(path), engine.WithProvider(engine.NewScriptedProvider(turns)))
	require.NoError(t, err)
	for range n {
		s, err := e.NewSession(engine.SessionOptions{})
		require.NoError(t, err)
		for range runs {
			_, err := s.Prompt(t.Context(), "check the build and tell me what is wrong")
			require.NoError(t, err)
		}
	}
	require.NoError(t, e.Close())
	var size int64
	for _, f := range []string{path, path + "-wal"} {
		if fi, err := os.Stat(f); err == nil {
			size += fi.Size()
		}
	}
	return float64(size) / float64(n)
}
