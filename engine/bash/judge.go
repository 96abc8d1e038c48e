package bash

// Judging one simple command: the order of the judgments (judgeAll) and
// the dispatch to the judgments of each domain (judge). Wrappers that run
// another command are unwrapped in unwrap.go.

import (
	"regexp"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// command is one simple command being judged.
type command struct {
	l      *level
	args   []arg // args[0] is the command name as written
	name   string
	redirs []*syntax.Redirect
	depth  int
	via    string // "xargs", "find -exec": it runs once per input, in bulk
	disp   string
	key    string    // the judged action a grant remembers; "" when it cannot be remembered
	why    string    // why key is ""
	keyed  bool      // key and why are computed (only when a finding needs them)
	local  []finding // built-in findings about this command (rules may silence them)
	ran    string    // code it runs that is not in its words (a pipe, a script file), when judged
}

// flag records a finding about this command in category.
// A command after a cd is told, and remembered, with its directory: an
// approval of rm -f passwd in the project is none for cd /etc; rm -f passwd.
func (x *command) flag(category string) {
	if x.l.c.collect || x.confined(category) {
		return
	}
	d := x.disp
	if cwd := x.l.cwd; cwd != "" {
		d += " (in " + cwd + ")"
	}
	if x.via != "" {
		d += " (via " + x.via + ")"
	}
	if !x.keyed {
		x.key, x.why, x.keyed = x.l.actionKey(x.args)
	}
	key, why := x.key, x.why
	if x.via != "" && key != "" {
		key, why = "", "it runs once per input of "+x.via
	}
	if key != "" {
		if in, ok := x.inputKey(); !ok {
			key, why = "", "what it reads on stdin is only known when it runs"
		} else if in != "" {
			i := strings.LastIndex(key, " (in ")
			key = key[:i] + in + key[i:]
		}
	}
	x.local = append(x.local, finding{action: ActionConfirm, reason: category + ": " + abbreviate(d), key: key, why: why})
}

// inputKey is what a command reads besides its words, as an approval
// remembers it: the file or here-document on its stdin and the code it
// runs from a pipe or a file, by content ("python3 - <<< sha256:…"), so
// that approving one SQL file or one piped script is no approval of
// another. ok is false when the input is only known at run time.
func (x *command) inputKey() (key string, ok bool) {
	for _, r := range x.redirs {
		switch {
		case r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc || r.Op == syntax.WordHdoc:
			text, _ := x.l.stdinText([]*syntax.Redirect{r})
			key += " <<< sha256:" + hashText(text)[:16]
		case r.Op == syntax.RdrIn && r.Word != nil && (r.N == nil || r.N.Value == "0"):
			p, ok := x.l.abs(x.l.word(r.Word))
			if !ok {
				return "", false
			}
			key += " < " + quote(p)
			if text, ok := x.l.c.sc.cache.read(p, x.l.c.stat); ok {
				key += " sha256:" + hashText(text)[:16]
			}
		}
	}
	if x.ran != "" {
		key += " (code sha256:" + hashText(x.ran)[:16] + ")"
	}
	return key, true
}

// flagScript records that a script the command runs cannot be judged,
// and why: "script that cannot be judged (it cannot be read when checked)".
func (x *command) flagScript(problem string) {
	x.flag(catScript + " (" + problem + ")")
}

// judgeAll judges one simple command: a path run as a program by what it
// is on disk, what it aims at, its own category judgments, the code its
// options carry, where it writes, and whether the program (and its
// subcommand) is known at all.
func (x *command) judgeAll() {
	x.args = expandLongOptions(x.name, x.args)
	x.publishes() // by name: ./gradlew publish publishes whatever the script is
	if x.resolveProgram() {
		return
	}
	if x.l.c.collect { // Commands: only what runs matters, not its danger
		x.judge()
		return
	}
	x.hostTargets()
	x.judge()
	x.serves()
	x.clock()
	x.printsSecret()
	x.lookThrough()
	x.workspace()
	if len(x.local) == 0 {
		x.knownProgram()
	}
	if len(x.local) == 0 && !anyOptions[x.name] && x.optionsUnknown() {
		x.flag(catDynamicOption)
	}
}

// anyOptions lists programs that nothing on their command line makes
// change anything: words only known when they run may be any option.
var anyOptions = map[string]bool{
	"echo": true, "printf": true, "cat": true, "ls": true, "grep": true, "egrep": true, "fgrep": true, "rg": true,
	"ag": true, "wc": true, "head": true, "tail": true, "basename": true, "dirname": true, "test": true, "[": true,
	"[[": true, "true": true, "false": true, ":": true, "sleep": true, "date": true, "seq": true, "stat": true,
	"file": true, "du": true, "df": true, "realpath": true, "readlink": true, "pwd": true, "which": true, "type": true,
	"cut": true, "tr": true, "diff": true, "cmp": true, "id": true, "uname": true, "printenv": true, "cd": true,
	"pushd": true, "popd": true, "shift": true, "exit": true, "return": true, "nl": true, "tac": true, "rev": true,
	"fold": true, "column": true, "od": true, "hexdump": true, "strings": true, "md5sum": true, "sha1sum": true,
	"sha256sum": true, "sha512sum": true, "cksum": true, "nproc": true, "whoami": true, "hostname": true, "let": true,
	"wait": true, "expr": true, "bc": true, "numfmt": true, "getent": true, "local": true, "export": true,
}

// optionsUnknown reports whether a word the line controls, only known
// when it runs, may become options of the command (git reset $(echo
// --hard), tar $(echo --to-command=sh) -xf a.tar), or xargs or parallel
// add words read from their input.
func (x *command) optionsUnknown() bool {
	if x.via == "xargs" || x.via == "parallel" {
		return true
	}
	for _, a := range x.args[1:] {
		if x.l.mayBeOption(a) {
			return true
		}
	}
	return false
}

// mayBeOption reports whether a word expands, at run time, to a value the
// line computed (a command substitution, a variable it assigned or read)
// where it can start an option: unquoted (it splits), or first in quotes.
// The session's own environment ($PWD, $TARGET) is the user's, not the
// line's.
func (l *level) mayBeOption(a arg) bool {
	if a.static || a.word == nil {
		return false
	}
	ctrl := func(p syntax.WordPart) bool {
		switch p := p.(type) {
		case *syntax.CmdSubst:
			return !pathOutput(p)
		case *syntax.ProcSubst:
			return true
		case *syntax.ParamExp: // not $(mktemp)'s path: it starts with /
			return p.Param != nil && l.lineVar(p.Param.Value) && !(l.vars[p.Param.Value].temp && p.Exp == nil && p.Repl == nil && p.Slice == nil)
		}
		return false
	}
	for i, p := range a.word.Parts {
		if q, ok := p.(*syntax.DblQuoted); ok {
			if i == 0 && len(q.Parts) > 0 && ctrl(q.Parts[0]) {
				return true
			}
		} else if ctrl(p) {
			return true
		}
	}
	return false
}

// pathOutput reports a command substitution of a program whose output is
// a path or a number, never an option: "$(command -v rm)", $(id -u), $(pwd).
func pathOutput(cs *syntax.CmdSubst) bool {
	if len(cs.Stmts) != 1 {
		return false
	}
	call, ok := cs.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return false
	}
	switch name, sub := call.Args[0].Lit(), ""; name {
	case "id", "pwd", "mktemp", "nproc", "uname", "whoami", "hostname", "realpath", "dirname", "which":
		return true
	case "command", "git", "go":
		if len(call.Args) > 1 {
			sub = call.Args[1].Lit()
		}
		return name == "command" && sub == "-v" || name == "git" && sub == "rev-parse" || name == "go" && sub == "env"
	}
	return false
}

