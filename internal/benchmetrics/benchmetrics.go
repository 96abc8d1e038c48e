// Package benchmetrics writes what `make bench` measures in Go: each
// package's TestMetrics fills a Set and writes it as
// $INTERLOCK_METRICS_DIR/<name>.json, which bench/report.js merges into
// bench/results.json.
//
//	dir := benchmetrics.Dir(t) // skips the test unless make bench set it
//	m := benchmetrics.Set{"x_p99_us": benchmetrics.Micros(benchmetrics.Percentile(ds, 99))}
//	m.Write(t, dir, "x.json")
package benchmetrics

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// Metric is one measured value and its unit.
type Metric struct {
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
}

// Set holds metrics by name ("engine_interrupt_p99_us").
type Set map[string]Metric

// Dir returns $INTERLOCK_METRICS_DIR and skips t when it is not set, so
// that measurements run only under make bench.
func Dir(t testing.TB) string {
	dir := os.Getenv("INTERLOCK_METRICS_DIR")
	if dir == "" {
		t.Skip("set INTERLOCK_METRICS_DIR to measure (make bench does)")
	}
	return dir
}

// Percentile is the nearest-rank percentile p (0 to 100) of ds.
func Percentile(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	return s[max(rank-1, 0)]
}

// Micros is d in microseconds, rounded to 0.01.
func Micros(d time.Duration) Metric {
	return Metric{round2(float64(d) / float64(time.Microsecond)), "us"}
}

// Millis is d in milliseconds, rounded to 0.01.
func Millis(d time.Duration) Metric {
	return Metric{round2(float64(d) / float64(time.Millisecond)), "ms"}
}

// round2 rounds v to two decimals.
func round2(v float64) float64 { return math.Round(v*100) / 100 }

// Write logs every metric and writes the set to dir/name as JSON.
func (s Set) Write(t testing.TB, dir, name string) {
	t.Helper()
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range s {
			if !yield(k) {
				return
			}
		}
	}) {
		t.Logf("%s = %v %s", k, s[k].Value, s[k].Unit)
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, name), append(data, '\n'), 0o644)
	}
	if err != nil {
		t.Fatalf("writing %s: %v", filepath.Join(dir, name), err)
	}
}
