package bash

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// arg is one word of a simple command as the classifier sees it: what it
// will be at run time when that is known statically, else its source text.
type arg struct {
	text   string       // the value if static; static parts plus the source of dynamic parts otherwise
	static bool         // no expansion at run time ($VAR, $(...), ...) other than ~
	glob   bool         // unquoted glob or brace characters: may become other words
	subst  bool         // contains $(...), `...` or <(...): output of a command
	word   *syntax.Word // nil for words made up by the classifier
}

// words converts parsed words, resolving variables the script assigned a
// single static value (CMD=rm; $CMD -rf /).
func (l *level) words(ws []*syntax.Word) []arg {
	out := make([]arg, 0, len(ws))
	for _, w := range ws {
		out = append(out, l.word(w))
	}
	return out
}

func (l *level) word(w *syntax.Word) arg {
	a := arg{static: true, word: w}
	if len(w.Parts) == 1 { // most words: their one part's text, not a copy
		switch p := w.Parts[0].(type) {
		case *syntax.Lit:
			a.glob, a.text = hasGlob(p.Value), unescape(p.Value)
			return a
		case *syntax.SglQuoted:
			if !p.Dollar {
				a.text = p.Value
				return a
			}
		}
	}
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if hasGlob(p.Value) {
				a.glob = true
			}
			b.WriteString(unescape(p.Value))
		case *syntax.SglQuoted:
			if p.Dollar {
				b.WriteString(ansiC(p.Value))
			} else {
				b.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if lit, ok := q.(*syntax.Lit); ok {
					b.WriteString(unescapeDouble(lit.Value))
					continue
				}
				l.dynamic(&a, &b, q, true)
			}
		default:
			l.dynamic(&a, &b, p, false)
		}
	}
	a.text = b.String()
	return a
}

// dynamic appends a part whose value is only known at run time, unless it is
// a variable the script set to one static value. Unquoted, such a value is
// split into words and globbed at run time: it is then no longer static
// (CMD="rm -rf"; $CMD / is not a command named "rm -rf").
func (l *level) dynamic(a *arg, b *strings.Builder, p syntax.WordPart, quoted bool) {
	if pe, ok := p.(*syntax.ParamExp); ok && plainParam(pe) {
		// With IFS set, an unquoted value splits where the script chose
		// (IFS=,; c=rm,-rf,/; $c): its words are not known.
		if v, ok := l.vars[pe.Param.Value]; ok && v.known && (quoted || !l.ifsChanged) {
			if !quoted && strings.ContainsAny(v.value, " \t\n*?[") {
				a.static = false
			}
			b.WriteString(v.value)
			return
		}
		a.static = false
		b.WriteString("$" + pe.Param.Value)
		return
	}
	a.static = false
	switch p.(type) {
	case *syntax.CmdSubst, *syntax.ProcSubst:
		a.subst = true
	}
	b.WriteString(l.source(p))
}

// plainParam reports whether pe is $NAME or ${NAME} with no operator.
func plainParam(pe *syntax.ParamExp) bool {
	return pe.Param != nil && pe.NestedParam == nil && pe.Index == nil && pe.Exp == nil && pe.Repl == nil &&
		pe.Slice == nil && !pe.Excl && !pe.Length && !pe.Width && !pe.IsSet && len(pe.Modifiers) == 0 && pe.Names == 0
}

// source is the source text of n in the script being checked.
func (l *level) source(n syntax.Node) string {
	start, end := n.Pos().Offset(), n.End().Offset()
	if start > end || end > uint(len(l.src)) {
		return "?"
	}
	return l.src[start:end]
}

