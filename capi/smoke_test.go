package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCHeaderAgainstLibrary builds the shared library as node/build.js does,
// compiles testdata/smoke.c against interlock.h with gcc, and runs it: the
// header, the exported symbols and the soname agree, seen from real C. The
// library carries none of the tests' scaffolding (drive.go).
func TestCHeaderAgainstLibrary(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the shared library")
	}
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("gcc not found")
	}
	lib := filepath.Join(t.TempDir(), "lib")
	require.NoError(t, os.Mkdir(lib, 0o755))
	// The flags of node/build.js: the same build, and its cached packages.
	build := exec.CommandContext(t.Context(), "go", "build", "-buildmode=c-shared", "-trimpath", "-tags", "libinterlock",
		"-ldflags", "-extldflags -Wl,-soname,libinterlock.so.0.1",
		"-o", filepath.Join(lib, "libinterlock.so.0.1"), ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	syms, err := exec.CommandContext(t.Context(), "go", "tool", "nm", filepath.Join(lib, "libinterlock.so.0.1")).CombinedOutput()
	require.NoError(t, err, "go tool nm: %s", syms)
	require.Contains(t, string(syms), "il_version", "nm lists the library's symbols")
	for _, scaffolding := range []string{"main.drive", "il_capi_sink"} {
		require.NotContains(t, string(syms), scaffolding, "the shipped library carries drive.go's test scaffolding")
	}

	bin := filepath.Join(lib, "..", "smoke")
	cc := exec.CommandContext(t.Context(), gcc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic",
		"-D_POSIX_C_SOURCE=200809L", "-I.", "testdata/smoke.c",
		"-L"+lib, "-l:libinterlock.so.0.1", "-Wl,-rpath,$ORIGIN/lib", "-lpthread", "-o", bin)
	out, err = cc.CombinedOutput()
	require.NoError(t, err, "gcc: %s", out)

	cxx := exec.CommandContext(t.Context(), gcc, "-x", "c++", "-std=c++17", "-Wall", "-Wextra", "-Werror",
		"-I.", "-fsyntax-only", "-")
	cxx.Stdin = strings.NewReader(`#include "interlock.h"` + "\nint main() { il_handle h = 0; return il_session_close(h) == IL_OK; }\n")
	out, err = cxx.CombinedOutput()
	require.NoError(t, err, "the header as C++: %s", out)

	run := exec.CommandContext(t.Context(), bin)
	out, err = run.CombinedOutput()
	require.NoError(t, err, "smoke: %s", out)
	require.Contains(t, string(out), "smoke: ok")
}
