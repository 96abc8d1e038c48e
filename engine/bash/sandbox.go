package bash

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/bash/contain"
)

// sessionSandboxKey keys a Tool's sandbox state in a session's Local state.
type sessionSandboxKey struct{ t *Tool }

// sessionSandbox is a session's sandbox policy and what it last ran with.
type sessionSandbox struct {
	mu       sync.Mutex
	override *contain.Policy
	last     *contain.Report // the report of the session's last command
	warned   bool
}

func (t *Tool) sessionSandbox(env interface {
	Local(key any, create func() any) any
}) *sessionSandbox {
	return env.Local(sessionSandboxKey{t}, func() any { return &sessionSandbox{} }).(*sessionSandbox)
}

// policy is the session's policy, else def.
func (s *sessionSandbox) policy(def contain.Policy) contain.Policy {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.override != nil {
		return *s.override
	}
	return def
}

// SetSandbox sets the sandbox policy of the commands session s runs with
// this Tool, in place of the Tool's (WithSandbox). It fails, changing
// nothing, when p is invalid.
func (t *Tool) SetSandbox(s *engine.Session, p contain.Policy) error {
	if err := p.Validate("sandbox"); err != nil {
		return err
	}
	ss := t.sessionSandbox(s)
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.override = &p
	return nil
}

// sandboxHint says which sandbox rule blocked a failed command and how to
// allow it. Landlock answers with EACCES/EPERM and records nothing the
// command's user can read (its audit records, Landlock ABI 7, go to the
// kernel's audit log, which needs CAP_AUDIT_READ), so the attribution is
// made from the paths and process ids the failing programs printed next to
// "Permission denied" / "Operation not permitted": one is reported as
// blocked by the sandbox only when the policy forbids it and the user could
// do it without the sandbox (access(2) and kill(pid, 0) from the host). A
// denial nothing can be attributed to gets no hint: the sandbox is not
// blamed for ordinary permission errors.
func sandboxHint(o outcome, p contain.Policy) string {
	p = p.Normalized()
	e := o.report.Sandbox
	if o.exitCode == 0 && !o.timedOut {
		return ""
	}
	var hints []string
	if e.Filesystem {
		writes, reads := deniedPaths(o.output, o.workspace, p, os.TempDir())
		if len(writes) > 0 {
			hints = append(hints, writeHint(writes, o.workspace, p, os.TempDir()))
		}
		if len(reads) > 0 {
			hints = append(hints, fmt.Sprintf("reading %s: bash.sandbox.readable limits reads to %s, the writable paths and the system directories; add it to bash.sandbox.readable to allow reading it (and to bash.sandbox.writable to allow writing it)", quoteList(reads), strings.Join(p.Readable, ", ")))
		}
	}
	if e.Signals {
		if pids := deniedSignals(o.output); len(pids) > 0 {
			hints = append(hints, fmt.Sprintf("signalling process %s: the sandbox scopes signals to the command's own processes (Landlock); set bash.sandbox.mode to \"off\" to signal other processes", strings.Join(pids, ", ")))
		}
	}
	if e.MaxProcesses > 0 && containsAny(o.output, "Resource temporarily unavailable", "Cannot fork", "can't fork") {
		hints = append(hints, fmt.Sprintf("starting processes: a command may run %d processes and threads at once (bash.sandbox.maxProcesses); raise it to allow more", e.MaxProcesses))
	}
	if p.Network == contain.NetworkDeny && strings.HasPrefix(e.Network, "deny") && containsAny(o.output, "Network is unreachable", "Could not resolve", "Temporary failure in name resolution", "Connection refused", "Cannot assign requested address") {
		hints = append(hints, "network access: bash.sandbox.network is \"deny\" ("+e.Network+"); set it to \"allow\" to allow it")
	}
	if len(hints) == 0 {
		return ""
	}
	return "[blocked by the sandbox: " + strings.Join(hints, "; ") + "]"
}

