package engine

import (
	"syscall"
	"time"
	"unsafe"
)

// monoOrigin pairs a reading of CLOCK_MONOTONIC with a time.Time taken at
// the same instant, so that any later time.Time converts to CLOCK_MONOTONIC
// nanoseconds through Go's own monotonic reading (which is that clock):
// the same clock as Node's process.hrtime.bigint().
var monoOrigin = func() (o struct {
	ns int64
	at time.Time
}) {
	var ts syscall.Timespec
	before := time.Now()
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 1 /* CLOCK_MONOTONIC */, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return o // zero: MonoNanos then counts from process start
	}
	after := time.Now()
	o.ns = ts.Nano()
	o.at = before.Add(after.Sub(before) / 2)
	return o
}()

// MonoNanos returns t as CLOCK_MONOTONIC nanoseconds (t must carry Go's
// monotonic reading, as time.Now() does).
func MonoNanos(t time.Time) int64 {
	return monoOrigin.ns + int64(t.Sub(monoOrigin.at))
}
