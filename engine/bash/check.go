package bash

import (
	"fmt"
	"os"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// Action is what a check decided for a command.
type Action string

// Actions, from least to most restrictive.
const (
	ActionAllow   Action = "allow"   // run it
	ActionConfirm Action = "confirm" // ask the user first
	ActionDeny    Action = "deny"    // never run it; the model gets a tool error
)

// Decision is the verdict on a command line and why.
type Decision struct {
	Decision Action `json:"decision"`
	// Reasons name the category and the offending simple command, e.g.
	// "recursive deletion: rm -rf build". Empty when allowed.
	Reasons []string `json:"reasons"`

	findings []finding
	writes   []fileWrite // files the top level of the line writes, for the session's FileLog
}

// finding is one reason to stop a command.
type finding struct {
	action Action
	reason string
	key    string // what an approval of this finding remembers: the judged action; "" when it cannot be remembered
	why    string // why key is "" (targets not known statically)
}

// Categories of danger, as they appear in reasons.
const (
	catDelete       = "recursive deletion"
	catForceDelete  = "forced deletion"
	catDestroy      = "file destruction"
	catDisk         = "disk or filesystem tool"
	catPerms        = "permission change outside the working directory"
	catOwner        = "ownership change outside the working directory"
	catPrivilege    = "privilege escalation"
	catDownloadExec = "download and execute"
	catGit          = "git history rewrite or discarded changes"
	catSystem       = "process or system control"
	catAccount      = "user account change"
	catPackage      = "package removal"
	catDatabase     = "database drop or flush"
	catSensitive    = "write to sensitive file"
	catExfil        = "sending secrets or home files off the machine"
	catInfra        = "destructive container, cluster or cloud command"
	catForkBomb     = "fork bomb"
	catNetShell     = "reverse shell or raw network connection"
	catInline       = "inline script that deletes files or runs commands"
	catDynamic      = "command not known statically"
	catDynamicCode  = "shell code not known statically"
	catUnparsable   = "unparsable command"
	catTooDeep      = "nesting too deep"
	catInvalid      = "invalid input"
	catUnknown      = "program not known (a rule can allow it)"
	catChange       = "subcommand that changes state outside the project"
	catEnvCode      = "environment that makes a program run code"
	catOptionCode   = "option that runs code"
	catScript       = "script that cannot be judged"
	catOutside      = "write outside the working directory"
	catHost         = "aimed at the host process or its secrets"
	catMigration    = "database migration"
	catToolchain    = "toolchain or system setting change"
	catPublish      = "publishes or pushes outside the machine"
	catSubUnknown   = "subcommand not known (an alias or a plugin can run anything)"
)

// MaxCommandBytes is the longest command the tool runs or checks.
const MaxCommandBytes = 100 << 10

// maxDepth bounds nested shells (bash -c "eval '...'") and wrappers (sudo env nice ...).
const maxDepth = 16

// CheckCommand classifies a command line with the built-in categories and
// no rules. It never runs anything and is safe for concurrent use. Anything
// it cannot judge (unparsable, a command name only known at run time) is
// confirm: it fails closed.
//
// The command is judged as if run in the current directory: scripts it runs
// are read from disk, paths are resolved there and writes outside it ask.
func CheckCommand(cmd string) Decision {
	dir, _ := os.Getwd()
	return check(cmd, nil, newScope(dir))
}

// check classifies cmd under rules, in scope sc. A panic in the classifier
// must not take the host process down: it becomes a confirm.
func check(cmd string, rules []rule, sc *scope) (d Decision) {
	defer func() {
		if p := recover(); p != nil {
			d = decide([]finding{{action: ActionConfirm, reason: fmt.Sprintf("%s: classifier failed (%v)", catInvalid, p), key: cmd}})
		}
	}()
	return checkUnsafe(cmd, rules, sc)
}

// checkUnsafe is check without the recover, for the fuzz test.
func checkUnsafe(cmd string, rules []rule, sc *scope) Decision {
	if err := validate(cmd); err != nil {
		if strings.TrimSpace(cmd) == "" {
			return decide(nil)
		}
		return decide([]finding{{action: ActionConfirm, reason: catInvalid + ": " + err.Error(), key: cmd}})
	}
	c := &checker{rules: rules, dir: sc.dir, sc: sc, at: sc.dir, seen: make(map[string]bool)}
	c.script(cmd, 0)
	d := decide(c.found)
	d.writes = c.writes
	return d
}

// validate reports why cmd cannot be run at all.
func validate(cmd string) error {
	switch {
	case strings.TrimSpace(cmd) == "":
		return fmt.Errorf("command is empty")
	case len(cmd) > MaxCommandBytes:
		return fmt.Errorf("command is %d bytes; the limit is %d (write a script file and run that)", len(cmd), MaxCommandBytes)
	case strings.IndexByte(cmd, 0) >= 0:
		return fmt.Errorf("command contains a NUL byte at offset %d", strings.IndexByte(cmd, 0))
	case !utf8.ValidString(cmd):
		return fmt.Errorf("command is not valid UTF-8 (first bad byte at offset %d)", firstInvalid(cmd))
	}
	return nil
}

func firstInvalid(s string) int {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, n := utf8.DecodeRuneInString(s[i:]); n <= 1 {
				return i
			}
		}
	}
	return -1
}

