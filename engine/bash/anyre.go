package bash

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// anyOf is a regular expression that is an alternation of many patterns,
// matched one alternative at a time. It matches exactly what the whole
// expression matches, much faster: Go runs a large alternation as an NFA
// over every byte (50-100 µs for a 130-byte script on this machine). Each
// alternative is small, and is only run on text holding a literal it
// needs (looked for with a substring search).
type anyOf struct {
	whole *regexp.Regexp
	alts  []alternative
}

type alternative struct {
	re *regexp.Regexp
	// needs is a literal every match contains ("" none known); fold: in
	// any case (it is lower case then).
	needs string
	fold  bool
}

// mustAnyOf compiles pattern and its top-level alternatives, each with the
// flags ((?i)...) set before it at the top level.
func mustAnyOf(pattern string) anyOf {
	a := anyOf{whole: regexp.MustCompile(pattern)}
	flags := ""
	for _, alt := range topAlternatives(pattern) {
		for strings.HasPrefix(alt, "(?") {
			end := strings.IndexByte(alt, ')')
			if end < 0 || strings.Contains(alt[:end], ":") {
				break
			}
			flags += alt[:end+1]
			alt = alt[end+1:]
		}
		x := alternative{re: regexp.MustCompile(flags + alt)}
		x.needs, x.fold = neededLiteral(flags + alt)
		a.alts = append(a.alts, x)
	}
	return a
}

// neededLiteral is the longest literal that is a part of every match of
// pattern, and whether it is matched in any case.
func neededLiteral(pattern string) (string, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	re = re.Simplify()
	parts := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		parts = re.Sub
	}
	best, fold := "", false
	for _, p := range parts {
		if p.Op == syntax.OpLiteral && len(string(p.Rune)) > len(best) {
			best, fold = string(p.Rune), p.Flags&syntax.FoldCase != 0
		}
	}
	if fold {
		for _, r := range best {
			if r >= utf8.RuneSelf {
				return "", false
			}
		}
		best = strings.ToLower(best)
	}
	return best, fold
}

// topAlternatives splits a pattern at the | outside groups and classes.
func topAlternatives(p string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '[': // to the end of the class; a ] first in it is a literal
			j := i + 1
			if j < len(p) && p[j] == '^' {
				j++
			}
			if j < len(p) && p[j] == ']' {
				j++
			}
			for j < len(p) && p[j] != ']' {
				if p[j] == '\\' {
					j++
				}
				j++
			}
			i = j
		case '(':
			depth++
		case ')':
			depth--
		case '|':
			if depth == 0 {
				out = append(out, p[start:i])
				start = i + 1
			}
		}
	}
	return append(out, p[start:])
}

// MatchString reports whether s contains a match of the pattern.
func (a anyOf) MatchString(s string) bool {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false // case folding beyond ASCII (ſ is s): no shortcut
			break
		}
	}
	lower := ""
	for _, x := range a.alts {
		if ascii && x.needs != "" {
			if x.fold {
				if lower == "" {
					lower = strings.ToLower(s)
				}
				if !strings.Contains(lower, x.needs) {
					continue
				}
			} else if !strings.Contains(s, x.needs) {
				continue
			}
		}
		if x.re.MatchString(s) {
			return true
		}
	}
	return false
}

// String is the pattern.
func (a anyOf) String() string { return a.whole.String() }
