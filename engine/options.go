package engine

import "time"

// Option configures an Engine.
type Option func(*Engine)

// WithProvider sets the default model provider for new sessions.
func WithProvider(p Provider) Option { return func(e *Engine) { e.provider = p } }

// WithTool registers a tool under name (what the model calls).
func WithTool(name string, t Tool) Option { return func(e *Engine) { e.tools.Register(name, t) } }

// WithBuiltinTools chooses which of the engine's built-in tools the model
// is offered: "ask" and "sleep", and the tools the other options register
// (WithTool). The others are unregistered, and sessions choose among these
// (SessionOptions.Tools). Tools registered later (Tools().Register) are
// offered too. Without it, every built-in tool; with no names, none. Open
// refuses a name that is not a built-in tool.
func WithBuiltinTools(names ...string) Option {
	return func(e *Engine) { e.chosenBuiltins = append([]string{}, names...) }
}

// WithStreamIdleTimeout sets how long a model stream may send nothing before
// the run is interrupted with reason timeout; waiting for the server to
// answer the request (its retries included) counts too. Zero disables it.
// Default 2 min.
func WithStreamIdleTimeout(d time.Duration) Option { return func(e *Engine) { e.idleTimeout = d } }

// WithDefaultPauseMode sets default_pause_mode for task loops (default false:
// continuous).
func WithDefaultPauseMode(on bool) Option { return func(e *Engine) { e.defaultPauseMode = on } }

// WithWorkDir sets the working directory of sessions created without one
// ("" means the process's).
func WithWorkDir(dir string) Option { return func(e *Engine) { e.workDir = dir } }

// WithStore keeps the engine's sessions in the SQLite file at path (created
// if missing; store.Memory keeps them in memory), so that they survive the
// process: see Open, which reports a store that cannot be opened.
func WithStore(path string) Option { return func(e *Engine) { e.storePath = path } }

// WithProviderLoader lets the engine make providers of type typ again from
// their stored description (StorableProvider), so that a session created
// with its own model comes back with it after a restart. Type "script" is
// built in; the openai package provides openai.Load for "openai".
func WithProviderLoader(typ string, load ProviderLoader) Option {
	return func(e *Engine) { e.loaders[typ] = load }
}

// WithEnvironment sets where the engine reads the process's environment.
// Default: the Go runtime's (os.LookupEnv, os.Environ).
func WithEnvironment(env Environment) Option {
	return func(e *Engine) {
		if env.LookupEnv != nil {
			e.environment.LookupEnv = env.LookupEnv
		}
		if env.Environ != nil {
			e.environment.Environ = env.Environ
		}
	}
}

// WithApprover sets the engine's approver (see SetApprover) with the
// default timeout.
func WithApprover(a Approver) Option { return func(e *Engine) { e.SetApprover(a, 0) } }
