package bash

// Effects no sandbox confines: serving files over the network, the
// system clock, process storms. (Uploads, remote commands and destructive
// HTTP are judged with the network tools, network.go.)

import (
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/bash/contain"
)

// fileServers serve a directory to the network by default.
var fileServers = map[string]bool{
	"http-server": true, "serve": true, "live-server": true, "httpd": true, "darkhttpd": true, "miniserve": true,
	"updog": true, "webfsd": true, "static-web-server": true, "simple-http-server": true, "servez": true,
}

// pythonServers are the modules python -m runs as a file server.
var pythonServers = map[string]bool{"http.server": true, "SimpleHTTPServer": true, "CGIHTTPServer": true,
	"uploadserver": true, "pyftpdlib": true, "RangeHTTPServer": true, "twisted": true}

// serves flags a command that serves files to other machines.
func (x *command) serves() {
	serving := fileServers[x.name]
	switch {
	case strings.HasPrefix(x.name, "python") || x.name == "pypy" || x.name == "pypy3":
		for i, a := range x.args {
			m := ""
			if a.text == "-m" && i+1 < len(x.args) {
				m = x.args[i+1].text
			} else if strings.HasPrefix(a.text, "-m") {
				m = a.text[2:]
			}
			serving = serving || pythonServers[m]
		}
	case x.name == "ruby":
		serving = slices.ContainsFunc(x.args, func(a arg) bool { return a.text == "-run" }) &&
			slices.ContainsFunc(x.args, func(a arg) bool { return strings.Contains(a.text, "httpd") })
	case x.name == "php":
		serving = parseOpts(x.args, "-S -t -c -d").has("-S")
	case x.name == "caddy":
		serving = hasOperand(x.args, "file-server")
	case x.name == "twistd":
		serving = hasOperand(x.args, "web") || hasOperand(x.args, "ftp")
	}
	if help := parseOpts(x.args, ""); serving && !help.has("--help") && !(strings.HasPrefix(x.name, "python") && help.has("-h")) {
		x.flag(catServe)
	}
}

// clock flags a command that sets the system clock.
func (x *command) clock() {
	set := false
	switch x.name {
	case "date":
		o := parseOpts(x.args, "-d -f -r -I --date --file --reference")
		set = o.has("-s", "--set")
		for _, op := range o.operands { // date MMDDhhmm[[CC]YY][.ss]
			set = set || len(op.text) >= 8 && strings.Trim(op.text, "0123456789.") == ""
		}
	case "hwclock":
		set = parseOpts(x.args, "-f --rtc --date --epoch").has("--set", "-w", "--systohc", "-s", "--hctosys", "-a", "--adjust", "--systz")
	case "timedatectl":
		set = hasOperand(x.args, "set-time") || hasOperand(x.args, "set-ntp") || hasOperand(x.args, "set-local-rtc")
	case "ntpdate", "rdate", "adjtimex", "htpdate":
		set = !parseOpts(x.args, "").has("-q", "-p", "--print")
	case "sntp":
		set = parseOpts(x.args, "").has("-S", "-s")
	case "chronyc":
		set = hasOperand(x.args, "settime") || hasOperand(x.args, "makestep")
	}
	if set {
		x.flag(catClock)
	}
}

// stormTurns is the number of turns from which a loop that starts a
// background job on each is a process storm (the sandbox's limit of a
// command's processes is 4096).
const stormTurns = 1000

// processStorm flags a loop without end, or of stormTurns turns or more,
// that starts a background job on every turn: while true; do cmd & done,
// for i in $(seq 100000); do cmd & done.
func (l *level) processStorm(n syntax.Node) {
	var body []*syntax.Stmt
	switch n := n.(type) {
	case *syntax.WhileClause:
		if !alwaysRuns(n.Cond, n.Until) {
			return
		}
		body = n.Do
	case *syntax.ForClause:
		switch loop := n.Loop.(type) {
		case *syntax.CStyleLoop:
			if loop.Cond != nil && arithBound(loop.Cond) < stormTurns {
				return
			}
		case *syntax.WordIter:
			if l.iterTurns(loop.Items) < stormTurns {
				return
			}
		default:
			return
		}
		body = n.Do
	default:
		return
	}
	background := false
	for _, st := range body {
		syntax.Walk(st, func(m syntax.Node) bool {
			if s, ok := m.(*syntax.Stmt); ok && s.Background {
				background = true
			}
			return !background
		})
	}
	if background {
		l.c.flag(catForkBomb, l.source(n))
	}
}

