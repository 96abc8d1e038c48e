package bash

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// /proc readers for the tests' checks that no process is left.

// liveMembers lists the processes of group pgid that are not zombies.
func liveMembers(pgid int) ([]int, error) {
	pids, err := processIDs()
	if err != nil {
		return nil, err
	}
	var live []int
	for _, pid := range pids {
		if state, group, ok := readStat(pid); ok && group == pgid && state != 'Z' && state != 'X' {
			live = append(live, pid)
		}
	}
	return live, nil
}

// alive reports whether pid runs (exists and is not a zombie).
func alive(pid int) bool {
	state, _, ok := readStat(pid)
	return ok && state != 'Z' && state != 'X'
}

// processIDs lists the processes in /proc.
func processIDs() ([]int, error) {
	d, err := os.Open("/proc")
	if err != nil {
		return nil, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	pids := make([]int, 0, len(names))
	for _, name := range names {
		if pid, err := strconv.Atoi(name); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// readStat reads the state and process group of pid; ok is false once the
// process is gone.
func readStat(pid int) (state byte, pgid int, ok bool) {
	fd, err := syscall.Open("/proc/"+strconv.Itoa(pid)+"/stat", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0, 0, false
	}
	defer syscall.Close(fd)
	var buf [512]byte
	n, err := syscall.Read(fd, buf[:])
	if err != nil || n <= 0 {
		return 0, 0, false
	}
	return parseStat(buf[:n])
}

// parseStat reads the state and process group from /proc/PID/stat:
// "pid (comm) state ppid pgrp ...", where comm may contain spaces and ')'.
func parseStat(stat []byte) (state byte, pgid int, ok bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 || i+2 >= len(stat) {
		return 0, 0, false
	}
	fields := bytes.Fields(stat[i+1:])
	if len(fields) < 3 || len(fields[0]) != 1 {
		return 0, 0, false
	}
	pgid, err := strconv.Atoi(string(fields[2]))
	return fields[0][0], pgid, err == nil
}
