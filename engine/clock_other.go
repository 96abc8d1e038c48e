//go:build !linux

package engine

import "time"

var monoStart = time.Now()

// MonoNanos returns t as nanoseconds on a monotonic clock (here: since the
// library loaded; on Linux, CLOCK_MONOTONIC as Node's process.hrtime).
func MonoNanos(t time.Time) int64 { return int64(t.Sub(monoStart)) }
