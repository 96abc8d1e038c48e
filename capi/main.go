// Command capi is libinterlock, the C API of the Interlock engine, built
// as a shared library for the Node addon:
//
//	go build -buildmode=c-shared -tags libinterlock \
//		-ldflags '-extldflags -Wl,-soname,libinterlock.so.0.1' \
//		-o lib/libinterlock.so.0.1 ./capi
//
// interlock.h (hand-written) is the contract. This package only translates:
// opaque handles (handles.go) resolved by one wrapper that recovers panics
// and maps engine errors to status codes (call.go), JSON in and out, and
// the event callback (events.go). Behaviour lives in package engine.
//
// The files follow the header: engine.go (and tools.go, the "bash" and
// "web" tools it registers), session.go, taskloop.go, command.go. drive.go
// gives tests Go-typed entry points, because test files cannot use cgo; the
// libinterlock build tag leaves it out of the shipped library.
package main

/*
#cgo CFLAGS: -DIL_CAPI_TYPES_ONLY
*/
import "C"

// version is the library version; the soname carries it too.
const version = "0.1.0"

func main() {}
