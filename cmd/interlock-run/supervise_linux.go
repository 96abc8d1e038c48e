package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/interlock-dev/interlock/engine/bash/contain"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// supervise is the whole of interlock-run: it runs the contain.Request
// in args[1] (JSON) and writes its contain.Report to the control socket (fd 3), or
// with "--probe" prints what the kernel offers as JSON. It returns the
// process's exit code.
func supervise(args []string) int {
	if len(args) == 2 && args[1] == "--probe" {
		json.NewEncoder(os.Stdout).Encode(probeSelf())
		return 0
	}
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: interlock-run REQUEST-JSON (started by the Interlock bash tool, with its control socket on fd 3) | interlock-run --probe")
		return 2
	}
	ctrl := os.NewFile(contain.ControlFD, "control")
	if _, err := ctrl.Stat(); err != nil {
		fmt.Fprintln(os.Stderr, "interlock-run: no control socket on fd 3: it is started by the Interlock bash tool, not by hand (try --probe)")
		return 2
	}
	var req contain.Request
	if err := json.Unmarshal([]byte(args[1]), &req); err != nil {
		writeReport(ctrl, contain.Report{Error: fmt.Sprintf("interlock-run: bad request %q: %v", args[1], err)})
		return 2
	}
	s := newSupervisor(req, ctrl)
	writeReport(ctrl, s.run())
	return 0
}

func writeReport(ctrl *os.File, r contain.Report) {
	b, _ := json.Marshal(r)
	ctrl.Write(append(b, '\n'))
}

// supervisor runs one command and keeps its tree.
type supervisor struct {
	req      contain.Request
	ctrl     *os.File
	pidNS    bool          // we are PID 1 of the command's namespace
	stop     chan struct{} // a stop message arrived
	hostGone chan struct{} // control EOF or a parent-death signal
	allGone  chan struct{} // no child left: the whole tree is gone
	shell    chan syscall.WaitStatus
}

func newSupervisor(req contain.Request, ctrl *os.File) *supervisor {
	return &supervisor{
		req: req, ctrl: ctrl, pidNS: os.Getpid() == 1,
		stop: make(chan struct{}), hostGone: make(chan struct{}),
		allGone: make(chan struct{}), shell: make(chan syscall.WaitStatus, 1),
	}
}

func (s *supervisor) run() contain.Report {
	// Below Landlock ABI 8 each thread that restricts itself gets its own
	// domain, and a scoped domain may only signal its own or nested ones:
	// so this goroutine restricts, starts the shell and sends every signal
	// to the tree, all from one thread.
	runtime.LockOSThread()
	rep := contain.Report{Tree: contain.TreeSubreaper}
	if s.pidNS {
		rep.Tree = contain.TreePIDNamespace
	} else if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		rep.Error = fmt.Sprintf("interlock-run: PR_SET_CHILD_SUBREAPER: %v: the command's tree could not be kept, so it was not started", err)
		return rep
	}
	// The host's death, as a second line to the control socket's EOF.
	unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGTERM), 0, 0, 0)
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
	go s.watchHost(signals)

	devNull, err := os.Open(os.DevNull)
	if err != nil {
		rep.Error = fmt.Sprintf("interlock-run: open %s: %v", os.DevNull, err)
		return rep
	}
	shell, err := exec.LookPath(s.req.Shell)
	if err != nil {
		rep.Error = fmt.Sprintf("interlock-run: %v: install it or put it on the PATH of the host", err)
		return rep
	}
	enforced, err := restrict(s.req)
	rep.Sandbox = enforced
	if err != nil {
		rep.Error = err.Error()
		return rep
	}
	pid, err := syscall.ForkExec(shell, []string{s.req.Shell, "-c", s.req.Command}, &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: []uintptr{devNull.Fd(), 1, 2},
		Sys:   &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		devNull.Close()
		rep.Error = fmt.Sprintf("interlock-run: start %s: %v", shell, err)
		return rep
	}
	// The command's output pipe ends when its tree does: not when we exit.
	syscall.Dup3(int(devNull.Fd()), 1, 0)
	syscall.Dup3(int(devNull.Fd()), 2, 0)
	devNull.Close()
	go s.reap(pid)

	grace := time.Duration(s.req.GraceMS) * time.Millisecond
	var ws syscall.WaitStatus
	select {
	case ws = <-s.shell:
		// What the shell left running in the background ends with it.
		s.kill(grace)
	case <-s.stop:
		rep.Stopped = true
		s.kill(grace)
		ws = <-s.shell
	case <-s.hostGone:
		s.kill(0)
		os.Exit(1)
	}
	rep.ExitCode = ws.ExitStatus()
	if ws.Signaled() {
		rep.ExitCode = -1
		rep.Signal = ws.Signal().String()
	}
	return rep
}