// braceRange matches a brace expansion of a range of numbers: {1..100000}.
var braceRange = regexp.MustCompile(`^\{(-?\d{1,9})\.\.(-?\d{1,9})(\.\.-?\d{1,9})?\}$`)

// iterTurns is how many words a for loop's list has, at least, when that
// is known to be large: a brace range, $(seq ... N); else len(items).
func (l *level) iterTurns(items []*syntax.Word) int {
	n := 0
	for _, w := range items {
		turns := 1
		if m := braceRange.FindStringSubmatch(l.source(w)); m != nil && m[3] == "" {
			a, _ := strconv.Atoi(m[1])
			b, _ := strconv.Atoi(m[2])
			turns = max(a-b, b-a) + 1
		} else if len(w.Parts) == 1 {
			if cs, ok := w.Parts[0].(*syntax.CmdSubst); ok && len(cs.Stmts) == 1 {
				if call, ok := cs.Stmts[0].Cmd.(*syntax.CallExpr); ok && len(call.Args) >= 2 && call.Args[0].Lit() == "seq" {
					if last, err := strconv.Atoi(call.Args[len(call.Args)-1].Lit()); err == nil && len(call.Args) <= 3 {
						first := 1
						if len(call.Args) == 3 {
							first, _ = strconv.Atoi(call.Args[1].Lit())
						}
						turns = last - first + 1
					}
				}
			}
		}
		n += turns
	}
	return n
}

// arithBound is the bound N of a C-style loop's condition i < N or
// i <= N (N > i, N >= i), or 0 when it is not a number.
func arithBound(cond syntax.ArithmExpr) int {
	b, ok := cond.(*syntax.BinaryArithm)
	if !ok {
		return 0
	}
	num := func(e syntax.ArithmExpr) int {
		if w, ok := e.(*syntax.Word); ok {
			if n, err := strconv.Atoi(w.Lit()); err == nil {
				return n
			}
		}
		return 0
	}
	switch b.Op {
	case syntax.Lss, syntax.Leq:
		return num(b.Y)
	case syntax.Gtr, syntax.Geq:
		return num(b.X)
	}
	return 0
}

// alwaysRuns reports a loop condition that never ends the loop: true or :
// (false for until).
func alwaysRuns(cond []*syntax.Stmt, until bool) bool {
	if len(cond) != 1 {
		return false
	}
	call, ok := cond[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) != 1 {
		return false
	}
	switch call.Args[0].Lit() {
	case "true", ":":
		return !until
	case "false":
		return until
	}
	return false
}

// setSandbox records what confines the commands of env's session in sc
// (nil env: the Tool's default sandbox). A workspace inside a temp dir is
// not set apart by the sandbox: its neighbours are as writable as it is.
func (t *Tool) setSandbox(sc *scope, env *engine.Env) {
	sc.sandbox = t.sandboxView(env)
	for _, d := range sc.temp {
		if sc.dir == "" || under(sc.dir, d) {
			sc.sandbox.confined = false
		}
	}
}

// sandboxView is what confines the commands of env's session (nil env:
// the Tool's default): writes confined when workspace-write or read-only
// is in force with Landlock, the network denied when that is enforced.
func (t *Tool) sandboxView(env *engine.Env) sandboxView {
	p := t.sandbox
	if env != nil {
		p = t.sessionSandbox(env).policy(p)
	}
	p = p.Normalized()
	if p.Mode == contain.ModeOff {
		return sandboxView{}
	}
	sb := t.describe(p)
	if t.configErr != nil || !strings.HasPrefix(sb.Filesystem, "landlock") {
		return sandboxView{}
	}
	return sandboxView{confined: true, noNetwork: p.Network == contain.NetworkDeny && strings.HasPrefix(sb.Network, "deny")}
}

