package engine

import (
	"syscall"
	"time"
	"unsafe"
)

// monoOrigin pairs a reading of CLOCK_MONOTONIC with a time.Time taken at
// the same instant, so that any later time.Time converts to CLOCK_MONOTONIC
// nanoseconds through Go's own monotonic reading (which is that clock):
// the same clock as Node's process.hrtime.bigint(). The reading is placed
// at the middle of the two time.Now() around it, so the pairing is off by
// at most half that window: of several tries, the narrowest window is kept
// (a thread preempted between the readings widened one to microseconds, and
// events then seemed to happen before the call that caused them).
var monoOrigin = func() (o struct {
	ns int64
	at time.Time
}) {
	best := time.Duration(-1)
	for range 16 {
		var ts syscall.Timespec
		before := time.Now()
		if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 1 /* CLOCK_MONOTONIC */, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
			return o // zero: MonoNanos then counts from process start
		}
		window := time.Since(before)
		if best < 0 || window < best {
			best = window
			o.ns = ts.Nano()
			o.at = before.Add(window / 2)
		}
	}
	return o
}()

// MonoNanos returns t as CLOCK_MONOTONIC nanoseconds (t must carry Go's
// monotonic reading, as time.Now() does).
func MonoNanos(t time.Time) int64 {
	return monoOrigin.ns + int64(t.Sub(monoOrigin.at))
}