// watchHost reads control messages until EOF, and turns EOF or a fatal
// signal into hostGone.
func (s *supervisor) watchHost(signals <-chan os.Signal) {
	eof := make(chan struct{})
	go func() {
		defer close(eof)
		buf := make([]byte, 1)
		stopped := false
		for {
			n, err := s.ctrl.Read(buf)
			if n == 1 && buf[0] == contain.MsgStop && !stopped {
				stopped = true
				close(s.stop)
			}
			if err != nil {
				return
			}
		}
	}()
	select {
	case <-eof:
	case <-signals:
	}
	close(s.hostGone)
}

// reap waits for every child (orphans of the tree are reparented to us) and
// closes allGone once none is left.
func (s *supervisor) reap(shell int) {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil { // ECHILD: no process of the tree is left
			close(s.allGone)
			return
		}
		if pid == shell {
			s.shell <- ws
		}
	}
}

// kill ends the tree: SIGTERM, then after the grace SIGKILL until no
// process is left.
func (s *supervisor) kill(grace time.Duration) {
	select {
	case <-s.allGone:
		return
	default:
	}
	if grace > 0 {
		s.signalTree(syscall.SIGTERM, syscall.SIGCONT) // a stopped process must run to die of SIGTERM
		t := time.NewTimer(grace)
		select {
		case <-s.allGone:
			t.Stop()
			return
		case <-t.C:
		}
	}
	// Repeated: a process forking while we walk the tree is caught by the
	// next round (in a PID namespace one round reaches every process).
	for wait := 100 * time.Microsecond; ; wait = min(2*wait, 10*time.Millisecond) {
		s.signalTree(syscall.SIGKILL)
		t := time.NewTimer(wait)
		select {
		case <-s.allGone:
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// signalTree sends sigs, in order, to every process of the tree but
// ourselves.
func (s *supervisor) signalTree(sigs ...syscall.Signal) {
	if s.pidNS {
		for _, sig := range sigs {
			syscall.Kill(-1, sig) // every process of our namespace but its init, us
		}
		return
	}
	for _, pid := range descendants(os.Getpid()) {
		for _, sig := range sigs {
			syscall.Kill(pid, sig)
		}
	}
}

// descendants lists the processes below root: as a subreaper, every orphan
// of the tree is our child, so none can leave it. It follows
// /proc/PID/task/TID/children, and scans all of /proc where the kernel
// lacks those files.
func descendants(root int) []int {
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		p := strconv.Itoa(queue[0])
		queue = queue[1:]
		tasks, err := os.ReadDir("/proc/" + p + "/task")
		if err != nil {
			continue // gone meanwhile
		}
		for _, task := range tasks {
			b, err := os.ReadFile("/proc/" + p + "/task/" + task.Name() + "/children")
			if errors.Is(err, os.ErrNotExist) && p == strconv.Itoa(root) {
				return scanDescendants(root)
			}
			for _, f := range strings.Fields(string(b)) {
				if c, err := strconv.Atoi(f); err == nil {
					out = append(out, c)
					queue = append(queue, c)
				}
			}
		}
	}
	return out
}

// scanDescendants is descendants from the parent of every process in /proc.
func scanDescendants(root int) []int {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	children := map[int][]int{}
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if ppid, ok := parentOf(pid); ok {
			children[ppid] = append(children[ppid], pid)
		}
	}
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// parentOf reads the parent of pid from /proc/PID/stat:
// "pid (comm) state ppid ...", where comm may contain spaces and ')'.
func parentOf(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == ')' {
			var state byte
			var ppid int
			if _, err := fmt.Sscanf(string(b[i+1:]), " %c %d", &state, &ppid); err != nil {
				return 0, false
			}
			return ppid, true
		}
	}
	return 0, false
}
