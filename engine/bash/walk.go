package bash

// The walk over a parsed command line: every statement, redirect and
// simple command in it, in order (what each sets up for the next is
// tracked in track.go, what flows through pipes in pipeline.go).

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

func (l *level) visit(n syntax.Node) bool {
	switch n := n.(type) {
	case *syntax.Stmt:
		l.stmt(n)
	case *syntax.DeclClause:
		for _, a := range n.Args {
			l.envAssign(a, l.source(n))
			l.assign(a)
		}
	case *syntax.FuncDecl:
		l.forkBomb(n)
	case *syntax.WhileClause, *syntax.ForClause:
		l.processStorm(n)
	case *syntax.ProcSubst:
		l.procSubst(n)
	}
	return true
}

// procSubst flags >(sh): a shell that runs whatever the outer command writes.
func (l *level) procSubst(ps *syntax.ProcSubst) {
	if ps.Op != syntax.CmdOut {
		return
	}
	for _, st := range ps.Stmts {
		if call, ok := st.Cmd.(*syntax.CallExpr); ok {
			args := l.effective(l.words(call.Args))
			if len(args) > 0 && args[0].static && readsCode(commandBase(args[0].text), args) {
				l.c.flag(catDynamicCode, l.source(ps))
			}
		}
	}
}

func (l *level) stmt(s *syntax.Stmt) {
	var disp string
	switch cmd := s.Cmd.(type) {
	case *syntax.CallExpr:
		for _, a := range cmd.Assigns {
			l.envAssign(a, l.source(s))
		}
		if len(cmd.Args) == 0 {
			for _, a := range cmd.Assigns {
				l.assign(a)
			}
		} else {
			args := l.words(cmd.Args)
			disp = display(args)
			saved := l.callEnv
			for _, a := range cmd.Assigns {
				if a.Name != nil {
					v := ""
					if a.Value != nil {
						v = l.word(a.Value).text
					}
					l.callEnv = append(l.callEnv[:len(l.callEnv):len(l.callEnv)], a.Name.Value+"="+v)
				}
			}
			l.call(args, s.Redirs, l.depth, "")
			l.callEnv = saved
			l.track(s, args)
		}
	case *syntax.BinaryCmd:
		if (cmd.Op == syntax.Pipe || cmd.Op == syntax.PipeAll) && !l.pipesDone[cmd] {
			l.pipeline(s, cmd)
		}
	case *syntax.DeclClause:
		l.trackRedirects(s)
	}
	l.redirects(s.Redirs, disp)
}

// redirects judges where a statement writes: sensitive files, disks,
// /dev/tcp connections.
func (l *level) redirects(rs []*syntax.Redirect, disp string) {
	for _, r := range rs {
		if r.Word == nil {
			continue
		}
		target := l.word(r.Word)
		t := target.text
		if strings.HasPrefix(canon(t), "/dev/tcp/") || strings.HasPrefix(canon(t), "/dev/udp/") {
			l.c.flag(catNetShell, strings.TrimSpace(disp+" "+r.Op.String()+" "+t))
			continue
		}
		if readsEnviron(t) {
			l.c.flag(catHost, strings.TrimSpace(disp+" "+r.Op.String()+" "+t))
		}
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.AppClob,
			syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob:
		case syntax.DplOut:
			if isFD(t) {
				continue
			}
		default:
			continue
		}
		shown := strings.TrimSpace(disp + " " + r.Op.String() + " " + t)
		cat := l.writeRisk(t)
		if cat == "" && l.writesOutside(target) {
			cat = l.outsideCategory(target)
		}
		if cat == "" {
			continue
		}
		// The grant key names the file written, resolved: ~ or a cd on the
		// line must not make another file look like the one approved.
		f := finding{action: ActionConfirm, reason: cat + ": " + abbreviate(shown)}
		if abs, ok := l.abs(target); ok && l.at != "" && !strings.ContainsAny(disp, "$`*?") {
			f.key = strings.TrimSpace(disp+" "+r.Op.String()+" "+abs) + " (in " + l.at + ")"
		} else {
			f.why = "the file it writes is only known when it runs"
		}
		l.c.add(f)
	}
}

func isFD(s string) bool {
	s = strings.TrimSuffix(s, "-")
	if s == "" {
		return true
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// forkBomb flags a function that calls itself in the background or through
// a pipe: :(){ :|:& };:
func (l *level) forkBomb(fd *syntax.FuncDecl) {
	name := ""
	if fd.Name != nil {
		name = fd.Name.Value
	} else if len(fd.Names) > 0 {
		name = fd.Names[0].Value
	}
	if name == "" || fd.Body == nil {
		return
	}
	selfCall, spawns := false, false
	syntax.Walk(fd.Body, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			if n.Background {
				spawns = true
			}
		case *syntax.BinaryCmd:
			if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
				spawns = true
			}
		case *syntax.CallExpr:
			if len(n.Args) > 0 && n.Args[0].Lit() == name {
				selfCall = true
			}
		}
		return true
	})
	if selfCall && spawns {
		l.c.flag(catForkBomb, l.source(fd))
	}
}

// call judges one simple command: the built-in categories and whatever it
// runs in turn (wrapped commands, shell strings, xargs and find -exec
// targets), then the policy rules.
func (l *level) call(args []arg, redirs []*syntax.Redirect, depth int, via string) {
	if len(args) == 0 {
		return
	}
	disp := display(args)
	if depth > maxDepth {
		l.c.flag(catTooDeep, disp)
		return
	}
	name := args[0]
	if !name.static || name.glob || name.text == "{}" {
		l.c.flag(catDynamic, disp)
		return
	}
	l.alias(args, depth)
	x := &command{l: l, args: args, name: commandBase(name.text), redirs: redirs, depth: depth, via: via, disp: disp}
	x.judgeAll()
	denied, allowed := l.applyPolicy(x)
	if denied {
		return
	}
	if !allowed {
		for _, f := range x.local {
			l.c.add(f)
		}
	}
}

// alias judges a command whose name the line made an alias of (alias
// ls=rm; ls -rf x): under shopt -s expand_aliases, the value runs with the
// words after the name appended.
func (l *level) alias(args []arg, depth int) {
	name := args[0].text
	v, ok := l.c.aliases[name]
	if !ok || l.c.expanding[name] {
		return
	}
	if !v.static {
		l.c.flag(catDynamic, display(args))
		return
	}
	text := v.text
	for _, a := range args[1:] {
		if a.word != nil {
			text += " " + l.source(a.word)
		} else {
			text += " " + quote(a.text)
		}
	}
	if l.c.expanding == nil {
		l.c.expanding = map[string]bool{}
	}
	l.c.expanding[name] = true
	l.sameShell(func() { l.c.script(text, depth+1) })
	delete(l.c.expanding, name)
}

// effective unwraps wrappers: sudo env nice rm -rf x is rm -rf x.
func (l *level) effective(args []arg) []arg {
	for range maxDepth {
		if len(args) == 0 || !args[0].static {
			return args
		}
		inner, ok := unwrap(commandBase(args[0].text), args)
		if !ok || len(inner) == 0 {
			return args
		}
		args = inner
	}
	return args
}