// decide turns findings into a decision: any deny wins, then any confirm.
func decide(fs []finding) Decision {
	d := Decision{Decision: ActionAllow, Reasons: []string{}, findings: fs}
	for _, f := range fs {
		if f.action == ActionDeny {
			d.Decision = ActionDeny
		} else if d.Decision == ActionAllow {
			d.Decision = ActionConfirm
		}
	}
	for _, want := range []Action{ActionDeny, ActionConfirm} {
		for _, f := range fs {
			if f.action == want {
				d.Reasons = append(d.Reasons, f.reason)
			}
		}
	}
	return d
}

// checker walks one command line and collects findings.
type checker struct {
	rules []rule
	dir   string
	sc    *scope
	at    string // absolute directory a nested script starts in ("" unknown)
	// scripts counts the script files read from disk, to bound the work
	scripts int
	writes  []fileWrite
	real    map[string]string // realPath results of this check
	found   []finding
	seen    map[string]bool // reasons already found
	// parsed counts the bytes of all nested scripts parsed, to bound the
	// work on a line whose nested strings multiply (echo ... | sh in eval...).
	parsed int
}

// maxParsedBytes bounds the work of one check; past it the line is confirm.
const maxParsedBytes = 4 * MaxCommandBytes

func (c *checker) add(f finding) {
	if c.seen[f.reason] {
		return
	}
	c.seen[f.reason] = true
	c.found = append(c.found, f)
}

// flag records a confirm finding about the command shown as disp. It can
// be remembered only when disp holds no expansion and the directory is known.
func (c *checker) flag(category, disp string) {
	f := finding{action: ActionConfirm, reason: category + ": " + abbreviate(disp)}
	switch {
	case c.at == "":
		f.why = "its working directory is not known statically"
	case strings.ContainsAny(disp, "$`*?"):
		f.why = "its words are only known when it runs"
	default:
		f.key = disp + " (in " + c.at + ")"
	}
	c.add(f)
}

// level is one parsed script: the command line itself, or the string given
// to bash -c, eval, ssh, a here-doc fed to a shell...
type level struct {
	c          *checker
	src        string
	depth      int
	vars       map[string]variable // static assignments seen so far
	downloaded map[string]bool     // files a downloader wrote (curl -o x.sh)
	written    map[string]string   // scripts written with known text (echo ... > x.sh)
	links      map[string]string   // symlinks made (ln -s /etc/passwd x): name -> target
	cwd        string              // directory after a static cd ("" = the working directory, "?" = unknown)
	ifsChanged bool                // IFS is set: unquoted expansions split in unknown ways
	pipesDone  map[*syntax.BinaryCmd]bool
	at         string            // absolute directory commands run in ("" = not known statically)
	copies     map[string]string // files copied on the line: absolute destination -> absolute source
	unknownOut map[string]bool   // files written on the line with text not known statically (absolute)
	funcs      map[string]bool   // functions defined on the line: calling one runs its body, judged where defined
	pathDirs   []string          // directories the line put in PATH: names are looked up there first
	absLinks   map[string]string // symlinks made on the line: absolute link -> absolute target
}

type variable struct {
	value string
	known bool // assigned exactly one static value
}

