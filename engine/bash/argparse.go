package bash

// Argument parsing of the commands the gate judges: GNU-style options and
// operands, wrappers' options skipped, assignments (NAME=value) told apart.

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// opts is a command's arguments split GNU-style. A command has a few
// options: slices, searched in order, cost less than maps (the gate splits
// the words of most commands several times).
type opts struct {
	flags    []string   // "-r" for each letter of a short cluster, "--force": each once
	values   []optValue // option values, in the order given
	operands []arg
}

type optValue struct {
	name  string
	value arg
}

// shortFlags are the names of one-letter options, "-" and the byte.
var shortFlags = func() (names [256]string) {
	for b := range names {
		names[b] = string([]byte{'-', byte(b)})
	}
	return names
}()

// parseOpts splits args[1:]; valued lists the options that take a value
// ("-c --command"). Options may follow operands; "--" ends them.
func parseOpts(args []arg, valued string) opts {
	var o opts
	for i := 1; i < len(args); i++ {
		a := args[i]
		t := a.text
		switch {
		case t == "--":
			o.operands = append(o.operands, args[i+1:]...)
			return o
		case len(t) < 2 || t[0] != '-' || !a.static && strings.HasPrefix(t, "-$"):
			o.addOperand(args, i)
		case strings.HasPrefix(t, "--"):
			name, val, hasVal := strings.Cut(t, "=")
			o.addFlag(name)
			if hasVal {
				o.values = append(o.values, optValue{name, arg{text: val, static: a.static, subst: a.subst, word: a.word}})
			} else if hasWord(valued, name) && i+1 < len(args) {
				i++
				o.values = append(o.values, optValue{name, args[i]})
			}
		default:
			for k := 1; k < len(t); k++ {
				name := shortFlags[t[k]]
				o.addFlag(name)
				if hasWord(valued, name) {
					if k+1 < len(t) {
						o.values = append(o.values, optValue{name, arg{text: t[k+1:], static: a.static, subst: a.subst, word: a.word}})
					} else if i+1 < len(args) {
						i++
						o.values = append(o.values, optValue{name, args[i]})
					}
					break
				}
			}
		}
	}
	return o
}

// addOperand adds args[i] to the operands: while they are consecutive words
// they are args itself (capped: an append copies), not a copy.
func (o *opts) addOperand(args []arg, i int) {
	switch n := len(o.operands); {
	case n == 0:
		o.operands = args[i : i+1 : i+1]
	case &o.operands[n-1] == &args[i-1]:
		o.operands = args[i-n : i+1 : i+1]
	default:
		o.operands = append(o.operands, args[i])
	}
}

func (o *opts) addFlag(name string) {
	switch {
	case o.flags == nil:
		o.flags = append(make([]string, 0, 8), name) // one allocation for most commands' options
	case !o.has(name):
		o.flags = append(o.flags, name)
	}
}

func (o opts) has(names ...string) bool {
	for _, f := range o.flags {
		for _, n := range names {
			if f == n {
				return true
			}
		}
	}
	return false
}

// all are the values of the options names, name by name.
func (o opts) all(names ...string) []arg {
	var out []arg
	for _, n := range names {
		for _, v := range o.values {
			if v.name == n {
				out = append(out, v.value)
			}
		}
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
