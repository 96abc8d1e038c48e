package bash

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"
)

// runner starts commands in their own process group and makes sure the
// whole group is gone before it returns.
type runner struct {
	shell   string         // "bash"
	grace   time.Duration  // SIGTERM to SIGKILL
	limit   int            // bytes of output kept
	started func(pgid int) // test hook: every process group started
}

// outcome is how a command ended.
type outcome struct {
	output   string
	exitCode int    // -1 when killed by a signal
	signal   string // "killed", "terminated" when exitCode is -1
	timedOut bool
}

// run runs command with bash -c in dir, streaming its combined stdout and
// stderr to progress. It returns once the process group is gone. A done ctx
// kills the group and returns an error wrapping ctx's cause.
func (r runner) run(ctx context.Context, command, dir string, env []string, timeout time.Duration, progress func(string)) (outcome, error) {
	if err := ctx.Err(); err != nil {
		return outcome{}, context.Cause(ctx)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return outcome{}, fmt.Errorf("bash: output pipe: %w", err)
	}
	defer pr.Close()
	cmd := exec.Command(r.shell, "-c", command)
	cmd.Dir = dir
	// Every process of this command inherits the mark, also one that leaves
	// the process group (setsid, a daemon): sweepEscaped finds those by it.
	mark := fmt.Sprintf("%s=%d.%d", runMarkVar, os.Getpid(), runSeq.Add(1))
	cmd.Env = append(slices.Clip(env), mark)
	cmd.Stdout, cmd.Stderr = pw, pw // one pipe: output keeps its order, like a terminal
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	pw.Close() // the children hold the write end now
	if err != nil {
		return outcome{}, fmt.Errorf("bash: start %s in %q: %w", r.shell, dir, err)
	}
	pgid := cmd.Process.Pid
	if r.started != nil {
		r.started(pgid)
	}

	exited := make(chan struct{})
	go func() {
		cmd.Wait() // reaps the shell; the exit status is read from ProcessState
		close(exited)
	}()
	out := newCappedBuffer(r.limit)
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		r.copy(pr, out, progress)
	}()

	var timer <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		timer = t.C
	}
	var res outcome
	var stopErr error
	select {
	case <-exited:
	case <-timer:
		res.timedOut = true
	case <-ctx.Done():
		stopErr = context.Cause(ctx)
	}
	// Always: after a normal exit this ends what the shell left running
	// in the background, so nothing outlives the call.
	killErr := r.killGroup(pgid)
	<-exited
	sweepEscaped(mark)
	// The group is gone, so nobody but a process that escaped it (setsid)
	// can still hold the pipe: don't wait for those.
	pr.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	<-drained

	res.output = out.String()
	res.exitCode = cmd.ProcessState.ExitCode()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		res.signal = ws.Signal().String()
	}
	if stopErr != nil {
		return res, errors.Join(stopErr, killErr)
	}
	return res, killErr
}

// copy streams the pipe to out and progress until EOF or the read deadline,
// never splitting a UTF-8 character between two progress chunks.
func (r runner) copy(pr *os.File, out *cappedBuffer, progress func(string)) {
	buf := make([]byte, 32<<10)
	var carry []byte
	for {
		n, err := pr.Read(buf)
		if n > 0 {
			out.Write(buf[:n])
			chunk := append(carry, buf[:n]...)
			cut := completeUTF8(chunk)
			if cut > 0 && progress != nil {
				progress(string(chunk[:cut]))
			}
			carry = append(carry[:0:0], chunk[cut:]...)
		}
		if err != nil {
			if len(carry) > 0 && progress != nil {
				progress(string(carry))
			}
			return
		}
	}
}

// completeUTF8 returns the length of b without a trailing partial character.
func completeUTF8(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return i
			}
			break
		}
	}
	return len(b)
}

// killGroup ends process group pgid: SIGTERM, then SIGKILL after the
// grace, and returns once no member is left alive.
func (r runner) killGroup(pgid int) error {
	// Only ESRCH here, no /proc scan (about 1 ms): signalling a group left
	// with nothing but zombies is harmless, and its id can't have been
	// reused while any member exists.
	if errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) {
		return nil
	}
	w := &groupWatch{pgid: pgid}
	syscall.Kill(-pgid, syscall.SIGTERM)
	syscall.Kill(-pgid, syscall.SIGCONT) // a stopped process must run to die of SIGTERM
	if w.wait(r.grace) {
		return nil
	}
	syscall.Kill(-pgid, syscall.SIGKILL)
	if w.wait(5 * time.Second) {
		return nil
	}
	return fmt.Errorf("bash: process group %d still has live members 5s after SIGKILL (stuck in the kernel?)", pgid)
}

