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