// lineVar reports whether the line sets the variable name: assigned, read,
// a loop's over words it computes.
func (l *level) lineVar(name string) bool {
	if _, ok := l.vars[name]; ok {
		return true
	}
	if l.readVars == nil {
		l.readVars = map[string]bool{}
		for _, m := range readVar.FindAllStringSubmatch(l.src, -1) {
			for _, w := range strings.Fields(m[1] + " " + m[2] + " " + m[3]) {
				l.readVars[w] = true
			}
		}
	}
	return l.readVars[name]
}

// readVar matches the variables a line reads or loops over computed words
// into: for v in $(...), read [-r] a b, mapfile -t arr, printf -v v, getopts o v.
var readVar = regexp.MustCompile(`\b(?:for|select)\s+(\w+)\s+in\b[^;\n]*[$` + "`" + `]|\b(?:read|mapfile|readarray|getopts\s+\S+)\b([^;&|<>\n]*)|-v\s*(\w+)`)

// nested judges a command this one runs (sudo's, xargs's...).
func (x *command) nested(args []arg, redirs []*syntax.Redirect, via string) {
	x.l.call(args, redirs, x.depth+1, via)
}

// code judges a word a shell will run as code (bash -c, eval, ssh, trap).
func (x *command) code(a arg) {
	if a.subst {
		x.substCode(a)
		return
	}
	x.l.c.script(a.text, x.depth+1)
}

