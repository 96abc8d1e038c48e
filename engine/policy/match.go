package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
)

// glob is a compiled glob: the literal text every match of its regexp
// starts and ends with is compared first, so that most words (which match
// no rule) are turned down without running the regexp.
type glob struct {
	re             *regexp.Regexp
	prefix, suffix string
}

func (g *glob) match(s string) bool {
	return strings.HasPrefix(s, g.prefix) && strings.HasSuffix(s, g.suffix) && g.re.MatchString(s)
}

// compileGlob compiles a glob: * and ? do not cross "/" in paths (they do
// in hosts and values), ** crosses directories, and dir/** also matches
// dir itself.
func compileGlob(g string, path bool) (*glob, error) {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(g); i++ {
		switch c := g[i]; {
		case c == '*' && i+1 < len(g) && g[i+1] == '*':
			i++
			if path && i+1 < len(g) && g[i+1] == '/' {
				i++
				b.WriteString("(?:.*/)?") // a/**/b: b in a or below
			} else if path && b.Len() > 1 && strings.HasSuffix(g[:i-1], "/") {
				s := b.String()
				b.Reset()
				b.WriteString(strings.TrimSuffix(s, "/") + "(?:/.*)?") // dir/**: dir and all below
			} else {
				b.WriteString(".*")
			}
		case c == '*':
			if path {
				b.WriteString("[^/]*")
			} else {
				b.WriteString(".*")
			}
		case c == '?':
			if path {
				b.WriteString("[^/]")
			} else {
				b.WriteString(".")
			}
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, err
	}
	c := &glob{re: re}
	c.prefix, _ = re.LiteralPrefix()
	// The suffix: a literal just before the end in the concatenation the
	// regexp is (^...literal$).
	if t, err := syntax.Parse(b.String(), syntax.Perl); err == nil {
		if t = t.Simplify(); t.Op == syntax.OpConcat && len(t.Sub) >= 2 && t.Sub[len(t.Sub)-1].Op == syntax.OpEndText {
			if lit := t.Sub[len(t.Sub)-2]; lit.Op == syntax.OpLiteral && lit.Flags&syntax.FoldCase == 0 {
				c.suffix = string(lit.Rune)
			}
		}
	}
	return c, nil
}

// Matches reports whether the rule covers the simple command c. Every
// field the rule sets must hold. Paths and hosts are matched in the safe
// direction: an allow rule needs every operand (host) to match, and a
// path only known when the command runs matches none; an ask or deny
// rule needs one, and an unknown path may be any.
func (r *Rule) Matches(c Command) bool {
	if len(r.programs) > 0 && !slices.Contains(r.programs, c.Program) {
		return false
	}
	rest := c.Operands
	if len(r.subs) > 0 {
		n := -1
		for _, s := range r.subs {
			if len(s) <= len(c.Operands) && wordsEqual(s, c.Operands[:len(s)]) {
				n = len(s)
				break
			}
		}
		if n < 0 {
			return false
		}
		rest = c.Operands[n:]
	}
	if len(r.options) > 0 && !slices.ContainsFunc(r.options, func(o string) bool { return slices.Contains(c.Options, o) }) {
		return false
	}
	allow := r.Decision == Allow
	if len(r.paths) > 0 {
		if len(rest) == 0 {
			return false
		}
		all, anyOne := true, false
		for _, w := range rest {
			ok := w.Path != "" && matchAny(r.paths, w.Path)
			if w.Path == "" && !allow {
				ok = true
			}
			all = all && ok
			anyOne = anyOne || ok
		}
		if allow && !all || !allow && !anyOne {
			return false
		}
	}
	if len(r.hosts) > 0 {
		if len(c.Hosts) == 0 {
			return false
		}
		all, anyOne := true, false
		for _, h := range c.Hosts {
			ok := matchAny(r.hosts, strings.ToLower(h))
			all = all && ok
			anyOne = anyOne || ok
		}
		if allow && !all || !allow && !anyOne {
			return false
		}
	}
	if len(r.env) > 0 && !slices.ContainsFunc(r.env, func(m envMatch) bool {
		return slices.ContainsFunc(c.Env, func(kv string) bool {
			name, val, _ := strings.Cut(kv, "=")
			return name == m.name && (m.value == nil || m.value.match(val))
		})
	}) {
		return false
	}
	return true
}

func wordsEqual(s []string, ws []Word) bool {
	for i := range s {
		if s[i] != ws[i].Text {
			return false
		}
	}
	return true
}

func matchAny(globs []*glob, s string) bool {
	for _, g := range globs {
		if g.match(s) {
			return true
		}
	}
	return false
}

func hashHex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