// runMarkVar names the environment variable that marks a command's
// processes; runSeq makes each command's mark unique in this process.
const runMarkVar = "INTERLOCK_BASH_RUN"

var runSeq atomic.Uint64

// sweepEscaped kills the processes that carry mark in their environment:
// those that left the command's process group (setsid, daemons) and so
// outlived killGroup. Only a process that also cleared its environment
// (env -i) escapes this.
func sweepEscaped(mark string) {
	needle := []byte("\x00" + mark + "\x00")
	self := os.Getpid()
	pids, _ := processIDs() // no /proc: the process group is all we can end
	for _, pid := range pids {
		if pid == self {
			continue
		}
		environ, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		if err == nil && (bytes.HasPrefix(environ, needle[1:]) || bytes.Contains(environ, needle)) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// groupWatch tells when a process group has no live member left.
//
// kill(-pgid, 0) failing with ESRCH settles it cheaply, but members that
// are zombies keep it succeeding, and an orphan's zombie may wait for ever
// where PID 1 does not reap (some containers). Then only /proc can tell,
// and scanning all of /proc is slow: so the watch remembers the live
// members of its last scan, polls just those, and scans again only to
// confirm once they are all dead (a member may have forked meanwhile).
type groupWatch struct {
	pgid    int
	members []int // live members at the last full scan
	scanned bool
}

// gone reports whether the group has no live member.
func (w *groupWatch) gone() bool {
	if err := syscall.Kill(-w.pgid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	if w.scanned {
		for _, pid := range w.members {
			if state, group, ok := readStat(pid); ok && group == w.pgid && state != 'Z' && state != 'X' {
				return false // a known member still runs: no need to scan
			}
		}
	}
	live, err := liveMembers(w.pgid)
	if err != nil {
		return false // no /proc: only ESRCH can tell
	}
	w.members, w.scanned = live, true
	return len(live) == 0
}

// wait polls until the group is gone or d has passed.
func (w *groupWatch) wait(d time.Duration) bool {
	deadline := time.Now().Add(d)
	pause := 100 * time.Microsecond // signals take a moment to land
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return w.gone()
		}
		time.Sleep(min(pause, left))
		if w.gone() {
			return true
		}
		// At most 1 ms between polls: each costs a few syscalls, and the
		// status turns interrupted only once the group is gone.
		pause = min(pause*2, time.Millisecond)
	}
}

// liveMembers lists the processes of group pgid that are not zombies,
// from /proc.
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
	var buf [512]byte // state and pgrp come right after the name, at most 16 bytes
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

// cappedBuffer keeps the first and last limit/2 bytes written and counts
// what it dropped in between.
type cappedBuffer struct {
	limit   int
	head    []byte
	tail    []byte // ring of the last limit-limit/2 bytes
	tailPos int
	total   int
}

func newCappedBuffer(limit int) *cappedBuffer {
	if limit <= 0 {
		limit = DefaultOutputLimit
	}
	return &cappedBuffer{limit: limit}
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	n := len(p)
	b.total += n
	if room := b.limit/2 - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	size := b.limit - b.limit/2
	for len(p) > 0 {
		if len(b.tail) < size {
			k := min(size-len(b.tail), len(p))
			b.tail = append(b.tail, p[:k]...)
			p = p[k:]
			continue
		}
		k := copy(b.tail[b.tailPos:], p)
		b.tailPos = (b.tailPos + k) % size
		p = p[k:]
	}
	return n, nil
}

// String is the kept output; a cut in the middle says how much was left out.
func (b *cappedBuffer) String() string {
	tail := append(append([]byte(nil), b.tail[b.tailPos:]...), b.tail[:b.tailPos]...)
	omitted := b.total - len(b.head) - len(tail)
	if omitted <= 0 {
		return string(bytes.ToValidUTF8(append(b.head, tail...), []byte("\uFFFD")))
	}
	head := bytes.ToValidUTF8(b.head, []byte("\uFFFD"))
	tail = bytes.ToValidUTF8(tail, []byte("\uFFFD"))
	return fmt.Sprintf("%s\n... [%d bytes omitted] ...\n%s", head, omitted, tail)
}
