// Package testsupervisor builds the command supervisor (cmd/interlock-run)
// for tests of packages that run bash commands, and points INTERLOCK_RUN at
// it, as the library finds it beside itself in a real install.
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
)

// Install builds interlock-run into a temporary directory and sets
// INTERLOCK_RUN to it. cleanup removes the directory.
func Install() (cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "interlock-run-")
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "interlock-run")
	cmd := exec.Command("go", "build", "-o", path, "github.com/interlock-dev/interlock/cmd/interlock-run")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("testsupervisor: go build ./cmd/interlock-run: %v\n%s", err, out)
	}
	os.Setenv("INTERLOCK_RUN", path)
	return func() { os.RemoveAll(dir) }, nil
}
