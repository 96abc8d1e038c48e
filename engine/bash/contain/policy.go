package contain

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Mode is what a sandboxed command may write.
type Mode string

// Sandbox modes.
const (
	// ModeWorkspaceWrite allows writes in the working directory, the
	// system temp dir and Policy.Writable; everything else is read-only.
	ModeWorkspaceWrite Mode = "workspace-write"
	// ModeReadOnly allows no writes but to /dev/null and similar devices.
	ModeReadOnly Mode = "read-only"
	// ModeOff applies no file system, network or signal restrictions.
	ModeOff Mode = "off"
)

// Network is whether a sandboxed command may open network connections.
type Network string

// Network policies.
const (
	NetworkAllow Network = "allow"
	NetworkDeny  Network = "deny"
)

// ErrInvalidPolicy is wrapped by every error of Policy.Validate.
var ErrInvalidPolicy = errors.New("invalid sandbox policy")

// Policy is what a contained command may do. The zero value is the default:
// workspace-write, network allowed, reads everywhere.
type Policy struct {
	Mode Mode `json:"mode,omitempty"` // "" means workspace-write
	// Writable are extra absolute paths (directories or files) the command
	// may write in workspace-write mode.
	Writable []string `json:"writable,omitempty"`
	// Readable, when not empty, limits reads to these absolute paths plus
	// the system directories a shell and build tools need (DefaultReadable).
	// Empty means the whole file system is readable.
	Readable []string `json:"readable,omitempty"`
	Network  Network  `json:"network,omitempty"` // "" means allow
	// Required refuses to run a command when the kernel cannot enforce the
	// policy (no Landlock, or an ABI without signal scoping).
	Required bool `json:"required,omitempty"`
	// MaxProcesses is the most processes and threads a command's tree may
	// run at once (RLIMIT_NPROC in the command's user namespace: a fork
	// bomb gets EAGAIN instead of taking the machine); 0 means
	// DefaultMaxProcesses. Not in force without user namespaces (the limit
	// would count all of the user's processes) nor for a host run as root
	// (the kernel exempts it).
	MaxProcesses int `json:"maxProcesses,omitempty"`
}

// DefaultMaxProcesses is a command tree's limit of processes and threads.
const DefaultMaxProcesses = 4096

// maxMaxProcesses is the kernel's PID_MAX_LIMIT.
const maxMaxProcesses = 1 << 22

// DefaultReadable are the paths that stay readable (and executable) when
// Policy.Readable limits reads: what a shell, compilers and interpreters
// need to start.
var DefaultReadable = []string{"/bin", "/sbin", "/usr", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/proc", "/sys", "/dev", "/run", "/var/lib", "/nix"}

// MaxPolicyPaths is the most writable (and readable) paths a Policy may
// list: the supervisor takes at most 256 of each, with the system's own.
const MaxPolicyPaths = 200

// DeviceFiles are writable in every sandboxed mode: shells and tools
// redirect to them.
var DeviceFiles = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"}

// Normalized returns p with the defaults filled in.
func (p Policy) Normalized() Policy {
	if p.Mode == "" {
		p.Mode = ModeWorkspaceWrite
	}
	if p.Network == "" {
		p.Network = NetworkAllow
	}
	if p.MaxProcesses == 0 {
		p.MaxProcesses = DefaultMaxProcesses
	}
	return p
}

// Validate checks p; field prefixes the field names in its errors
// ("bash.sandbox"). Writable and readable paths must be absolute and exist.
func (p Policy) Validate(field string) error {
	switch p.Mode {
	case "", ModeWorkspaceWrite, ModeReadOnly, ModeOff:
	default:
		return fmt.Errorf("%w: %s.mode is %q: use %q, %q or %q", ErrInvalidPolicy, field, p.Mode, ModeWorkspaceWrite, ModeReadOnly, ModeOff)
	}
	switch p.Network {
	case "", NetworkAllow, NetworkDeny:
	default:
		return fmt.Errorf("%w: %s.network is %q: use %q or %q", ErrInvalidPolicy, field, p.Network, NetworkAllow, NetworkDeny)
	}
	if p.MaxProcesses < 0 || p.MaxProcesses > maxMaxProcesses {
		return fmt.Errorf("%w: %s.maxProcesses is %d: use 1 to %d (0 means %d)", ErrInvalidPolicy, field, p.MaxProcesses, maxMaxProcesses, DefaultMaxProcesses)
	}
	if p.Required && p.Mode == ModeOff {
		return fmt.Errorf("%w: %s.required is true but %s.mode is %q: a sandbox that is off cannot be required; drop one of them", ErrInvalidPolicy, field, field, p.Mode)
	}
	for name, paths := range map[string][]string{"writable": p.Writable, "readable": p.Readable} {
		if len(paths) > MaxPolicyPaths {
			return fmt.Errorf("%w: %s.%s has %d paths; at most %d: list parent directories instead", ErrInvalidPolicy, field, name, len(paths), MaxPolicyPaths)
		}
		for i, path := range paths {
			if !filepath.IsAbs(path) {
				return fmt.Errorf("%w: %s.%s[%d] is %q: use an absolute path", ErrInvalidPolicy, field, name, i, path)
			}
			if _, err := os.Stat(path); err != nil {
				return fmt.Errorf("%w: %s.%s[%d] is %q: %v: create it or remove it from the list", ErrInvalidPolicy, field, name, i, path, err)
			}
		}
	}
	return nil
}
