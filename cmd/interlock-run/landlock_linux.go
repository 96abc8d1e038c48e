package main

import (
	"fmt"
	"github.com/interlock-dev/interlock/engine/bash/contain"
	"os"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// landlockABI is the kernel's Landlock ABI version, 0 without Landlock.
func landlockABI() int {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return v
}

// probeSelf is what interlock-run --probe reports: started as PID 1 of a
// new namespace, it knows namespaces work.
func probeSelf() contain.Features {
	return contain.Features{LandlockABI: landlockABI(), PIDNamespace: os.Getpid() == 1}
}

// Landlock ABI versions the policy depends on.
const (
	abiNetwork = 4 // TCP bind and connect
	abiScopes  = 6 // signals and abstract unix sockets
)

// restrict applies req's policy to this process (and so to the command it
// starts) and says what is in force. It fails only when the policy is
// required and the kernel cannot enforce it.
func restrict(req contain.Request) (contain.Enforced, error) {
	p := req.Sandbox.Normalized()
	e := contain.Enforced{Mode: p.Mode, Network: string(contain.NetworkAllow)}
	if p.Mode == contain.ModeOff {
		return e, nil
	}
	abi := landlockABI()
	if req.NoLandlock {
		abi = 0
	}
	if p.Required && abi < abiScopes {
		return e, fmt.Errorf("sandbox required (bash.sandbox.required) but this kernel has Landlock ABI %d and needs %d or newer (Linux 6.12+, with landlock in the lsm= boot list): the command was not run", abi, abiScopes)
	}
	if p.Network == contain.NetworkDeny {
		e.Network = "allow (deny not enforced: needs a network namespace or Landlock ABI 4)"
		if os.Getpid() == 1 {
			e.Network = "deny (namespace)" // the tool started us in a new network namespace
		}
	}
	if abi == 0 {
		return e, nil
	}
	cfg := landlock.V11
	if p.Network != contain.NetworkDeny {
		cfg.HandledAccessNet = 0
	}
	var rules []landlock.Rule
	readable := []string{"/"}
	if len(p.Readable) > 0 {
		readable = append(append([]string(nil), contain.DefaultReadable...), p.Readable...)
	}
	rules = append(rules, landlock.RODirs(readable...).IgnoreIfMissing())
	rules = append(rules, landlock.RWFiles(contain.DeviceFiles...).IgnoreIfMissing())
	if p.Mode == contain.ModeWorkspaceWrite {
		writable := append([]string{req.Workspace, req.TempDir, "/dev/shm"}, p.Writable...)
		var dirs, files []string
		for _, w := range writable {
			if fi, err := os.Stat(w); err == nil && fi.IsDir() {
				dirs = append(dirs, w)
			} else if err == nil {
				files = append(files, w)
			}
		}
		rules = append(rules, landlock.RWDirs(dirs...).WithResolveUnix(), landlock.RWFiles(files...))
	}
	if err := cfg.BestEffort().Restrict(rules...); err != nil {
		if p.Required {
			return e, fmt.Errorf("sandbox required (bash.sandbox.required) but Landlock failed: %v: the command was not run", err)
		}
		return e, nil
	}
	e.LandlockABI = abi
	e.Filesystem = true
	e.Signals = abi >= abiScopes
	if p.Network == contain.NetworkDeny && abi >= abiNetwork && e.Network != "deny (namespace)" {
		e.Network = "deny (tcp)"
	}
	return e, nil
}
