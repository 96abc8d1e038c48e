package bash

import (
	"os"
	"strconv"
	"strings"
)

// hostPIDs is this process and its ancestors: signals, debuggers and
// resource limits aimed at them are aimed at the host running the tool.
func hostPIDs() map[int]bool {
	pids := map[int]bool{1: true}
	for pid := os.Getpid(); pid > 1 && len(pids) < 64; {
		pids[pid] = true
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			break
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		s := string(stat)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) < 2 {
			break
		}
		pid, _ = strconv.Atoi(fields[1])
	}
	return pids
}