// substCode judges code that is the output of another command: bash -c
// "$(curl ...)", source <(wget ...).
func (x *command) substCode(a arg) {
	if x.l.downloads(a.word) {
		x.flag(catDownloadExec)
	} else {
		x.flag(catDynamicCode)
	}
}

// downloads reports whether a word runs a downloader ($(curl ...), <(wget ...)).
func (l *level) downloads(w *syntax.Word) bool {
	if w == nil {
		return false
	}
	found := false
	syntax.Walk(w, func(n syntax.Node) bool {
		if call, ok := n.(*syntax.CallExpr); ok && !found {
			if args := l.effective(l.words(call.Args)); len(args) > 0 && isDownloader(commandBase(args[0].text)) {
				found = true
			}
		}
		return !found
	})
	return found
}

// stdinSecret reports whether stdin is redirected from a secret or home file.
func (x *command) stdinSecret() bool {
	for _, r := range x.redirs {
		if r.Op == syntax.RdrIn && r.Word != nil && x.l.leaks(x.l.word(r.Word).text) {
			return true
		}
	}
	return false
}

// judge applies the built-in categories to one simple command.
func (x *command) judge() {
	args := x.args
	if inner, ok := unwrap(x.name, args); ok {
		switch x.name {
		case "sudo", "doas", "pkexec", "chroot", "nsenter", "unshare", "gosu", "su-exec", "setpriv", "authbind":
			x.flag(catPrivilege)
		case "systemd-run": // a system service runs as root
			if !parseOpts(args, "").has("--user") {
				x.flag(catPrivilege)
			}
		}
		if len(inner) > 0 {
			saved := x.l.callEnv
			for _, a := range args[1 : len(args)-len(inner)] {
				if a.static && isAssignWord(a.text) {
					x.l.callEnv = append(x.l.callEnv[:len(x.l.callEnv):len(x.l.callEnv)], a.text)
				}
			}
			x.nested(inner, x.redirs, x.via)
			x.l.callEnv = saved
		}
		return
	}
	if isShell(x.name) {
		x.shell()
		return
	}
	if isInterpreter(x.name) {
		x.interpreter()
		return
	}
	if weakInterpreters[x.name] {
		if len(parseOpts(x.args, "").operands) > 0 || hasOperand(x.args, "-e") || hasOperand(x.args, "--eval") {
			x.flag(catScript) // code the gate cannot read: it asks
		}
		return
	}
	if isDatabaseClient(x.name) {
		x.database()
		return
	}
	if isDownloader(x.name) {
		x.download()
	}
	if networkTool(x.name) {
		x.leakyArgs()
	}
	switch x.name {
	case "rm":
		o := parseOpts(args, "")
		switch {
		case o.has("-r", "-R", "--recursive") || x.via != "":
			x.flag(catDelete)
		case o.has("-f", "--force"):
			x.flag(catForceDelete)
		}
		x.writes(o.operands)
	case "shred", "wipe", "srm":
		x.flag(catDestroy)
	case "unlink", "rmdir":
		x.writes(parseOpts(args, "").operands)
	case "truncate":
		x.writes(parseOpts(args, "-s -r --size --reference").operands)
	case "find":
		x.find()
	case "xargs":
		if i := skipOpts(args, "-a -d -E -I -L -n -P -s --arg-file --delimiter --eof --replace --max-lines --max-args --max-procs --max-chars --process-slot-var"); i < len(args) {
			x.nested(args[i:], nil, "xargs")
		}
	case "git":
		x.git()
	case "eval":
		x.l.sameShell(x.eval)
	case "source", ".":
		if ops := parseOpts(args, "").operands; len(ops) > 0 {
			x.l.sameShell(func() { x.script(ops[0], x.shellCode) })
		}
	case "alias":
		for _, a := range args[1:] {
			if name, val, ok := strings.Cut(a.text, "="); ok {
				v := arg{text: val, static: a.static, subst: a.subst, word: a.word}
				x.code(v)
				if x.l.c.aliases == nil {
					x.l.c.aliases = map[string]arg{}
				}
				x.l.c.aliases[name] = v
			}
		}
	case "trap":
		if ops := parseOpts(args, "").operands; len(ops) > 1 && ops[0].text != "-" {
			x.code(ops[0])
		}
	case "watch":
		i := skipOpts(args, "-n -q --interval --equexit")
		x.runWords(args[i:], parseOpts(args[:i], "-n -q --interval --equexit").has("-x", "--exec"))
	case "env":
		for _, s := range parseOpts(args, "-S --split-string -u -C").all("-S", "--split-string") {
			x.code(s)
		}
	case "su", "runuser":
		x.flag(catPrivilege)
		o := parseOpts(args, "-c -s -g -G -u -w --command --shell --group --supp-group --session-command --whitelist-environment --user")
		for _, c := range o.all("-c", "--command", "--session-command") {
			x.code(c)
		}
		if o.has("-u", "--user") && !o.has("-c", "--command") && x.name == "runuser" {
			x.nested(o.operands, x.redirs, x.via)
		}
	case "flock":
		o := parseOpts(args, "-w -E -c --timeout --conflict-exit-code --command")
		if cs := o.all("-c", "--command"); len(cs) > 0 {
			x.code(cs[0])
		} else if i := skipOpts(args, "-w -E --timeout --conflict-exit-code"); i+1 < len(args) {
			x.nested(args[i+1:], x.redirs, x.via)
		}
	case "ssh":
		x.ssh()
	case "scp", "sftp", "rsync":
		x.copyRemote()
		if x.name == "sftp" {
			x.ftpSession()
		}
	case "ftp", "lftp", "tftp", "ncftp", "pftp", "smbclient":
		x.ftpSession()
	case "rclone":
		x.rclone()
	case "nc", "ncat", "netcat", "socat", "telnet":
		x.netcat()
	case "openssl":
		if x.stdinSecret() {
			x.flag(catExfil)
		}
	case "mail", "mailx", "mutt", "sendmail", "s-nail":
		if x.stdinSecret() || x.anyLeak(parseOpts(args, "-a -A -s -c -b -r").all("-a", "-A")) {
			x.flag(catExfil)
		}
	case "tee":
		x.writes(parseOpts(args, "").operands)
	case "cp", "install", "ln":
		o := parseOpts(args, "-t -S -m -o -g --target-directory --suffix --mode --owner --group")
		if t := o.all("-t", "--target-directory"); len(t) > 0 {
			x.writes(t)
		} else if len(o.operands) >= 2 {
			x.writes(o.operands[len(o.operands)-1:])
		}
		if x.name == "ln" && !o.has("-s", "--symbolic") && len(o.operands) >= 2 {
			// a hard link to a file elsewhere: writing to the link writes to it
			x.writes(o.operands[:len(o.operands)-1])
		}
	case "mv":
		o := parseOpts(args, "-t -S --target-directory --suffix")
		x.writes(append(o.operands, o.all("-t", "--target-directory")...))
		if n := len(o.operands); n >= 2 && canon(o.operands[n-1].text) == "/dev/null" {
			x.flag(catDestroy)
		}
	case "sed":
		o := parseOpts(args, "-e -f -l --expression --file --line-length")
		if o.has("-i", "--in-place") {
			ops := o.operands
			if len(o.all("-e", "--expression", "-f", "--file")) == 0 && len(ops) > 0 {
				ops = ops[1:]
			}
			x.writes(ops)
		}
	case "dd":
		for _, a := range args[1:] {
			if of, ok := strings.CutPrefix(a.text, "of="); ok {
				x.writes([]arg{{text: of, static: a.static, glob: a.glob, subst: a.subst}})
			}
		}
	case "chmod":
		x.chmod()
	case "chown", "chgrp":
		o := parseOpts(args, "--from --reference")
		targets := o.operands
		if !o.has("--reference") && len(targets) > 0 {
			targets = targets[1:]
		}
		x.outside(catOwner, targets)
	case "chattr", "setfacl":
		o := parseOpts(args, "-m -x -M -X -v -p --modify --remove --modify-file --remove-file --set --set-file")
		targets := o.operands
		if x.name == "chattr" && len(targets) > 0 && strings.IndexAny(targets[0].text, "+-=") == 0 {
			targets = targets[1:]
		}
		x.outside(catPerms, targets)
	case "rimraf":
		x.flag(catDelete)
	case "awk", "gawk", "mawk", "nawk", "busybox-awk":
		x.awk()
	case "parallel":
		x.parallel()
	case "script":
		for _, c := range parseOpts(args, "-c --command -E --echo -I -O -B -T -t --log-in --log-out --log-io --log-timing --timing --logging-format").all("-c", "--command") {
			x.code(c)
		}
	case "sg":
		x.flag(catPrivilege)
		o := parseOpts(args, "-c")
		for _, c := range o.all("-c") {
			x.code(c)
		}
		if len(o.operands) > 1 {
			x.runWords(o.operands[1:], false)
		}
	case "at", "batch":
		if !parseOpts(args, "-f -q -t -m").has("-l", "-r", "-d", "-c") {
			x.stdinCode(x.shellCode)
			for _, f := range parseOpts(args, "-f -q -t").all("-f") {
				x.script(f, x.shellCode)
			}
		}
	case "tmux":
		x.tmux()
	case "screen":
		if i := skipOpts(args, "-S -c -e -h -L -Logfile -p -s -t -T -X -x -r -R -D"); i < len(args) {
			x.nested(args[i:], x.redirs, x.via)
		}
	case "expect":
		for _, c := range parseOpts(args, "-c -f").all("-c") {
			if c.subst || expectRuns.MatchString(c.text) {
				x.flag(catInline)
			}
		}
	case "nix-shell":
		for _, c := range parseOpts(args, "-p -A -I --arg --argstr --attr --run --command --packages").all("--run", "--command") {
			x.code(c)
		}
	case "visudo", "setcap":
		x.flag(catPrivilege)
	case "useradd", "userdel", "usermod", "adduser", "deluser", "passwd", "chpasswd", "groupadd", "groupdel",
		"groupmod", "gpasswd", "chsh", "chfn", "vipw", "vigr", "dscl":
		x.flag(catAccount)
	case "crontab":
		o := parseOpts(args, "-u")
		if !o.has("-l") || o.has("-r", "-e", "-i") || len(o.operands) > 0 {
			x.flag(catSensitive)
		}
	default:
		x.system()
		x.packages()
		x.infra()
	}
}