// writeHint names the blocked writes, the rule and how to allow them.
func writeHint(paths []string, workspace string, p contain.Policy, tempDir string) string {
	if p.Mode == contain.ModeReadOnly {
		return fmt.Sprintf("writing %s: bash.sandbox.mode is \"read-only\", which allows no writes; set it to \"workspace-write\" (writes in the working directory) or \"off\" to allow them", quoteList(paths))
	}
	where := append([]string{workspace, tempDir}, p.Writable...)
	return fmt.Sprintf("writing %s: bash.sandbox.mode \"workspace-write\" allows writes only in %s; add the path (or a parent directory) to bash.sandbox.writable, or set bash.sandbox.mode to \"off\", to allow it", quoteList(paths), strings.Join(where, ", "))
}

// maxAttributed caps the paths or pids one hint names.
const maxAttributed = 3

func quoteList(items []string) string {
	q := make([]string, 0, len(items))
	for _, it := range items {
		q = append(q, strconv.Quote(it))
	}
	return strings.Join(q, ", ")
}

// denialLine reports whether a line of output is a permission failure.
func denialLine(line string) bool {
	l := strings.ToLower(line)
	return strings.Contains(l, "permission denied") || strings.Contains(l, "operation not permitted") || strings.Contains(l, "read-only file system")
}

// deniedPaths finds the paths named on the output's permission-failure
// lines that policy p forbids writing (writes) or reading (reads) and that
// the user could write or read without the sandbox. Relative paths are
// taken from the working directory.
func deniedPaths(output, workspace string, p contain.Policy, tempDir string) (writes, reads []string) {
	seen := map[string]bool{}
	for _, line := range strings.Split(output, "\n") {
		if !denialLine(line) {
			continue
		}
		for _, path := range pathsIn(line) {
			if !filepath.IsAbs(path) {
				path = filepath.Join(workspace, path)
			}
			path = filepath.Clean(path)
			if seen[path] {
				continue
			}
			seen[path] = true
			// A path the policy does not let the command read is blocked
			// for every access, so that is the rule to name.
			switch {
			case !readableBy(p, workspace, tempDir, path) && userCan(path, unix.R_OK):
				if len(reads) < maxAttributed {
					reads = append(reads, path)
				}
			case !writableBy(p, workspace, tempDir, path) && userCan(path, unix.W_OK):
				if len(writes) < maxAttributed {
					writes = append(writes, path)
				}
			}
		}
	}
	return writes, reads
}

// pathsIn extracts what looks like a path from a line of error output:
// quoted strings ('x', "x", ‘x’) and colon-separated fields ("bash: line
// 1: /x: Permission denied", "tee: x: Permission denied").
func pathsIn(line string) []string {
	var out []string
	for _, q := range [][2]string{{"'", "'"}, {"\"", "\""}, {"‘", "’"}, {"`", "'"}} {
		rest := line
		for {
			i := strings.Index(rest, q[0])
			if i < 0 {
				break
			}
			rest = rest[i+len(q[0]):]
			j := strings.Index(rest, q[1])
			if j < 0 {
				break
			}
			if cand := rest[:j]; looksLikePath(cand) {
				out = append(out, cand)
			}
			rest = rest[j+len(q[1]):]
		}
	}
	fields := strings.Split(line, ":")
	for i, f := range fields {
		f = strings.TrimSpace(f)
		for _, prefix := range []string{"cannot create ", "can't create ", "open ", "cannot open ", "can't open "} {
			f = strings.TrimPrefix(f, prefix)
		}
		// The field before the error is the file: "bash: line 1: out: Permission denied".
		beforeError := i+1 < len(fields) && denialLine(fields[i+1]) && i > 0
		if (looksLikePath(f) || beforeError && f != "") && !strings.ContainsAny(f, " '\"") {
			out = append(out, f)
		}
	}
	return out
}

func looksLikePath(s string) bool {
	if s == "" || len(s) > 4096 || strings.ContainsAny(s, "\x00\n") {
		return false
	}
	return strings.HasPrefix(s, "/") || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") || strings.HasPrefix(s, "~/") ||
		(!strings.Contains(s, " ") && (strings.Contains(s, "/") || strings.Contains(s, ".")))
}

