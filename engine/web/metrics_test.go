package web

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
)

type metric struct {
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
}

// TestMetrics measures the browser tool and writes
// $INTERLOCK_METRICS_DIR/web.json. It runs only when that variable is set.
func TestMetrics(t *testing.T) {
	dir := os.Getenv("INTERLOCK_METRICS_DIR")
	if dir == "" {
		t.Skip("set INTERLOCK_METRICS_DIR to measure the web tool and write web.json")
	}
	site := newSite(t)
	metrics := map[string]metric{}

	// Browser start: fresh headless browsers, one at a time.
	var starts []time.Duration
	for range 5 {
		h := newHarness(t)
		b, err := h.bs.get(t.Context(), false, nil)
		require.NoError(t, err)
		starts = append(starts, b.startTook)
		require.NoError(t, h.bs.Close())
	}
	metrics["web_browser_start_ms"] = ms(percentile(starts, 50))

	// Navigation and a whole open_page call on one warm browser.
	h := newHarness(t)
	var navs, calls []time.Duration
	for range 30 {
		b, err := h.bs.get(t.Context(), false, nil)
		require.NoError(t, err)
		tb, err := b.newTab(t.Context())
		require.NoError(t, err)
		began := time.Now()
		_, err = h.tool.navigate(tb, site.URL+"/")
		navs = append(navs, time.Since(began))
		tb.done()
		require.NoError(t, err)

		began = time.Now()
		_, err = h.call(t.Context(), &fakeHost{}, Args{Type: ActionOpenPage, URL: site.URL + "/"})
		calls = append(calls, time.Since(began))
		require.NoError(t, err)
	}
	metrics["web_navigation_ms"] = ms(percentile(navs, 50))
	metrics["web_open_page_ms"] = ms(percentile(calls, 50))

	// Interrupt during a navigation that never ends, through a session:
	// from Session.Interrupt to the run's end (status interrupted).
	s, _ := newSession(t, Args{Type: ActionOpenPage, URL: site.URL + "/hang"})
	var stops []time.Duration
	for i := range 31 {
		outcome, err := s.Start(t.Context(), "open it")
		require.NoError(t, err)
		<-site.hangHits
		began := time.Now()
		require.NoError(t, s.Interrupt(engine.ReasonUserStop))
		o := <-outcome
		took := time.Since(began)
		require.ErrorIs(t, o.Err, engine.ErrInterrupted)
		if i > 0 { // the first run started the browser
			stops = append(stops, took)
		}
	}
	metrics["web_interrupt_p50_ms"] = ms(percentile(stops, 50))
	metrics["web_interrupt_p99_ms"] = ms(percentile(stops, 99))

	data, err := json.MarshalIndent(metrics, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "web.json"), append(data, '\n'), 0o644))
	t.Logf("web.json: %s", data)
}

// percentile is the nearest-rank percentile p of ds.
func percentile(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	return s[max(rank-1, 0)]
}

func ms(d time.Duration) metric {
	return metric{Value: math.Round(float64(d)/float64(time.Millisecond)*100) / 100, Unit: "ms"}
}