// confined reports whether the sandbox the command runs under takes care
// of what category asks about, so that it need not ask: a program the gate
// does not know, in the project's own code (a script, make recipe or
// package.json script of the workspace, or a program run by its path in
// the workspace), can only change the workspace and the temp dirs; deleting build artefacts inside the workspace is the build's
// business (not the workspace itself, its .git or its sources: the
// person's work); with the network denied, what
// would reach another machine reaches none.
func (x *command) confined(category string) bool {
	sb := x.l.c.sc.sandbox
	if !sb.confined {
		return false
	}
	switch {
	case category == catUnknown, category == catSubUnknown, category == catDynamicOption:
		return x.projectCode()
	case category == catDelete, category == catForceDelete, category == catUnknownPath:
		return x.deletesInside()
	case category == catUpload, category == catServe, category == catRemote, category == catHTTP, category == catExfil,
		category == catNetShell, category == catPublish, category == catDownloadExec:
		return sb.noNetwork
	}
	return false
}

// artefactDirs are directories build tools make and make again: what is
// in them is no one's work.
var artefactDirs = map[string]bool{
	"build": true, "dist": true, "out": true, "target": true, "node_modules": true, ".cache": true, "__pycache__": true,
	"coverage": true, ".pytest_cache": true, ".mypy_cache": true, ".ruff_cache": true, ".next": true, ".nuxt": true,
	".turbo": true, ".parcel-cache": true, ".gradle": true, "obj": true, ".tox": true, ".nyc_output": true, "tmp": true,
	".svelte-kit": true, "_build": true, "cmake-build-debug": true, "cmake-build-release": true, ".angular": true,
}

// artefactExts are the extensions of files compilers and tests write.
// (.out: a.out, go test's coverage.out; .orig and .rej: what patch and
// merge tools leave behind.)
var artefactExts = map[string]bool{".o": true, ".a": true, ".so": true, ".pyc": true, ".class": true, ".log": true,
	".tmp": true, ".obj": true, ".d": true, ".gcda": true, ".gcno": true, ".tsbuildinfo": true, ".egg-info": true,
	".out": true, ".orig": true, ".rej": true}

// isArtefact reports whether rel, a path relative to the workspace, is a
// build artefact: in a directory build tools make, or a compiler's output.
func isArtefact(rel string) bool {
	parts := strings.Split(rel, "/")
	for _, p := range parts {
		if artefactDirs[p] {
			return true
		}
	}
	return artefactExts[path.Ext(rel)]
}

// deletesInside reports whether x (rm, rimraf, unlink, or find -delete)
// deletes only build artefacts inside the workspace, known now or named
// by a glob that can match nothing else (rm -f *.o, rm -rf build/*):
// never the workspace, its .git or the project's own files (the sandbox
// lets a command change them, and the person's work is in them). rm run
// by find -exec deletes what find selects (findArtefacts); a path the line
// made with mktemp is its own.
func (x *command) deletesInside() bool {
	ws := x.l.c.sc.dir
	if ws == "" || x.name != "rm" && x.name != "rimraf" && x.name != "unlink" && x.name != "find" {
		return false
	}
	if x.name == "find" {
		return x.l.c.artefactFind > 0
	}
	found := strings.HasPrefix(x.via, "find -exec") && x.l.c.artefactFind > 0
	if x.via != "" && !found {
		return false
	}
	ops := parseOpts(x.args, "").operands
	if len(ops) == 0 {
		return false
	}
	for _, op := range ops {
		if found && (op.text == "{}" || slices.Contains(x.l.c.artefactStarts, op.text)) {
			continue // what find selected
		}
		if x.l.tempVarPath(op) {
			continue // d=$(mktemp -d) ... rm -rf "$d": the line's own new temp dir
		}
		if op.glob && op.static {
			if !x.l.artefactGlob(op) {
				return false
			}
			continue
		}
		p, ok := x.l.abs(op)
		if !ok || p == ws || !under(p, ws) {
			return false
		}
		if rel := workspacePath(p, ws); isGitPath(rel) || !isArtefact(rel) {
			return false
		}
	}
	return true
}

// isGitPath reports a path, relative to the workspace, that is its .git or in it.
func isGitPath(rel string) bool { return rel == ".git" || strings.HasPrefix(rel, ".git/") }

// artefactGlob reports whether a glob operand can match only build
// artefacts in the workspace: its fixed directory is one (build/*), or its
// last part names artefacts by extension or name (*.o, dist/*.map is in
// dist). A glob across directories or away from the workspace is none.
func (l *level) artefactGlob(a arg) bool {
	ws := l.c.sc.dir
	dir, last := path.Split(a.text)
	if strings.ContainsAny(dir, "*?[{~$") || strings.Contains(a.text, "..") || last == "" {
		return false
	}
	if dir == "" {
		dir = "."
	}
	d, ok := l.abs(arg{text: dir, static: true})
	if !ok || !under(d, ws) {
		return false
	}
	rel := workspacePath(d, ws)
	if isGitPath(rel) {
		return false
	}
	return d != ws && isArtefact(rel) || artefactName(last)
}

