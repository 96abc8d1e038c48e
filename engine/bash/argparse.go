package bash

// Argument parsing of the commands the gate judges: GNU-style options and
// operands, wrappers' options skipped, assignments (NAME=value) told apart.

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// opts is a command's arguments split GNU-style.
type opts struct {
	flags    map[string]bool  // "-r" for each letter of a short cluster, "--force"
	values   map[string][]arg // option values by option name
	operands []arg
}

// parseOpts splits args[1:]; valued lists the options that take a value
// ("-c --command"). Options may follow operands; "--" ends them.
func parseOpts(args []arg, valued string) opts {
	o := opts{flags: map[string]bool{}, values: map[string][]arg{}}
	for i := 1; i < len(args); i++ {
		a := args[i]
		t := a.text
		switch {
		case t == "--":
			o.operands = append(o.operands, args[i+1:]...)
			return o
		case len(t) < 2 || t[0] != '-' || !a.static && strings.HasPrefix(t, "-$"):
			o.operands = append(o.operands, a)
		case strings.HasPrefix(t, "--"):
			name, val, hasVal := strings.Cut(t, "=")
			o.flags[name] = true
			if hasVal {
				o.values[name] = append(o.values[name], arg{text: val, static: a.static, subst: a.subst, word: a.word})
			} else if hasWord(valued, name) && i+1 < len(args) {
				i++
				o.values[name] = append(o.values[name], args[i])
			}
		default:
			for k := 1; k < len(t); k++ {
				name := "-" + t[k:k+1]
				o.flags[name] = true
				if hasWord(valued, name) {
					if k+1 < len(t) {
						o.values[name] = append(o.values[name], arg{text: t[k+1:], static: a.static, subst: a.subst, word: a.word})
					} else if i+1 < len(args) {
						i++
						o.values[name] = append(o.values[name], args[i])
					}
					break
				}
			}
		}
	}
	return o
}

func (o opts) has(names ...string) bool {
	for _, n := range names {
		if o.flags[n] {
			return true
		}
	}
	return false
}

func (o opts) all(names ...string) []arg {
	var out []arg
	for _, n := range names {
		out = append(out, o.values[n]...)
	}
	return out
}

func (o opts) operand(i int) string {
	if i < len(o.operands) {
		return o.operands[i].text
	}
	return ""
}

// hasWord reports whether w is one of the space-separated words of list.
func hasWord(list, w string) bool {
	for list != "" {
		var f string
		f, list, _ = strings.Cut(list, " ")
		if f == w {
			return true
		}
	}
	return false
}

// skipOpts returns the index of the first operand of args, where options
// stop (wrappers: sudo -u bob rm ...).
func skipOpts(args []arg, valued string) int {
	i := 1
	for i < len(args) {
		t := args[i].text
		if t == "--" {
			return i + 1
		}
		if len(t) < 2 || t[0] != '-' {
			return i
		}
		i++
		if strings.HasPrefix(t, "--") {
			if !strings.Contains(t, "=") && hasWord(valued, t) {
				i++
			}
			continue
		}
		for k := 1; k < len(t); k++ {
			if hasWord(valued, "-"+t[k:k+1]) {
				if k == len(t)-1 {
					i++
				}
				break
			}
		}
	}
	return min(i, len(args))
}

func skipAssigns(args []arg, i int) int {
	for i < len(args) && isAssignWord(args[i].text) {
		i++
	}
	return i
}

func isAssignWord(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	return ok && syntax.ValidName(name)
}

func hasOperand(args []arg, w string) bool {
	for _, a := range args[1:] {
		if a.text == w {
			return true
		}
	}
	return false
}
