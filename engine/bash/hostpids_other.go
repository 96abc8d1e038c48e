//go:build !linux

package bash

import "os"

// hostPIDs is this process, its parent and init: signals, debuggers and
// resource limits aimed at them are aimed at the host running the tool.
func hostPIDs() map[int]bool {
	return map[int]bool{1: true, os.Getpid(): true, os.Getppid(): true}
}
