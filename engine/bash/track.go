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
	case "popd":
		l.cwd, l.at = "?", "" // back to a directory of the stack
		l.c.at = l.at
	case "cd", "pushd":
		ops := parseOpts(args, "").operands
		switch {
		case commandBase(args[0].text) == "pushd" && (len(ops) == 0 || strings.HasPrefix(ops[0].text, "+") || strings.HasPrefix(ops[0].text, "-")):
			l.cwd, l.at = "?", "" // a directory of the stack
		case len(ops) == 0:
			l.cwd = "~"
			l.at = l.home()
		case ops[0].text == "-":
			l.cwd, l.at = "?", ""
		default:
			if !ops[0].static {
				l.cwd = "?"
			} else {
				l.cwd = l.resolve(ops[0].text)
			}
			l.at, _ = l.abs(ops[0])
		}
		l.c.at = l.at
	case "ln":
		o := parseOpts(args, "-t -S --target-directory --suffix")
		if !o.has("-s", "--symbolic") {
			break
		}
		for _, m := range symlinksMade(l, o) {
			target, name := m[0], m[1]
			put(&l.links, canon(l.resolve(name.text)), target.text)
			if link, ok := l.abs(name); ok {
				if !strings.HasPrefix(target.text, "/") && !strings.HasPrefix(target.text, "~") && !strings.HasPrefix(target.text, "$") {
					target.text = path.Join(path.Dir(link), target.text)
				}
				if t, ok := l.abs(target); ok {
					put(&l.absLinks, link, t)
				}
			}
		}
	case "cp", "mv", "install", "rsync":
		l.trackCopy(args)
		if o := parseOpts(args, "-t -S --target-directory --suffix"); commandBase(args[0].text) == "cp" && o.has("-s", "--symbolic-link", "-l", "--link") {
			for _, m := range symlinksMade(l, o) { // cp -s/-l: the copy is the file itself
				if link, ok := l.abs(m[1]); ok {
					if t, ok := l.abs(m[0]); ok {
						put(&l.absLinks, link, t)
					}
				}
			}
		}
	case "tee":
		if text, ok := l.stdinText(s.Redirs); ok {
			for _, op := range parseOpts(args, "").operands {
				l.wrote(op, text, true, parseOpts(args, "").has("-a", "--append"))
			}
		}
	}
	l.trackRedirects(s)
}

// trackRedirects records what the redirects of s write: known text, a
// copy (cat FILE > x), secrets, or text not known statically.
func (l *level) trackRedirects(s *syntax.Stmt) {
	// What it writes is worked out (files read) only if it writes a file.
	var text string
	known, worked := false, false
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
		if !worked {
			text, known = l.staticOutput(s)
			worked = true
		}
		if l.readsSecrets(s) {
			if dst, ok := l.abs(target); ok {
				put(&l.secretOut, dst, true) // env > x: x now holds secrets
			}
		}
		if !known {
			if src, ok := l.catSource(s); ok { // cat /bin/rm > r: a copy
				if dst, ok := l.abs(target); ok {
					put(&l.copies, dst, src)
				}
			}
		}
		l.wrote(target, text, known, r.Op == syntax.AppOut || r.Op == syntax.AppAll)
	}
}

// wrote records that the line writes text (known or not) to the file a.
func (l *level) wrote(a arg, text string, known, appendTo bool) {
	p := canon(l.resolve(a.text))
	abs, absOK := l.abs(a)
	if absOK {
		p = abs // one key per file, however the line names it
	}
	switch {
	case !known:
		delete(l.written, p)
		if absOK {
			put(&l.unknownOut, abs, true)
		}
	case appendTo:
		if _, ok := l.written[p]; !ok && absOK {
			if old, ok := l.c.sc.cache.read(abs, l.c.stat); ok {
				put(&l.written, p, old)
			}
		}
		put(&l.written, p, l.written[p]+text)
	default:
		put(&l.written, p, text)
		if absOK {
			delete(l.unknownOut, abs)
		}
	}
}

// catSource is the one file a cat with no options copies to its output.
func (l *level) catSource(s *syntax.Stmt) (string, bool) {
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) != 2 {
		return "", false
	}
	args := l.words(call.Args)
	if commandBase(args[0].text) != "cat" {
		return "", false
	}
	return l.abs(args[1])
}

// symlinksMade pairs each target of ln -s with the link it makes: ln -s T
// makes ./T's name, ln -s T DIR and ln -s -t DIR T... make DIR/T's name.
func symlinksMade(l *level, o opts) [][2]arg {
	ops := o.operands
	dir, hasDir := arg{}, false
	if t := o.all("-t", "--target-directory"); len(t) > 0 {
		dir, hasDir = t[0], true
	} else if len(ops) == 1 {
		dir, hasDir = arg{text: ".", static: true}, true
	} else if len(ops) > 2 || len(ops) == 2 && !o.has("-T", "--no-target-directory", "-n", "--no-dereference") && isDirOnDisk(l, ops[1]) {
		dir, hasDir, ops = ops[len(ops)-1], true, ops[:len(ops)-1]
	}
	var out [][2]arg
	if !hasDir {
		if len(ops) == 2 {
			out = append(out, [2]arg{ops[0], ops[1]})
		}
		return out
	}
	for _, t := range ops {
		name := dir
		name.text = path.Join(dir.text, path.Base(t.text))
		out = append(out, [2]arg{t, name})
	}
	return out
}

