package contain

// Request is what the supervisor runs: the first argument of interlock-run,
// as JSON. The working directory and environment are the supervisor's own.
type Request struct {
	Shell   string `json:"shell"`   // "bash"
	Command string `json:"command"` // run with Shell -c
	GraceMS int64  `json:"grace_ms"`
	// Sandbox is the policy; Workspace is the directory workspace-write
	// mode makes writable (the working directory), TempDir the temp dir.
	Sandbox   Policy `json:"sandbox"`
	Workspace string `json:"workspace"`
	TempDir   string `json:"temp_dir"`
	// NoLandlock makes the supervisor act as if the kernel had no Landlock:
	// for tests of the degraded paths.
	NoLandlock bool `json:"no_landlock,omitempty"`
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
	Network     string `json:"network"`      // "allow", "deny (namespace)", "deny (tcp)", "allow (deny not enforced)"
	Signals     bool   `json:"signals"`      // signals and abstract sockets scoped to the command
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
