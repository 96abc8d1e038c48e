package engine

// Sandbox is what confines the commands a tool runs, as actually in force
// on this machine: never silently missing.
type Sandbox struct {
	Tool string `json:"tool"`
	// Mode is the policy's mode: "workspace-write", "read-only" or "off".
	Mode string `json:"mode"`
	// Filesystem is what limits writes: "landlock ABI 7 and read-only mounts"
	// (in a PID namespace), "landlock ABI 7 and metadata checked by the
	// supervisor" (without), "landlock ABI 7", "none (...)", "off".
	Filesystem string `json:"filesystem"`
	// Network is "allow", or how a deny is enforced ("deny (network
	// namespace; other sockets refused by seccomp)").
	Network string `json:"network"`
	// Signals is "scoped" when commands can signal only their own processes.
	Signals string `json:"signals"`
	// Tree is how a command's processes are kept: "pid-namespace" (killed
	// at once by the kernel) or "subreaper" (walked and killed).
	Tree string `json:"tree"`
	// Processes is the limit of a command's processes and threads: "at
	// most 4096", or "not limited (...)" saying why.
	Processes string `json:"processes"`
	// Required refuses to run commands when the sandbox is degraded.
	Required bool `json:"required"`
	// Degraded is true when something of the policy is not in force;
	// Warnings say what, and what to do.
	Degraded bool     `json:"degraded"`
	Warnings []string `json:"warnings,omitempty"`
}

// Sandboxer is implemented by tools that confine what they run. Sandbox
// reports what is in force for session s (nil: the tool's default). It
// must not call back into the engine but for s.Local.
type Sandboxer interface {
	Sandbox(s *Session) Sandbox
}

// Info describes an engine: its tools and what confines their commands.
type Info struct {
	Tools   []string  `json:"tools"`
	Sandbox []Sandbox `json:"sandbox"` // one per Sandboxer tool, by name
}
