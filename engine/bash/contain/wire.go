package contain

import "strconv"

// Request is what the supervisor runs, passed to interlock-run as its
// arguments (see Request.args). The working directory and environment are
// the supervisor's own.
type Request struct {
	Shell   string // "bash"
	Command string // run with Shell -c
	GraceMS int64
	// Sandbox is the policy; Workspace is the directory workspace-write
	// mode makes writable (the working directory), TempDir the temp dir.
	Sandbox   Policy
	Workspace string
	TempDir   string
	// NoLandlock makes the supervisor act as if the kernel had no Landlock:
	// for tests of the degraded paths.
	NoLandlock bool
}

// args are interlock-run's arguments for r: the policy resolved to the
// paths the command may read and write, so that the supervisor only
// applies them. namespaces asks for new user and PID namespaces; deny is
// the seccomp filter of a command whose network is denied (see
// networkDenyFilter), metadata the one that hands metadata changes to the
// supervisor without a PID namespace (see metadataFilter), "" for none.
func (r Request) args(namespaces bool, deny, metadata string) []string {
	p := r.Sandbox.Normalized()
	args := []string{"--grace-ms", strconv.FormatInt(r.GraceMS, 10), "--mode", string(p.Mode), "--network", string(p.Network), "--max-procs", strconv.Itoa(p.MaxProcesses)}
	if namespaces {
		args = append(args, "--ns")
		if p.Network == NetworkDeny && p.Mode != ModeOff {
			args = append(args, "--net-ns")
		}
	}
	if p.Required {
		args = append(args, "--required")
	}
	if r.NoLandlock {
		args = append(args, "--no-landlock")
	}
	if p.Network == NetworkDeny && p.Mode != ModeOff && deny != "" {
		args = append(args, "--seccomp", deny)
	}
	if p.Mode != ModeOff && metadata != "" {
		args = append(args, "--metadata", metadata)
	}
	readable := []string{"/"}
	if len(p.Readable) > 0 {
		readable = append(append([]string(nil), DefaultReadable...), p.Readable...)
	}
	writable := DeviceFiles
	if p.Mode == ModeWorkspaceWrite {
		writable = append(append([]string{r.Workspace, r.TempDir, "/dev/shm"}, p.Writable...), DeviceFiles...)
	}
	if p.Mode != ModeOff {
		for _, path := range readable {
			args = append(args, "--read", path)
		}
		for _, path := range writable {
			if path != "" {
				args = append(args, "--write", path)
			}
		}
	}
	return append(args, "--", r.Shell, r.Command)
}

// Report is what the supervisor says once the command's tree is gone.
type Report struct {
	ExitCode int    `json:"exit_code"`        // -1 when the shell was killed by a signal
	Signal   string `json:"signal,omitempty"` // "killed", "terminated" when ExitCode is -1
	Stopped  bool   `json:"stopped,omitempty"`
	// Tree is how the tree was kept: TreePIDNamespace or TreeSubreaper.
	Tree string `json:"tree"`
	// Sandbox is what was enforced (see Enforced).
	Sandbox Enforced `json:"sandbox"`
	// NamespacesRefused is true when namespaces were asked for but the
	// kernel refused them (the tree was kept by a subreaper instead).
	NamespacesRefused bool `json:"namespaces_refused,omitempty"`
	// Error is why the command did not start (it never ran).
	Error string `json:"error,omitempty"`
}

// How a command's tree is kept.
const (
	TreePIDNamespace = "pid-namespace"
	TreeSubreaper    = "subreaper"
)

// Enforced is the sandbox a command actually ran with.
type Enforced struct {
	Mode        Mode   `json:"mode"`
	LandlockABI int    `json:"landlock_abi"` // 0: none applied
	Filesystem  bool   `json:"filesystem"`   // writes limited by Landlock
	Network     string `json:"network"`      // "allow", "deny (namespace, other sockets refused)", "deny (tcp, other sockets refused)", "allow (deny not enforced)"
	Signals     bool   `json:"signals"`      // signals and abstract sockets scoped to the command
	// ReadOnlyMounts: the mode, owner, times and extended attributes of
	// files outside the writable paths cannot change (read-only mounts in
	// the command's mount namespace; Landlock does not cover them).
	ReadOnlyMounts bool `json:"read_only_mounts,omitempty"`
	// MetadataChecked: the same without a mount namespace: the supervisor
	// makes those changes for the command, inside the writable
	// directories only (a seccomp filter hands them to it).
	MetadataChecked bool `json:"metadata_checked,omitempty"`
	// MaxProcesses is the limit of the tree's processes and threads in
	// force; 0: none (no user namespace, or a host run as root).
	MaxProcesses int `json:"max_processes,omitempty"`
}

// Control messages, one byte each, from the tool to the supervisor.
const (
	MsgStop = 's' // stop the command: SIGTERM, SIGKILL after the grace
)

// ControlFD is the supervisor's control socket: the tool's end of it stays
// in the host; its EOF means the host is gone.
const ControlFD = 3

// Features are what the kernel offers for containing commands: what
// `interlock-run --probe` prints.
type Features struct {
	LandlockABI  int  `json:"landlock_abi"`  // 0: no Landlock
	PIDNamespace bool `json:"pid_namespace"` // unprivileged user + PID namespaces work
}
