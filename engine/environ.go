package engine

import "os"

// Environment is where the engine reads the process's environment, each
// time it needs it: a provider's API key at each request, the variables a
// tool reads by name, what the commands and browsers it starts inherit. A
// nil field means the Go runtime's (os.LookupEnv, os.Environ).
//
// The Go runtime's copy is right for a Go program, which changes its
// environment with os.Setenv. A Go runtime loaded as a shared library into
// another program (the Node addon) copies the environment once, when it
// loads, and never sees the host's later setenv (process.env.X = … in
// Node, dotenv.config()): such a host passes functions that read the C
// library's environment (getenv, environ) instead.
type Environment struct {
	// LookupEnv returns the value of the variable named key and whether
	// it is set.
	LookupEnv func(key string) (string, bool)
	// Environ returns the whole environment as "KEY=value" entries.
	Environ func() []string
}

// defaultEnvironment is the Go runtime's environment.
var defaultEnvironment = Environment{LookupEnv: os.LookupEnv, Environ: os.Environ}