// script parses src and judges every simple command in it.
func (c *checker) script(src string, depth int) {
	c.parsed += len(src)
	if depth > maxDepth || c.parsed > maxParsedBytes {
		c.flag(catTooDeep, src)
		return
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		c.add(finding{action: ActionConfirm, reason: catUnparsable + ": " + abbreviate(err.Error()), key: src})
		return
	}
	l := &level{c: c, src: src, depth: depth, vars: map[string]variable{}, downloaded: map[string]bool{},
		written: map[string]string{}, links: map[string]string{}, ifsChanged: strings.Contains(src, "IFS"),
		pipesDone: map[*syntax.BinaryCmd]bool{}, at: c.at, copies: map[string]string{}, unknownOut: map[string]bool{},
		funcs: map[string]bool{}, absLinks: map[string]string{}}
	syntax.Walk(f, func(n syntax.Node) bool {
		if fd, ok := n.(*syntax.FuncDecl); ok && fd.Name != nil {
			l.funcs[fd.Name.Value] = true
		}
		return true
	})
	saved := c.at
	syntax.Walk(f, l.visit)
	c.at = saved
	if depth == 0 {
		c.writes = l.fileWrites()
	}
}

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
			l.call(args, s.Redirs, l.depth, "")
			l.track(s, args)
		}
	case *syntax.BinaryCmd:
		if (cmd.Op == syntax.Pipe || cmd.Op == syntax.PipeAll) && !l.pipesDone[cmd] {
			l.pipeline(s, cmd)
		}
	}
	l.redirects(s.Redirs, disp)
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
	if old, seen := l.vars[name]; seen && (old.value != v.value || !old.known) {
		v.known = false
	}
	l.vars[name] = v
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
		if cat := l.writeRisk(t); cat != "" {
			l.c.flag(cat, shown)
		} else if l.writesOutside(target) {
			l.c.flag(catOutside, shown)
		}
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

// call judges one simple command: the user's rules first, then the
// built-in categories, then whatever it runs in turn (wrapped commands,
// shell strings, xargs and find -exec targets).
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
	x := &command{l: l, args: args, name: commandBase(name.text), redirs: redirs, depth: depth, via: via, disp: disp}
	act, prefix, matched := matchRules(l.c.rules, args)
	if matched && act == ActionDeny {
		l.c.add(finding{action: ActionDeny, reason: fmt.Sprintf("denied by rule %q: %s", prefix, abbreviate(disp)), key: disp})
		return
	}
	x.judgeAll()
	if matched && act == ActionConfirm {
		l.c.add(finding{action: ActionConfirm, reason: fmt.Sprintf("confirm rule %q: %s", prefix, abbreviate(disp)), key: disp})
	}
	if !(matched && act == ActionAllow) {
		for _, f := range x.local {
			l.c.add(f)
		}
	}
}

// pipeline judges what flows between the stages of a | b | c: a download
// or unknown text fed to a shell, secrets fed to the network, SQL fed to a
// database client.
func (l *level) pipeline(s *syntax.Stmt, top *syntax.BinaryCmd) {
	var stages []*syntax.Stmt
	var flatten func(st *syntax.Stmt)
	flatten = func(st *syntax.Stmt) {
		if b, ok := st.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) {
			l.pipesDone[b] = true
			flatten(b.X)
			flatten(b.Y)
			return
		}
		stages = append(stages, st)
	}
	l.pipesDone[top] = true
	flatten(s)
	disp := l.source(s)
	var up upstream
	up.text, up.textKnown = "", true
	for i, st := range stages {
		if i > 0 {
			l.consume(st, &up, disp)
		}
		l.produce(st, &up)
	}
}

// upstream sums up what the earlier stages of a pipeline produce.
type upstream struct {
	downloads bool   // a downloader's output flows down
	secrets   bool   // secret or home files, or the environment, flow down
	text      string // the exact text, when only echo/printf/cat <<EOF produce it
	textKnown bool
}

func (l *level) produce(st *syntax.Stmt, up *upstream) {
	syntax.Walk(st, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			args := l.effective(l.words(n.Args))
			if len(args) == 0 {
				return true
			}
			name := commandBase(args[0].text)
			if isDownloader(name) {
				up.downloads = true
			}
		}
		return true
	})
	up.secrets = up.secrets || l.readsSecrets(st)
	text, ok := l.staticOutput(st)
	up.textKnown = up.textKnown && ok
	if up.textKnown {
		up.text += text
	}
}

