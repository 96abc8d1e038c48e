package main

/*
#include <stdlib.h>
extern char **environ;
static inline char **il_process_environ(void) { return environ; }
*/
import "C"

import (
	"strings"
	"unsafe"

	"github.com/interlock-dev/interlock/engine"
)

// processEnvironment reads the environment from the C library, as the host
// has it now. The Go runtime's own copy (os.Getenv, os.Environ) is the
// environment the process had when the library loaded: Node's
// process.env.X = … (and dotenv) calls setenv afterwards, which Go never
// sees.
//
// No lock is taken, as glibc's own getenv takes none: Node calls setenv
// and unsetenv on its main thread while the engine reads from its own, as
// Node's getaddrinfo calls on libuv's thread pool already do. glibc never
// frees the strings setenv made, so a read racing a write sees the
// environment before or after it (unsetenv shifts entries in place: a copy
// at that instant may miss or repeat one). Older glibc (2.36 here) also
// reallocates environ's array when setenv adds a variable, which a copy
// running at that very instant reads after it is freed; newer glibc keeps
// the old arrays for such readers. Reads happen where a variable is needed
// (an API key per request, the environment per command), not in a loop.
//
// A worker thread's process.env is its own copy and does not call setenv
// (unless the worker was started with env: SHARE_ENV): what a worker sets
// there is not seen here; the engine sees the process's environment.
var processEnvironment = engine.Environment{LookupEnv: lookupProcessEnv, Environ: processEnviron}

// lookupProcessEnv is getenv(key). A key with "=" or NUL is never set.
func lookupProcessEnv(key string) (string, bool) {
	if key == "" || strings.ContainsAny(key, "=\x00") {
		return "", false
	}
	ckey := C.CString(key)
	defer C.free(unsafe.Pointer(ckey))
	v := C.getenv(ckey)
	if v == nil {
		return "", false
	}
	return C.GoString(v), true
}

// processEnviron copies environ's "KEY=value" entries.
func processEnviron() []string {
	var out []string
	for p := C.il_process_environ(); p != nil && *p != nil; p = (**C.char)(unsafe.Add(unsafe.Pointer(p), unsafe.Sizeof(*p))) {
		out = append(out, C.GoString(*p))
	}
	return out
}