// hasGlob reports unquoted characters that make bash expand a word into
// other words: globs and brace expansion.
func hasGlob(lit string) bool {
	for i := 0; i < len(lit); i++ {
		switch lit[i] {
		case '\\':
			i++
		case '*', '?':
			return true
		case '[': // a bracket expression needs its "]"; "[" alone is the test command
			if strings.IndexByte(lit[i+1:], ']') >= 0 {
				return true
			}
		case '{':
			if j := strings.IndexByte(lit[i:], '}'); j > 0 {
				inner := lit[i+1 : i+j]
				if strings.Contains(inner, ",") || strings.Contains(inner, "..") {
					return true
				}
			}
		}
	}
	return false
}

// unescape removes the backslashes of an unquoted literal (\rm is rm).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapeDouble removes the backslashes bash removes inside double quotes.
func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '"', '\\':
				i++
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ansiC decodes the body of a $'...' string ($'\x72m' is rm).
func ansiC(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case 'c':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			}
		case 'x', 'u', 'U':
			max := 2
			if e == 'u' {
				max = 4
			} else if e == 'U' {
				max = 8
			}
			j := i + 1
			for j < len(s) && j-i-1 < max && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(e)
				continue
			}
			v, _ := strconv.ParseUint(s[i+1:j], 16, 32)
			if e == 'x' {
				b.WriteByte(byte(v))
			} else if r := rune(v); utf8.ValidRune(r) {
				b.WriteRune(r)
			}
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j-i < 3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			v, _ := strconv.ParseUint(s[i:j], 8, 16)
			b.WriteByte(byte(v))
			i = j - 1
		default: // \\ \' \" \? and unknown escapes
			if e != '\\' && e != '\'' && e != '"' && e != '?' {
				b.WriteByte('\\')
			}
			b.WriteByte(e)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// display renders a simple command the way a user reads it: the command
// name without its directory, static words quoted only where needed and
// dynamic words as written.
func display(args []arg) string {
	var b strings.Builder
	n := 0
	for _, a := range args {
		n += len(a.text) + 1
	}
	b.Grow(n) // once, for words that need no quotes
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		t := a.text
		if i == 0 && a.static && !a.glob {
			t = commandBase(t)
		}
		if a.static && !a.glob {
			t = quote(t)
		}
		b.WriteString(t)
	}
	return b.String()
}

// quote quotes s for the shell if it needs it.
func quote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n\r;\"'()$|&<>`\\#*?[]!") {
		return s
	}
	q, err := syntax.Quote(s, syntax.LangBash)
	if err != nil {
		return strconv.Quote(s)
	}
	return q
}

// commandBase is the name a command is known by: /bin/rm and ./rm are rm.
func commandBase(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 && i < len(name)-1 {
		return name[i+1:]
	}
	return name
}

// abbreviate keeps reasons readable; the full text stays in the pause details.
func abbreviate(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	const max = 200
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// printfText is what printf FORMAT ARGS... writes, when the format uses
// only %s, %b and %%: anything else is not known statically.
func printfText(words []string) (string, bool) {
	if len(words) == 0 {
		return "", true
	}
	format, args := words[0], words[1:]
	var b strings.Builder
	for {
		used := false
		for i := 0; i < len(format); i++ {
			if format[i] != '%' {
				j := strings.IndexByte(format[i:], '%')
				if j < 0 {
					j = len(format) - i
				}
				b.WriteString(ansiC(format[i : i+j]))
				i += j - 1
				continue
			}
			if i+1 >= len(format) {
				return "", false
			}
			i++
			switch format[i] {
			case '%':
				b.WriteByte('%')
			case 's', 'b':
				used = true
				if len(args) > 0 {
					if format[i] == 'b' {
						b.WriteString(ansiC(args[0]))
					} else {
						b.WriteString(args[0])
					}
					args = args[1:]
				}
			default:
				return "", false
			}
		}
		if !used || len(args) == 0 {
			return b.String(), true
		}
	}
}

// escapeForms is text as written and, when it has backslashes, with its
// escapes decoded too: echo -e, dash's echo and xpg_echo decode them.
func escapeForms(text string) []string {
	if !strings.Contains(text, `\`) {
		return []string{text}
	}
	return []string{text, ansiC(text)}
}
