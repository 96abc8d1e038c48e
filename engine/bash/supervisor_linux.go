package bash

import (
	"bufio"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
)

// supervisorName is the supervisor's file name, beside the library.
const supervisorName = "interlock-run"

// defaultSupervisor is $INTERLOCK_RUN, else interlock-run in the directory
// of the file (executable or shared library) this code was loaded from.
func defaultSupervisor() string {
	if p := os.Getenv("INTERLOCK_RUN"); p != "" {
		return p
	}
	if dir := loadedFrom(); dir != "" {
		return filepath.Join(dir, supervisorName)
	}
	exe, _ := os.Executable()
	return filepath.Join(filepath.Dir(exe), supervisorName)
}

// loadedFrom finds, in /proc/self/maps, the directory of the file mapped
// where this function's code is: libinterlock.so when the engine runs in
// Node, the executable otherwise.
func loadedFrom() string {
	pc := uint64(reflect.ValueOf(loadedFrom).Pointer())
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// "start-end perms offset dev inode path"
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 {
			continue
		}
		lo, hi, ok := strings.Cut(fields[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 == nil && err2 == nil && start <= pc && pc < end && strings.HasPrefix(fields[5], "/") {
			return filepath.Dir(fields[5])
		}
	}
	return ""
}