// readsSecrets reports whether n runs a command that outputs secrets or
// home files: the environment, key files, a password store.
func (l *level) readsSecrets(n syntax.Node) bool {
	found := false
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			args := l.effective(l.words(n.Args))
			if len(args) == 0 {
				return true
			}
			if printsSecrets(commandBase(args[0].text), args) {
				found = true
			}
			for _, a := range args[1:] {
				if leaksHome(a.text) || mentionsSecret(a.text) {
					found = true
				}
			}
		case *syntax.Redirect:
			if n.Op == syntax.RdrIn && n.Word != nil && leaksHome(l.word(n.Word).text) {
				found = true
			}
		}
		return !found
	})
	return found
}

// printsSecrets reports commands whose output is secrets.
func printsSecrets(name string, args []arg) bool {
	switch name {
	case "env", "printenv", "set", "compgen", "export", "declare":
		return name != "export" && name != "declare" || len(args) == 1 || hasOperand(args, "-p")
	case "gpg", "gpg2":
		return hasOperand(args, "--export-secret-keys") || hasOperand(args, "--export-secret-subkeys")
	case "gh":
		return hasOperand(args, "auth") && hasOperand(args, "token")
	case "pass", "security", "keyring", "secret-tool":
		return true
	case "aws":
		return hasOperand(args, "configure") && (hasOperand(args, "get") || hasOperand(args, "export-credentials"))
	}
	return false
}

// staticOutput is what a stage writes when it is known statically: echo
// and printf with static words, cat of a here-document.
func (l *level) staticOutput(st *syntax.Stmt) (string, bool) {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return "", false
	}
	args := l.words(call.Args)
	for _, a := range args {
		if !a.static {
			return "", false
		}
	}
	var words []string
	for _, a := range args[1:] {
		words = append(words, a.text)
	}
	switch commandBase(args[0].text) {
	case "echo":
		for len(words) > 0 && (words[0] == "-n" || words[0] == "-e" || words[0] == "-E") {
			words = words[1:]
		}
		return strings.Join(words, " ") + "\n", true
	case "printf":
		return printfText(words)
	case "cat":
		if len(words) == 0 {
			if text, ok := l.stdinText(st.Redirs); ok {
				return text, true
			}
		}
	}
	return "", false
}

// stdinText is the text a here-document or here-string feeds to stdin.
func (l *level) stdinText(rs []*syntax.Redirect) (string, bool) {
	for _, r := range rs {
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			if r.Hdoc == nil {
				return "", true
			}
			body := l.source(r.Hdoc) // the body as written: a quoted delimiter keeps backslashes
			if r.Word != nil {
				if d := strings.Trim(l.source(r.Word), `'"`); d != "" {
					body = strings.TrimSuffix(strings.TrimSuffix(body, "\n"), d)
				}
			}
			return body, true
		case syntax.WordHdoc:
			if r.Word != nil {
				return l.word(r.Word).text + "\n", true
			}
		}
	}
	return "", false
}

// consume judges a stage that reads what the earlier ones produce.
func (l *level) consume(st *syntax.Stmt, up *upstream, disp string) {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok {
		if up.downloads {
			l.c.flag(catDownloadExec, disp)
		}
		return
	}
	args := l.effective(l.words(call.Args))
	if len(args) == 0 {
		return
	}
	if !args[0].static {
		return // already flagged as a dynamic command
	}
	name := commandBase(args[0].text)
	switch {
	case readsCode(name, args):
		switch {
		case up.downloads:
			l.c.flag(catDownloadExec, disp)
		case up.textKnown && (isShell(name) || name == "at" || name == "batch"):
			for _, text := range escapeForms(up.text) {
				l.c.script(text, l.depth+1)
			}
		case up.textKnown:
			x := &command{l: l, args: args, name: name, disp: disp}
			for _, text := range escapeForms(up.text) {
				x.inlineText(text)
			}
			for _, f := range x.local {
				l.c.add(f)
			}
		default:
			l.c.flag(catDynamicCode, disp)
		}
	case isDatabaseClient(name):
		if up.textKnown && dangerousSQL(up.text) {
			l.c.flag(catDatabase, disp)
		}
	case (name == "make" || name == "gmake") && (hasOperand(args, "-") || hasOperand(args, "/dev/stdin")):
		x := &command{l: l, args: args, name: name, disp: disp}
		if up.textKnown {
			x.recipes(up.text)
		} else {
			x.flag(catDynamicCode)
		}
		for _, f := range x.local {
			l.c.add(f)
		}
	case isNetworkSender(name):
		if up.secrets {
			l.c.flag(catExfil, disp)
		}
	}
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