// trackCopy follows cp, mv and install: the destination holds what the
// source held (a script written on the line, a program's binary).
func (l *level) trackCopy(args []arg) {
	o := parseOpts(args, "-t -S -m -o -g --target-directory --suffix --mode --owner --group -e --rsh")
	ops := o.operands
	dirs := o.all("-t", "--target-directory")
	if len(dirs) == 0 && len(ops) < 2 {
		return
	}
	var dest arg
	if len(dirs) > 0 {
		dest = dirs[0]
	} else {
		dest, ops = ops[len(ops)-1], ops[:len(ops)-1]
	}
	for _, src := range ops {
		d := dest
		if len(ops) > 1 || len(dirs) > 0 || isDirOnDisk(l, dest) {
			d.text = path.Join(dest.text, path.Base(src.text))
		}
		if text, ok := l.writtenScript(src.text); ok && src.static {
			l.wrote(d, text, true, false)
		} else {
			l.wrote(d, "", false, false)
			if s, ok := l.abs(src); ok {
				if dst, ok := l.abs(d); ok {
					put(&l.copies, dst, s)
				}
			}
		}
	}
}

func isDirOnDisk(l *level, a arg) bool {
	p, ok := l.abs(a)
	if !ok {
		return false
	}
	return l.c.isDir(p)
}

// sameShell runs judge on code the shell of this line runs itself (eval,
// source, an alias): a cd in it moves the rest of the line.
func (l *level) sameShell(judge func()) {
	l.c.endAt = l.at // unchanged when judge parses nothing
	judge()
	if at := l.c.endAt; at != l.at {
		l.at, l.cwd = at, at
		if at == "" {
			l.cwd = "?"
		}
	}
	l.c.at = l.at
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
	if abs, ok := l.abs(arg{text: p, static: true}); ok {
		if text, ok := l.written[abs]; ok {
			return text, true
		}
	}
	text, ok := l.written[canon(l.resolve(p))]
	return text, ok
}

type variable struct {
	value string
	known bool // assigned exactly one static value
	temp  bool // assigned once the path of a new file or directory of the temp dir: $(mktemp)
}

// assign tracks NAME=value so that $NAME can be resolved later. A name
// assigned twice, or to a run-time value, is unknown from then on.
func (l *level) assign(a *syntax.Assign) {
	if a.Name == nil {
		return
	}
	name := a.Name.Value
	v := variable{}
	if a.Value != nil && a.Index == nil && a.Array == nil && !a.Append {
		w := l.word(a.Value)
		v = variable{value: w.text, known: w.static}
	} else if a.Value == nil && a.Array == nil && !a.Naked {
		v = variable{known: true} // NAME=
	} else if a.Naked {
		if _, seen := l.vars[name]; seen {
			return // export NAME: the value stays what it was
		}
	}
	if a.Value != nil && a.Index == nil && a.Array == nil && !a.Append {
		v.temp = newTempPath(a.Value)
	}
	if old, seen := l.vars[name]; seen && (old.value != v.value || !old.known) {
		v.known = false
	}
	if _, seen := l.vars[name]; seen {
		v.temp = false
	}
	put(&l.vars, name, v)
}

// newTempPath reports a word that is $(mktemp) with no template nor
// directory of its own (-d, -q, -u, -t alone): the path of a file or
// directory mktemp makes, new, in the temp dir.
func newTempPath(w *syntax.Word) bool {
	if len(w.Parts) != 1 {
		return false
	}
	cs, ok := w.Parts[0].(*syntax.CmdSubst)
	if !ok || len(cs.Stmts) != 1 {
		return false
	}
	call, ok := cs.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 || call.Args[0].Lit() != "mktemp" || len(call.Assigns) > 0 || len(cs.Stmts[0].Redirs) > 0 {
		return false
	}
	for _, a := range call.Args[1:] {
		switch a.Lit() {
		case "-d", "-q", "-u", "-dq", "-qd", "--directory", "--quiet", "--dry-run":
		default:
			return false
		}
	}
	return true
}

// tempVarPath reports a word that is $VAR, "$VAR" or ${VAR}, with
// perhaps /name after it, where the line set VAR to a new path of the
// temp dir ($(mktemp)): where it writes is the temp dir's, and new.
func (l *level) tempVarPath(a arg) bool {
	if a.word == nil || len(a.word.Parts) == 0 || strings.Contains(a.text, "..") {
		return false
	}
	parts := a.word.Parts
	if q, ok := parts[0].(*syntax.DblQuoted); ok && len(parts) == 1 {
		parts = q.Parts
	}
	if len(parts) == 0 {
		return false
	}
	p, ok := parts[0].(*syntax.ParamExp)
	if !ok || p.Param == nil || p.Exp != nil || p.Repl != nil || p.Slice != nil || p.Index != nil || p.Length || p.Excl || p.Width {
		return false
	}
	if len(parts) > 2 {
		return false
	}
	if len(parts) == 2 { // "$tmp"/name or $tmp/name
		if lit, ok := parts[1].(*syntax.Lit); !ok || !strings.HasPrefix(lit.Value, "/") {
			return false
		}
	}
	v, ok := l.vars[p.Param.Value]
	return ok && v.temp && len(l.c.sc.temp) > 0
}

// leaks reports whether sending p off the machine sends secrets: a key
// file, a home file, or a file the line filled with secrets.
func (l *level) leaks(p string) bool {
	if leaksHome(p) {
		return true
	}
	abs, ok := l.abs(arg{text: p, static: true})
	return ok && l.secretOut[abs]
}