// weakInterpreters run code the gate does not judge: a script or inline
// code given to them asks.
var weakInterpreters = map[string]bool{
	"groovy": true, "kotlin": true, "kotlinc": true, "scala": true, "julia": true, "elixir": true, "iex": true, "erl": true,
	"escript": true, "racket": true, "guile": true, "sbcl": true, "clisp": true, "ocaml": true, "tclsh": true, "wish": true,
	"jshell": true, "jjs": true, "dotnet-script": true, "R": true, "clj": true, "clojure": true, "bb": true, "nu": true,
	"pwsh": true, "powershell": true, "php-cgi": true, "gst": true, "gforth": true, "crystal": true, "nim": false,
}

// longOptions lists, per program, the long options that matter to the
// gate: GNU getopt and git accept any unambiguous abbreviation of them
// (tar --to-comm, git rebase --exe), which is expanded before judging.
var longOptions = map[string][]string{
	"tar":   {"--to-command", "--use-compress-program", "--checkpoint-action", "--info-script", "--new-volume-script", "--rsh-command", "--rmt-command", "--directory", "--file", "--absolute-names", "--create", "--append", "--update", "--extract", "--remove-files"},
	"rsync": {"--rsh", "--rsync-path", "--delete", "--remove-source-files", "--delete-after", "--delete-before", "--delete-during", "--delete-excluded"},
	"wget":  {"--method", "--post-file", "--body-file", "--post-data", "--body-data", "--output-document", "--directory-prefix", "--execute", "--output-file", "--append-output"},
	"sed":   {"--expression", "--file", "--in-place"},
	"zip":   {"--unzip-command"},
	"man":   {"--pager", "--html", "--config-file", "--preprocessor"},
	"sort":  {"--compress-program", "--output"},
	"git":   {"--exec", "--upload-pack", "--receive-pack", "--extcmd", "--output", "--force", "--hard", "--delete", "--mirror", "--prune", "--discard-changes", "--config-env", "--exec-path", "--force-with-lease", "--global", "--system", "--file"},
	"find":  nil,
}

// expandLongOptions rewrites abbreviated long options of name to their
// full spelling. An abbreviation of several is taken as the first listed:
// the gate then judges the more dangerous reading.
func expandLongOptions(name string, args []arg) []arg {
	opts := longOptions[name]
	if len(opts) == 0 {
		return args
	}
	var out []arg
	for i, a := range args {
		t := a.text
		if i == 0 || !strings.HasPrefix(t, "--") || len(t) < 5 {
			continue
		}
		n, v, hasV := strings.Cut(t, "=")
		if slices.Contains(opts, n) {
			continue
		}
		for _, full := range opts {
			if strings.HasPrefix(full, n) {
				if out == nil {
					out = slices.Clone(args)
				}
				out[i].text = full
				if hasV {
					out[i].text += "=" + v
				}
				break
			}
		}
	}
	if out == nil {
		return args
	}
	return out
}