// writableBy reports whether policy p lets a command write path.
func writableBy(p contain.Policy, workspace, tempDir, path string) bool {
	switch p.Mode {
	case contain.ModeOff:
		return true
	case contain.ModeReadOnly:
		return slices.Contains(contain.DeviceFiles, path)
	}
	roots := append([]string{workspace, tempDir, "/dev/shm"}, p.Writable...)
	roots = append(roots, contain.DeviceFiles...)
	return underAny(path, roots)
}

// readableBy reports whether policy p lets a command read path.
func readableBy(p contain.Policy, workspace, tempDir, path string) bool {
	if p.Mode == contain.ModeOff || len(p.Readable) == 0 || writableBy(p, workspace, tempDir, path) {
		return true
	}
	return underAny(path, append(append([]string(nil), contain.DefaultReadable...), p.Readable...))
}

// underAny reports whether path is one of roots or inside one.
func underAny(path string, roots []string) bool {
	for _, r := range roots {
		if r != "" && under(path, filepath.Clean(r)) {
			return true
		}
	}
	return false
}

// userCan reports whether the host's user may access path (or, when it
// does not exist or is being removed, its directory) without the sandbox.
func userCan(path string, mode uint32) bool {
	if unix.Access(path, mode) == nil {
		return true
	}
	return mode == unix.W_OK && unix.Access(filepath.Dir(path), unix.W_OK) == nil
}

// deniedSignals finds the pids of kill's "(PID) - Operation not permitted"
// lines that the host's user may signal: the sandbox's scope stopped them.
func deniedSignals(output string) []string {
	var pids []string
	for _, line := range strings.Split(output, "\n") {
		i := strings.Index(line, "(")
		j := strings.Index(line, ") - Operation not permitted")
		if i < 0 || j <= i {
			continue
		}
		pid, err := strconv.Atoi(line[i+1 : j])
		if err != nil || pid <= 0 || syscall.Kill(pid, 0) != nil || slices.Contains(pids, strconv.Itoa(pid)) {
			continue
		}
		if pids = append(pids, strconv.Itoa(pid)); len(pids) == maxAttributed {
			break
		}
	}
	return pids
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// lastReport remembers what the session's last command ran with.
func (s *sessionSandbox) setLast(r contain.Report) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last = &r
}

// firstWarning reports true once per session.
func (s *sessionSandbox) firstWarning() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	first := !s.warned
	s.warned = true
	return first
}

// features probes, once per Tool, what the kernel offers (by running the
// supervisor with --probe).
func (t *Tool) features() (contain.Features, error) {
	t.probe.once.Do(func() {
		t.probe.features, t.probe.err = contain.Probe(t.run.supervisor)
		if t.run.noLandlock {
			t.probe.features.LandlockABI = 0
		}
		if t.probe.err == nil && !t.probe.features.PIDNamespace {
			t.run.kernel.refuseNamespaces() // commands don't ask for what the probe was refused
		}
	})
	f := t.probe.features
	f.PIDNamespace = f.PIDNamespace && t.run.kernel.namespaces()
	return f, t.probe.err
}

// probeResult is a Tool's probe of the kernel.
type probeResult struct {
	once     sync.Once
	features contain.Features
	err      error
}

// Sandbox implements engine.Sandboxer: what confines the commands of
// session s (nil: of sessions that set no policy of their own).
func (t *Tool) Sandbox(s *engine.Session) engine.Sandbox {
	p := t.sandbox
	if s != nil {
		p = t.sessionSandbox(s).policy(p)
	}
	return t.describe(p)
}

// Landlock ABI versions the policy depends on.
const (
	abiNetwork = 4 // TCP bind and connect
	abiScopes  = 6 // signals and abstract unix sockets
)

