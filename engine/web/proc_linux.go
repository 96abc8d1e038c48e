package web

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// killWithParent makes the kernel kill the browser if this process dies.
func killWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = new(syscall.SysProcAttr)
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}

// processesWithArg lists the processes with a command-line argument that
// matches (from /proc).
func processesWithArg(match func(arg []byte) bool) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		for arg := range bytes.SplitSeq(cmdline, []byte{0}) {
			if match(arg) {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}
