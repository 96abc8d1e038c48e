package bash

import (
	"time"

	"github.com/interlock-dev/interlock/engine/bash/contain"
	"github.com/interlock-dev/interlock/engine/policy"
)

// Option configures a Tool.
type Option func(*toolConfig)

type toolConfig struct {
	timeout       time.Duration
	grace         time.Duration
	outputLimit   int
	projectFile   string
	shell         string
	supervisor    string
	sandbox       contain.Policy
	env           EnvFilter
	noNamespaces  bool          // tests: act as if user namespaces were refused
	noLandlock    bool          // tests: act as if the kernel had no Landlock
	startedGroup  func(pid int) // tests: every supervisor started
	policies      []*policy.File
	userPolicy    string
	projectPolicy bool
	trustFile     string
}

// WithTimeout sets how long a command may run when its call sets no
// timeout_ms. Default DefaultTimeout.
func WithTimeout(d time.Duration) Option { return func(c *toolConfig) { c.timeout = d } }

// WithGrace sets how long a command's processes get between SIGTERM and
// SIGKILL when it is stopped. Default DefaultGrace.
func WithGrace(d time.Duration) Option { return func(c *toolConfig) { c.grace = d } }

// WithOutputLimit sets how many bytes of output the result keeps (the first
// and last half); the model is told how much was cut. Default DefaultOutputLimit.
func WithOutputLimit(n int) Option { return func(c *toolConfig) { c.outputLimit = n } }

// WithProjectGrantsFile keeps project-scoped approvals in a JSON file, read
// now and rewritten on every change. Without it they last as long as the
// Tool. An engine with a store replaces it: they are kept in the store
// (Tool.UseGrantStore) and the file is neither read nor written.
func WithProjectGrantsFile(path string) Option { return func(c *toolConfig) { c.projectFile = path } }

// WithSupervisor sets the path of the interlock-run executable that
// supervises every command. Default: $INTERLOCK_RUN, else interlock-run
// in the directory of the executable or shared library holding this code
// (lib/ beside libinterlock.so).
func WithSupervisor(path string) Option { return func(c *toolConfig) { c.supervisor = path } }

// WithSandbox sets the sandbox policy of sessions that set none (see
// Tool.SetSandbox). Default: the zero Policy, workspace-write with network.
// An invalid policy makes every call fail with the reason; check it first
// with Policy.Validate.
func WithSandbox(p contain.Policy) Option { return func(c *toolConfig) { c.sandbox = p } }

// WithEnvFilter sets which of the host's environment variables commands
// see. Default: all but secrets (see EnvFilter).
func WithEnvFilter(f EnvFilter) Option { return func(c *toolConfig) { c.env = f } }
