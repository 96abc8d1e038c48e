package policy

import (
	"errors"
	"fmt"
)

// Decision is what a rule decides for a command.
type Decision string

// Decisions, from least to most restrictive.
const (
	Allow Decision = "allow" // run it without asking
	Ask   Decision = "ask"   // ask a person (or the approver) first
	Deny  Decision = "deny"  // never run it; the model gets a tool error
)

// stricter reports whether d restricts more than e ("" restricts least).
func (d Decision) stricter(e Decision) bool { return d.rank() > e.rank() }

func (d Decision) rank() int {
	switch d {
	case Allow:
		return 1
	case Ask:
		return 2
	case Deny:
		return 3
	}
	return 0
}

// Tier is where a rule comes from. A higher tier's decision stands over a
// lower one's, which may only make it stricter, and not even that when the
// higher rule is locked.
type Tier int

// Tiers, lowest first.
const (
	TierDefault Tier = iota // the gate's built-in judgment (no rule)
	TierProject             // the project's .interlock/policy.toml, once trusted
	TierUser                // the user's own file
	TierEngine              // the host's engine configuration
)

// String is the tier's name as files, audit and UIs show it.
func (t Tier) String() string {
	switch t {
	case TierProject:
		return "project"
	case TierUser:
		return "user"
	case TierEngine:
		return "engine"
	}
	return "default"
}

// Word is one operand of a command: a word that is not an option.
type Word struct {
	Text string // as the command will see it
	// Path is the word as a path: relative to the workspace ("build/out",
	// "." for the workspace itself) when inside it, else absolute. "" when
	// it is only known when the command runs.
	Path string
}

// Command is one simple command as the gate judged it.
type Command struct {
	Program  string   // base name of what runs: "git" for sudo /usr/bin/git
	Options  []string // options as given, short clusters split: -rf is -rf, -r, -f; --x=1 is --x
	Operands []Word   // words that are not options, in order; the subcommand first
	Hosts    []string // network targets: hosts of URLs, ssh and scp destinations
	Env      []string // NAME=value the command is given (prefix assignments, env NAME=value)
	Line     string   // the simple command as shown to people
}

// ErrInvalid is wrapped by every error about a policy file that cannot be
// used: malformed, not matching the schema, or failing its own examples.
var ErrInvalid = errors.New("invalid policy")

// ErrUntrusted is returned for a project file the user has not trusted,
// or that changed since.
var ErrUntrusted = errors.New("project policy not trusted")

// ErrChanged refuses to trust a project file whose content is not the
// one the person was shown (its hash differs).
var ErrChanged = errors.New("project policy changed since it was shown")

// fileError says what is wrong where: the file, the line and rule when
// known, and what to do.
func fileError(file string, line int, rule, what string) error {
	where := file
	if line > 0 {
		where = fmt.Sprintf("%s:%d", file, line)
	}
	if rule != "" {
		where += fmt.Sprintf(": rule %q", rule)
	}
	return fmt.Errorf("%w: %s: %s", ErrInvalid, where, what)
}