// describe says what of policy p this machine enforces.
func (t *Tool) describe(p contain.Policy) engine.Sandbox {
	p = p.Normalized()
	sb := engine.Sandbox{Mode: string(p.Mode), Required: p.Required, Network: string(p.Network), Tree: contain.TreeSubreaper}
	warn := func(format string, a ...any) {
		sb.Degraded = true
		sb.Warnings = append(sb.Warnings, fmt.Sprintf(format, a...))
	}
	if t.configErr != nil {
		warn("%v: no command runs until the configuration is fixed", t.configErr)
	}
	f, err := t.features()
	if err != nil {
		warn("%v; no command runs without it", err)
	}
	switch {
	case f.PIDNamespace && os.Getuid() != 0:
		sb.Processes = fmt.Sprintf("at most %d", p.MaxProcesses)
	case f.PIDNamespace:
		// Said here, not warned: the policy is in force.
		sb.Processes = "not limited (the host runs as root, which the kernel does not hold to RLIMIT_NPROC)"
	default:
		sb.Processes = "not limited (no user namespaces)"
	}
	if f.PIDNamespace {
		sb.Tree = contain.TreePIDNamespace
	} else if err == nil && contain.MetadataChecked() {
		warn("no unprivileged user namespaces: a command's processes are kept by a subreaper and killed by walking /proc, not by the kernel at once, and not limited in number (allow them: sysctl kernel.unprivileged_userns_clone=1, or kernel.apparmor_restrict_unprivileged_userns=0)")
	} else if err == nil {
		warn("no unprivileged user namespaces: a command's processes are kept by a subreaper and killed by walking /proc, not by the kernel at once, and not limited in number, and it can change the mode, owner and times of your files outside the writable paths (chmod, chown, touch: Landlock does not cover them; read-only mounts need a user namespace, and this architecture has no seccomp filter to check them) (allow them: sysctl kernel.unprivileged_userns_clone=1, or kernel.apparmor_restrict_unprivileged_userns=0)")
	}
	switch {
	case p.Mode == contain.ModeOff:
		sb.Filesystem, sb.Signals = "off", "not scoped"
		warn("sandbox off (bash.sandbox.mode is \"off\"): commands can write anywhere you can and signal any of your processes")
	case f.LandlockABI == 0:
		sb.Filesystem, sb.Signals = "none (no Landlock)", "not scoped"
		warn("this kernel has no Landlock (Linux 5.13+ with landlock in the lsm= boot list): commands can write anywhere you can and signal any of your processes")
	default:
		sb.Filesystem = fmt.Sprintf("landlock ABI %d", f.LandlockABI)
		// chmod, chown, utime outside the writable paths
		if f.PIDNamespace {
			sb.Filesystem += " and read-only mounts"
		} else if contain.MetadataChecked() {
			sb.Filesystem += " and metadata checked by the supervisor"
		}
		sb.Signals = "scoped"
		if f.LandlockABI < abiScopes {
			sb.Signals = fmt.Sprintf("not scoped (Landlock ABI %d, needs %d: Linux 6.12+)", f.LandlockABI, abiScopes)
			warn("commands can signal processes outside their own (the host, other sessions' commands): Landlock ABI %d lacks signal scoping (Linux 6.12+)", f.LandlockABI)
		}
	}
	if p.Network == contain.NetworkDeny && p.Mode != contain.ModeOff {
		switch {
		case f.PIDNamespace:
			sb.Network = "deny (network namespace)"
		case f.LandlockABI >= abiNetwork:
			sb.Network = "deny (TCP by Landlock)"
			if !contain.UnixSocketsRefused() {
				warn("network deny covers TCP only without user namespaces: UDP and other protocols still work")
			}
		default:
			sb.Network = "allow (deny not enforced)"
			warn("network deny is not enforced: it needs user namespaces or Landlock ABI %d", abiNetwork)
		}
		if contain.UnixSocketsRefused() {
			sb.Network = strings.TrimSuffix(sb.Network, ")") + "; other sockets refused by seccomp)"
		} else {
			warn("network deny leaves named unix sockets (a docker.sock, the host's sockets) and vsock reachable: no seccomp filter for this architecture")
		}
	}
	return sb
}