// artefactName reports a file name or name pattern of build artefacts:
// an artefact directory's name (__pycache__) or an artefact extension
// after any name (*.pyc, *.o).
func artefactName(name string) bool {
	ext := path.Ext(name)
	return artefactDirs[name] || ext != "" && !strings.ContainsAny(ext, "*?[{") && artefactExts[ext]
}

// findArtefacts reports whether find, with its expression from args[i],
// selects only build artefacts in the workspace: it starts in the
// workspace (not its .git), follows no symlink, and either every start is
// an artefact directory or a -name test that every match passes (no -o,
// no negation) names artefacts (-name '*.pyc', -name __pycache__).
func (x *command) findArtefacts(starts []arg, i int) bool {
	ws := x.l.c.sc.dir
	if ws == "" {
		return false
	}
	if slices.ContainsFunc(x.args, func(a arg) bool { return a.text == "-L" || a.text == "-follow" }) {
		return false
	}
	if len(starts) == 0 {
		starts = []arg{{text: ".", static: true}}
	}
	startsArtefacts := true
	for _, s := range starts {
		p, ok := x.l.abs(s)
		if !ok || !under(p, ws) || isGitPath(workspacePath(p, ws)) {
			return false
		}
		startsArtefacts = startsArtefacts && p != ws && isArtefact(workspacePath(p, ws))
	}
	named := false
	for ; i < len(x.args); i++ {
		switch t := x.args[i].text; t {
		case "-o", "-or", ",", "!", "-not", "(", ")":
			return false
		case "-name", "-iname":
			if i+1 < len(x.args) {
				named = named || x.args[i+1].static && artefactName(x.args[i+1].text)
			}
		case "-exec", "-execdir", "-ok", "-okdir", "-delete":
			return startsArtefacts || named
		}
	}
	return startsArtefacts || named
}

// publishTask matches build tool tasks that publish or deploy what was
// built to another machine (gradle publishToMavenCentral, mvn deploy).
var publishTask = regexp.MustCompile(`(?i)^(?::?[\w-]+:)*(publish|upload|deploy|release)[\w:-]*$`)

// publishes flags build and packaging tools told to publish or deploy:
// the network effect no sandbox confines, whatever the build runs.
func (x *command) publishes() {
	ops := parseOpts(x.args, "-p -P -D -f -s -b -c -I -g -u --project-dir --settings --file --build-file --init-script --repository --repository-url -r").operands
	first := ""
	if len(ops) > 0 {
		first = ops[0].text
	}
	publish := false
	switch x.name {
	case "gradle", "gradlew", "mvn", "mvnw", "sbt", "lein", "ant":
		publish = slices.ContainsFunc(ops, func(a arg) bool { return publishTask.MatchString(a.text) })
	case "twine", "gem", "uv", "flit", "hatch", "vsce", "ovsx", "lerna", "changeset":
		publish = first == "upload" || first == "push" || first == "publish"
	case "dotnet", "nuget":
		publish = slices.ContainsFunc(ops, func(a arg) bool { return a.text == "push" })
	}
	if publish {
		x.flag(catPublish)
	}
}

// projectCode reports whether x is the project's own code: run by a
// script, make recipe or package.json script read from the workspace, or
// a program run by its path inside the workspace. A bare name the gate
// does not know, typed on the line, still asks.
func (x *command) projectCode() bool {
	if x.l.c.project > 0 {
		return true
	}
	p := x.args[0].text
	if !strings.Contains(p, "/") || !x.args[0].static {
		return false
	}
	abs, ok := x.l.abs(x.args[0])
	_, logged := x.l.c.sc.files.lookup(abs) // written by the session: not the project's
	if !ok || x.l.c.sc.dir == "" || !under(abs, x.l.c.sc.dir) || x.l.unknownOut[abs] || x.l.copies[abs] != "" || logged {
		return false
	}
	fi, err := x.l.c.stat(abs) // a file of the project, not one that is missing (or made later)
	return err == nil && fi.Mode().IsRegular()
}
