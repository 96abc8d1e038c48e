package bash

import (
	"fmt"
	"os"
	"strings"
	"sync"

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

// sandboxHint explains a failure the sandbox may have caused: which rule
// blocks what, and how to allow it. Landlock answers a denied write with
// EACCES ("Permission denied"), so any such failure gets the hint.
func sandboxHint(o outcome, p contain.Policy) string {
	p = p.Normalized()
	e := o.report.Sandbox
	if o.exitCode == 0 && !o.timedOut {
		return ""
	}
	var hints []string
	if e.Filesystem && containsAny(o.output, "Permission denied", "Read-only file system", "Operation not permitted") {
		switch p.Mode {
		case contain.ModeReadOnly:
			hints = append(hints, "the sandbox (mode read-only) allows no writes; set bash.sandbox.mode to \"workspace-write\" (or \"off\") to allow them")
		default:
			where := append([]string{o.workspace, "the temp dir " + os.TempDir()}, p.Writable...)
			hints = append(hints, fmt.Sprintf("the sandbox (mode workspace-write) allows writes only in %s; add the path to bash.sandbox.writable, or set bash.sandbox.mode to \"off\"", strings.Join(where, ", ")))
		}
		if e.Signals {
			hints = append(hints, "signals reach only the command's own processes")
		}
	}
	if p.Network == contain.NetworkDeny && strings.HasPrefix(e.Network, "deny") && containsAny(o.output, "Network is unreachable", "Could not resolve", "Temporary failure in name resolution", "Permission denied", "Connection refused") {
		hints = append(hints, "the sandbox denies network access (bash.sandbox.network is \"deny\"); set it to \"allow\" to allow it")
	}
	if len(hints) == 0 {
		return ""
	}
	return "[blocked by the sandbox? " + strings.Join(hints, "; ") + "]"
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
	if f.PIDNamespace {
		sb.Tree = contain.TreePIDNamespace
	} else if err == nil {
		warn("no unprivileged user namespaces: a command's processes are kept by a subreaper and killed by walking /proc, not by the kernel at once (allow them: sysctl kernel.unprivileged_userns_clone=1, or kernel.apparmor_restrict_unprivileged_userns=0)")
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
			sb.Network = "deny (TCP only, by Landlock)"
			warn("network deny covers TCP only without user namespaces: UDP and other protocols still work")
		default:
			sb.Network = "allow (deny not enforced)"
			warn("network deny is not enforced: it needs user namespaces or Landlock ABI %d", abiNetwork)
		}
	}
	return sb
}
