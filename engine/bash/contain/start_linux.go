package contain

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// ErrNoSupervisor is wrapped when the interlock-run executable is missing
// or cannot be run.
var ErrNoSupervisor = errors.New("command supervisor interlock-run not usable")

// Process says how to start the supervisor.
type Process struct {
	Path   string   // the interlock-run executable
	Dir    string   // working directory of the command
	Env    []string // environment of the command
	Output *os.File // stdout and stderr of the command
	// Namespaces makes the supervisor create new user and PID namespaces
	// (and a network namespace when the policy denies network) and
	// supervise as their PID 1; where the kernel refuses them it keeps the
	// tree as a subreaper and says so (Report.NamespacesRefused).
	Namespaces bool
}

// Supervised is a running supervisor.
type Supervised struct {
	cmd      *exec.Cmd
	ctrl     *os.File
	stopOnce sync.Once
	exited   chan struct{} // closed once the supervisor is reaped
}

// CheckSupervisor reports whether path is an executable file.
func CheckSupervisor(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("%w: %v: build it with `make build` (or `cc -O2 -o %s cmd/interlock-run/interlock-run.c`), or point INTERLOCK_RUN at it", ErrNoSupervisor, err, path)
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		return fmt.Errorf("%w: %s is not an executable file (mode %v): rebuild it with `make build` (or `cc -O2 -o %s cmd/interlock-run/interlock-run.c`)", ErrNoSupervisor, path, fi.Mode(), path)
	}
	return nil
}

// Start starts the supervisor for req. Nothing is started when it fails.
func Start(req Request, p Process) (*Supervised, error) {
	if err := CheckSupervisor(p.Path); err != nil {
		return nil, err
	}
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("contain: control socket: %w", err)
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "control"), os.NewFile(uintptr(fds[1]), "control")
	defer theirs.Close()
	// Started plainly (vfork): the supervisor makes its namespaces itself.
	// Go forks a whole copy of the host, page tables and all, to start a
	// child in a new user namespace; the host here is Node.
	cmd := exec.Command(p.Path, req.args(p.Namespaces, networkDenyFilter(), metadataFilter())...)
	cmd.Dir, cmd.Env = p.Dir, p.Env
	cmd.Stdout, cmd.Stderr = p.Output, p.Output
	cmd.ExtraFiles = []*os.File{theirs} // fd 3
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		ours.Close()
		return nil, fmt.Errorf("%w: start %s in %q: %v", ErrNoSupervisor, p.Path, p.Dir, err)
	}
	return &Supervised{cmd: cmd, ctrl: ours, exited: make(chan struct{})}, nil
}

// Pid is the supervisor's process id; it leads the command's process group.
func (s *Supervised) Pid() int { return s.cmd.Process.Pid }

// Exited is closed once the supervisor process has exited and been reaped
// (after Wait returned).
func (s *Supervised) Exited() <-chan struct{} { return s.exited }

// Stop asks the supervisor to end the command: SIGTERM to its whole tree,
// SIGKILL after the grace. Wait returns once the tree is gone.
func (s *Supervised) Stop() {
	s.stopOnce.Do(func() { s.ctrl.Write([]byte{MsgStop}) })
}

// Wait waits for the supervisor's report: the command's whole tree is gone
// when it returns without error. The supervisor itself exits right after
// its report; it is reaped in the background (Exited tells when).
func (s *Supervised) Wait() (Report, error) {
	var rep Report
	line, readErr := bufio.NewReader(s.ctrl).ReadBytes('\n')
	s.ctrl.Close()
	if len(line) == 0 || (readErr != nil && readErr != io.EOF) {
		waitErr := s.cmd.Wait()
		close(s.exited)
		return rep, fmt.Errorf("%w: %s exited without a report (%v): the command's processes may be left running", ErrNoSupervisor, s.cmd.Path, waitErr)
	}
	go func() {
		s.cmd.Wait()
		close(s.exited)
	}()
	if err := json.Unmarshal(line, &rep); err != nil {
		return rep, fmt.Errorf("%w: %s sent a bad report %q: %v", ErrNoSupervisor, s.cmd.Path, line, err)
	}
	if rep.Error != "" {
		return rep, errors.New(rep.Error)
	}
	return rep, nil
}

// Probe runs the supervisor at path with --probe and returns what the
// kernel offers.
func Probe(path string) (Features, error) {
	if err := CheckSupervisor(path); err != nil {
		return Features{}, err
	}
	out, err := exec.Command(path, "--probe").Output()
	var f Features
	if err == nil {
		err = json.Unmarshal(out, &f)
	}
	if err != nil {
		return f, fmt.Errorf("%w: %s --probe: %v", ErrNoSupervisor, path, err)
	}
	return f, nil
}
