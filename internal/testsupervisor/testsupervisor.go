// Package testsupervisor builds the command supervisor (cmd/interlock-run,
// a C program) for tests of packages that run bash commands, and points
// INTERLOCK_RUN at it, as the library finds it beside itself in a real
// install.
//
//	func TestMain(m *testing.M) {
//		cleanup, err := testsupervisor.Install()
//		...
//	}
package testsupervisor

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// Install builds interlock-run into a temporary directory and sets
// INTERLOCK_RUN to it. cleanup removes the directory.
func Install() (cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "interlock-run-")
	if err != nil {
		return nil, err
	}
	_, self, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(self), "..", "..", "cmd", "interlock-run", "interlock-run.c")
	path := filepath.Join(dir, "interlock-run")
	if out, err := Build(src, path); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("testsupervisor: %v\n%s", err, out)
	}
	os.Setenv("INTERLOCK_RUN", path)
	return func() { os.RemoveAll(dir) }, nil
}

// Build compiles the supervisor's source src to out with $CC (else cc),
// statically linked where the C library allows it, as node/build.js does.
func Build(src, out string) ([]byte, error) {
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	flags := []string{"-O2", "-Wall", "-o", out, src}
	b, err := exec.Command(cc, append([]string{"-static"}, flags...)...).CombinedOutput()
	if err != nil {
		b, err = exec.Command(cc, flags...).CombinedOutput()
	}
	if err != nil {
		return b, fmt.Errorf("%s %v: %w", cc, flags, err)
	}
	return b, nil
}
