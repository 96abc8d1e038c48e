package bash

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// What the earlier commands of a line set up for the later ones: the
// directory (cd /etc && echo x > passwd), symlinks (ln -s /etc/passwd x;
// echo y > x) and script files written with known text
// (echo 'rm -rf ~' > s.sh; sh s.sh).

// track records what the simple command args of statement s sets up.
func (l *level) track(s *syntax.Stmt, args []arg) {
	args = l.effective(args)
	if len(args) == 0 || !args[0].static {
		return
	}
	switch commandBase(args[0].text) {
	case "cd", "pushd":
		ops := parseOpts(args, "").operands
		switch {
		case len(ops) == 0:
			l.cwd = "~"
		case !ops[0].static || ops[0].text == "-":
			l.cwd = "?"
		default:
			l.cwd = l.resolve(ops[0].text)
		}
	case "ln":
		o := parseOpts(args, "-t -S --target-directory --suffix")
		if o.has("-s", "--symbolic") && len(o.operands) == 2 {
			l.links[canon(l.resolve(o.operands[1].text))] = o.operands[0].text
		}
	}
	text, known := l.staticOutput(s)
	for _, r := range s.Redirs {
		if r.Word == nil || r.N != nil && r.N.Value != "1" {
			continue
		}
		switch r.Op {
		case syntax.RdrOut, syntax.RdrClob, syntax.AppOut, syntax.RdrAll, syntax.AppAll:
		default:
			continue
		}
		target := l.word(r.Word)
		if !target.static {
			continue
		}
		p := canon(l.resolve(target.text))
		switch {
		case !known:
			delete(l.written, p)
		case r.Op == syntax.AppOut || r.Op == syntax.AppAll:
			l.written[p] += text
		default:
			l.written[p] = text
		}
	}
}

// resolve makes a path relative to the directory a cd moved to absolute,
// and follows a symlink made earlier on the line.
func (l *level) resolve(p string) string {
	if target, ok := l.links[canon(p)]; ok {
		p = target
	}
	if l.cwd == "" || l.cwd == "?" || p == "" || strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") || strings.HasPrefix(p, "$") {
		return p
	}
	if target, ok := l.links[canon(path.Join(l.cwd, p))]; ok {
		return target
	}
	return path.Join(l.cwd, p)
}

// writeRisk is writeRisk for a path as the command line resolves it.
func (l *level) writeRisk(p string) string { return writeRisk(l.resolve(p)) }

// writtenScript is the text the line wrote earlier to the script file p.
func (l *level) writtenScript(p string) (string, bool) {
	text, ok := l.written[canon(l.resolve(p))]
	return text, ok
}
