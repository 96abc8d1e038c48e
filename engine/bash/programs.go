package bash

import "strings"

// What the gate knows about programs: a program missing from every table,
// in a position where it runs, asks ("program not known"). The tables are
// data, split by domain (programs_*.go); what a program's options and
// operands do is judged by the code of its domain.

// spec says how much of a program is known to be harmless.
type spec struct {
	// quiet lists the subcommands (one or more words: "state list") that
	// only read, or change nothing outside the project. nil: the program
	// has no subcommands, and only its own judgment (if any) can stop it.
	// A subcommand not listed asks, in category cat.
	quiet []string
	// valued lists the options before the subcommand that take a value
	// ("-n --namespace"), so that their values are not taken for it.
	valued string
	// cat is the category of a subcommand not in quiet; catChange if "".
	cat string
	// prefixes lists prefixes of quiet subcommands ("describe-", "list-").
	prefixes []string
}

// plain is a program without subcommands whose danger, if any, its own
// judgment sees (rm, cp, grep...).
var plain = spec{}

// known merges the domain tables. A name in two tables is a bug, caught by
// TestProgramTablesDisjoint.
var known = mergeTables(filePrograms, textPrograms, shellPrograms, gitPrograms, networkPrograms,
	packagePrograms, devPrograms, cloudPrograms, databasePrograms, systemPrograms)

func mergeTables(tables ...map[string]spec) map[string]spec {
	out := map[string]spec{}
	for _, t := range tables {
		for name, s := range t {
			out[name] = s
		}
	}
	return out
}

// subcommand returns the words of args after the program name and its
// options (skipping the values of valued options), up to n of them.
func subcommand(args []arg, valued string, n int) []string {
	var out []string
	for i := 1; i < len(args) && len(out) < n; i++ {
		t := args[i].text
		switch {
		case t == "--":
			continue
		case strings.HasPrefix(t, "-") && len(t) > 1:
			if !strings.Contains(t, "=") && hasWord(valued, t) {
				i++
			}
		default:
			out = append(out, t)
		}
	}
	return out
}

// quietSub reports whether the subcommand in args is listed as quiet.
// A program run with no subcommand at all prints its help: quiet.
func (s spec) quietSub(args []arg) (sub string, ok bool) {
	words := subcommand(args, s.valued, 3)
	if len(words) == 0 {
		return "", true
	}
	for _, q := range s.quiet {
		n := strings.Count(q, " ") + 1
		if n <= len(words) && strings.Join(words[:n], " ") == q {
			return q, true
		}
		if q == "*" {
			return words[0], true
		}
	}
	for _, p := range s.prefixes {
		for _, w := range words {
			if strings.HasPrefix(w, p) {
				return w, true
			}
		}
	}
	return strings.Join(words[:min(2, len(words))], " "), false
}

// knownProgram asks about a program no table knows, and about a
// subcommand its table does not list as quiet.
func (x *command) knownProgram() {
	if x.l.funcs[x.name] {
		return // a function of the line: its body was judged where it was defined
	}
	s, ok := known[x.name]
	if !ok {
		if strings.HasPrefix(x.name, "python") || strings.HasPrefix(x.name, "mkfs") || strings.HasPrefix(x.name, "fsck") {
			return // judged by the interpreter and disk code
		}
		x.flag(catUnknown)
		return
	}
	if s.quiet == nil && s.prefixes == nil {
		return
	}
	if sub, ok := s.quietSub(x.args); !ok && !(isInterpreter(x.name) && strings.ContainsAny(sub, "./")) {
		cat := s.cat
		if cat == "" {
			cat = catChange
		}
		x.flag(cat)
	}
}
