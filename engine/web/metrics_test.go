package web

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/internal/benchmetrics"
)

// TestMetrics measures the browser tool and writes
// $INTERLOCK_METRICS_DIR/web.json. It runs only when that variable is set.
func TestMetrics(t *testing.T) {
	dir := benchmetrics.Dir(t)
	ms := func(ds []time.Duration, p float64) benchmetrics.Metric {
		return benchmetrics.Millis(benchmetrics.Percentile(ds, p))
	}
	site := newSite(t)
	metrics := benchmetrics.Set{}

	// Browser start: fresh headless browsers, one at a time.
	var starts []time.Duration
	for range 5 {
		h := newHarness(t)
		b, err := h.bs.get(t.Context(), false, nil, os.Environ)
		require.NoError(t, err)
		starts = append(starts, b.startTook)
		require.NoError(t, h.bs.Close())
	}
	metrics["web_browser_start_ms"] = ms(starts, 50)

	// Navigation and a whole open_page call on one warm browser.
	h := newHarness(t)
	var navs, calls []time.Duration
	for range 30 {
		b, err := h.bs.get(t.Context(), false, nil, os.Environ)
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
	metrics["web_navigation_ms"] = ms(navs, 50)
	metrics["web_open_page_ms"] = ms(calls, 50)

	// Interrupt during a navigation that never ends, through a session:
	// from Session.Interrupt to the run's end (status interrupted).
	s, _ := newSession(t, Args{Type: ActionOpenPage, URL: site.URL + "/hang"})
	var stops []time.Duration
	for i := range 31 {
		_, outcome, err := s.Start(t.Context(), "open it")
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
	metrics["web_interrupt_p50_ms"] = ms(stops, 50)
	metrics["web_interrupt_p99_ms"] = ms(stops, 99)

	metrics.Write(t, dir, "web.json")
}
