package bash

import (
	"path"
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
}

// flag records a finding about this command in category.
// A command after a cd is told, and remembered, with its directory: an
// approval of rm -f passwd in the project is none for cd /etc; rm -f passwd.
func (x *command) flag(category string) {
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
	x.local = append(x.local, finding{action: ActionConfirm, reason: category + ": " + abbreviate(d), key: key, why: why})
}

// judgeAll judges one simple command: a path run as a program by what it
// is on disk, what it aims at, its own category judgments, the code its
// options carry, where it writes, and whether the program (and its
// subcommand) is known at all.
func (x *command) judgeAll() {
	if x.resolveProgram() {
		return
	}
	x.hostTargets()
	x.judge()
	x.lookThrough()
	x.workspace()
	if len(x.local) == 0 {
		x.knownProgram()
	}
}

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
		if r.Op == syntax.RdrIn && r.Word != nil && leaksHome(x.l.word(r.Word).text) {
			return true
		}
	}
	return false
}

// unwrap returns the command a wrapper runs (sudo, env, nice, timeout...).
// ok is false for commands that are not wrappers; inner is empty when the
// wrapper runs nothing (command -v, sudo -i).
func unwrap(name string, args []arg) (inner []arg, ok bool) {
	at := func(i int) []arg { return args[min(i, len(args)):] }
	o := func(valued string) opts { return parseOpts(args, valued) }
	switch name {
	case "sudo":
		return at(skipAssigns(args, skipOpts(args, "-u -g -h -C -p -r -t -T -D -U -R --user --group --host --close-from --prompt --role --type --command-timeout --chdir --other-user --chroot"))), true
	case "doas":
		return at(skipOpts(args, "-u -C")), true
	case "pkexec":
		return at(skipOpts(args, "--user")), true
	case "env":
		if o("-S --split-string").has("-S", "--split-string") {
			return nil, false // runs a string: judged as code
		}
		return at(skipAssigns(args, skipOpts(args, "-u -C -P --unset --chdir"))), true
	case "nohup", "builtin", "setsid", "unbuffer", "proxychains", "proxychains4", "torsocks", "catchsegv", "nsenter", "unshare", "firejail",
		"fakeroot", "caffeinate", "dbus-run-session", "dbus-launch", "valgrind", "npx", "pnpx", "bunx", "uvx", "pipx-run", "nix-run":
		return at(skipOpts(args, "-t -S -G --target --setuid --setgid")), true
	case "timeout":
		return at(skipOpts(args, "-s -k --signal --kill-after") + 1), true
	case "nice":
		return at(skipOpts(args, "-n --adjustment")), true
	case "ionice":
		if o("-c -n -p --class --classdata --pid").has("-p", "--pid") {
			return nil, true
		}
		return at(skipOpts(args, "-c -n --class --classdata")), true
	case "chrt":
		if o("").has("-p", "--pid") {
			return nil, true
		}
		return at(skipOpts(args, "-T -P -D --sched-runtime --sched-period --sched-deadline") + 1), true
	case "taskset":
		if o("").has("-p", "--pid") {
			return nil, true
		}
		return at(skipOpts(args, "") + 1), true
	case "command":
		if o("").has("-v", "-V") {
			return nil, true
		}
		return at(skipOpts(args, "")), true
	case "exec":
		return at(skipOpts(args, "-a")), true
	case "time":
		return at(skipOpts(args, "-f -o --format --output")), true
	case "stdbuf":
		return at(skipOpts(args, "-i -o -e --input --output --error")), true
	case "chroot":
		return at(skipOpts(args, "--userspec --groups") + 1), true
	case "busybox":
		return at(1), true
	case "strace", "ltrace":
		return at(skipOpts(args, "-o -e -p -s -u -E -a -I -b -P -S -X -O")), true
	case "systemd-run":
		return at(skipOpts(args, "-u -p -E -M -H -t -q -G -d --unit --property --setenv --machine --host --description --slice --uid --gid --working-directory --on-calendar --on-active --timer-property --service-type --nice --same-dir")), true
	case "bundle", "poetry", "pipenv", "pdm", "hatch", "rye", "uv", "conda", "mamba", "micromamba", "npm", "pnpm", "yarn", "mise", "asdf", "direnv", "dotenv", "doppler", "op", "aws-vault", "nix":
		// bundle exec CMD, poetry run CMD, direnv exec DIR CMD...: the
		// subcommand that runs the rest; any other subcommand is no wrapper.
		i := skipOpts(args, "-n -p --name --prefix -C --cwd --dir --directory --env --project")
		if i >= len(args) {
			return nil, false
		}
		switch sub := args[i].text; {
		case sub == "exec" && name != "doppler" || sub == "run" && name != "npm" && name != "pnpm" && name != "yarn" && name != "nix" || sub == "dlx" || sub == "x":
		case sub == "develop" && name == "nix" || sub == "shell" && name == "nix":
			j := i + 1
			for j < len(args) && args[j].text != "-c" && args[j].text != "--command" {
				j++
			}
			return at(j + 1), true
		default:
			return nil, false
		}
		inner := args[i+1:]
		inner = inner[min(skipOpts(append([]arg{{}}, inner...), "-n -p -e --name --prefix --env --env-file --with --python --config")-1, len(inner)):]
		switch name {
		case "direnv":
			inner = inner[min(1, len(inner)):] // direnv exec DIR CMD
		case "mise", "asdf", "aws-vault", "op", "doppler":
			for k, a := range inner { // mise exec node@20 -- CMD
				if a.text == "--" {
					return inner[k+1:], true
				}
			}
			if name == "aws-vault" {
				inner = inner[min(1, len(inner)):] // aws-vault exec PROFILE CMD
			}
		}
		return inner, true
	case "xvfb-run":
		return at(skipOpts(args, "-n -s -f -e -w -p --server-num --server-args --auth-file --error-file --wait")), true
	}
	return nil, false
}

// judge applies the built-in categories to one simple command.
func (x *command) judge() {
	args := x.args
	if inner, ok := unwrap(x.name, args); ok {
		switch x.name {
		case "sudo", "doas", "pkexec", "chroot", "nsenter", "unshare":
			x.flag(catPrivilege)
		case "systemd-run": // a system service runs as root
			if !parseOpts(args, "").has("--user") {
				x.flag(catPrivilege)
			}
		}
		if len(inner) > 0 {
			x.nested(inner, x.redirs, x.via)
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
		x.eval()
	case "source", ".":
		if ops := parseOpts(args, "").operands; len(ops) > 0 {
			x.script(ops[0], x.shellCode)
		}
	case "alias":
		for _, a := range args[1:] {
			if _, val, ok := strings.Cut(a.text, "="); ok {
				x.code(arg{text: val, static: a.static, subst: a.subst, word: a.word})
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
	case "rclone":
		x.rclone()
	case "nc", "ncat", "netcat", "socat", "telnet":
		x.netcat()
	case "openssl":
		if x.stdinSecret() {
			x.flag(catExfil)
		}
	case "mail", "mailx", "mutt", "sendmail", "s-nail":
		if x.stdinSecret() || anyLeak(parseOpts(args, "-a -A -s -c -b -r").all("-a", "-A")) {
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

// expectRuns matches expect scripts that start programs.
var expectRuns = regexp.MustCompile(`\b(spawn|exec|system)\b`)

// awkCall matches the commands an awk program runs: system("..."),
// print | "...", "..." | getline. A call whose command is not one string
// literal is code not known statically.
var (
	awkLiteralCall = regexp.MustCompile(`system\s*\(\s*"((?:[^"\\]|\\.)*)"\s*\)|\|&?\s*"((?:[^"\\]|\\.)*)"|"((?:[^"\\]|\\.)*)"\s*\|&?\s*getline`)
	awkAnyCall     = regexp.MustCompile(`\bsystem\s*\(|\bprintf?\b[^;}]*[^|]\|&?\s*[^|\s]|[^|]\|&?\s*getline`)
)

// awk judges the commands an awk program runs.
func (x *command) awk() {
	o := parseOpts(x.args, "-f -v -F -i -l -E --file --assign --field-separator --include --load --exec")
	if len(o.all("-f", "--file", "-E", "--exec")) > 0 || len(o.operands) == 0 {
		return
	}
	prog := o.operands[0]
	if prog.subst {
		x.substCode(prog)
		return
	}
	rest := prog.text
	for _, m := range awkLiteralCall.FindAllStringSubmatch(prog.text, -1) {
		cmd := strings.ReplaceAll(m[1]+m[2]+m[3], `\"`, `"`)
		x.shellCode(cmd)
		rest = strings.Replace(rest, m[0], " ", 1)
		// print ... | "sh": what the program prints is run as code.
		if words := strings.Fields(cmd); m[2] != "" && len(words) > 0 {
			as := make([]arg, len(words))
			for i, w := range words {
				as[i] = arg{text: w, static: true}
			}
			if readsCode(commandBase(words[0]), x.l.effective(as)) || readsCode(commandBase(words[0]), as) {
				x.flag(catDynamicCode)
			}
		}
	}
	if awkAnyCall.MatchString(rest) {
		x.flag(catDynamicCode)
	}
}

// parallel judges GNU parallel: the command before ::: runs once per input,
// through a shell.
func (x *command) parallel() {
	args := x.args
	end := len(args)
	for i, a := range args {
		if strings.HasPrefix(a.text, ":::") {
			end = i
			break
		}
	}
	i := skipOpts(args[:end], "-j -S -P -n -N -L -l -E -I -X -d -a -C -s --jobs --sshlogin --max-args --max-replace-args "+
		"--delimiter --arg-file --colsep --tmpdir --workdir --results --joblog --timeout --delay --retries --halt --memfree "+
		"--load --tagstring --env --basefile --return --transferfile --max-chars --sshloginfile")
	if i < end {
		sub := &command{l: x.l, args: args, name: x.name, depth: x.depth, via: "parallel", disp: x.disp}
		sub.runWords(args[i:end], false)
		x.local = append(x.local, sub.local...)
	}
}

// tmux judges the shell commands of new-session, new-window, split-window,
// respawn-pane, run-shell and send-keys.
func (x *command) tmux() {
	i := skipOpts(x.args, "-L -S -f -c -T")
	for i < len(x.args) {
		sub := x.args[i:]
		end := len(sub)
		for k, a := range sub {
			if k > 0 && (a.text == ";" || a.text == `\;`) {
				end = k
				break
			}
		}
		switch sub[0].text {
		case "new-session", "new", "new-window", "neww", "split-window", "splitw", "respawn-pane", "respawnp", "respawn-window", "respawnw", "run-shell", "run":
			x.runWords(sub[skipOpts(sub[:end], "-c -e -F -n -s -t -x -y -l -p"):end], false)
		case "send-keys", "send":
			x.runWords(sub[skipOpts(sub[:end], "-t -N"):end], false)
		}
		i += end + 1
	}
}

// runWords judges words that a command joins and runs as shell code
// (watch, ssh), or runs as a command when exec is set (watch -x).
func (x *command) runWords(ops []arg, exec bool) {
	if len(ops) == 0 {
		return
	}
	if exec {
		x.nested(ops, nil, x.via)
		return
	}
	var texts []string
	for _, a := range ops {
		if a.subst {
			x.substCode(a)
			return
		}
		texts = append(texts, a.text)
	}
	x.l.c.script(strings.Join(texts, " "), x.depth+1)
}

// script judges a script file operand (bash FILE, source FILE, python FILE):
// harmless when it is a file, but not when it is a download, and judged by
// its text when the line wrote it (echo 'rm -rf ~' > s.sh; sh s.sh).
// /dev/stdin and the like mean the here-document is the script.
func (x *command) script(a arg, judge func(text string)) {
	switch {
	case a.subst:
		x.substCode(a)
		return
	case x.l.downloaded[canon(a.text)]:
		x.flag(catDownloadExec)
		return
	case isStdinPath(a.text):
		x.stdinCode(judge)
		return
	}
	texts, problem := x.l.scriptTexts(a)
	if problem != "" {
		x.flag(catScript)
		return
	}
	for _, t := range texts {
		judge(t)
	}
}

// isStdinPath reports file names that read standard input.
func isStdinPath(p string) bool {
	switch p {
	case "-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0":
		return true
	}
	return false
}

// shellCode judges text a shell runs.
func (x *command) shellCode(text string) { x.l.c.script(text, x.depth+1) }

// inlineText judges text an interpreter runs.
func (x *command) inlineText(text string) { x.inlineCode(arg{text: text, static: true}) }

// eval judges its words joined, as the shell does.
func (x *command) eval() {
	var texts []string
	for _, a := range x.args[1:] {
		if a.subst {
			x.substCode(a)
			return
		}
		texts = append(texts, a.text)
	}
	if len(texts) > 0 {
		x.l.c.script(strings.Join(texts, " "), x.depth+1)
	}
}

// find judges -delete and the commands of -exec, -execdir, -ok, -okdir.
// In those commands {} stands for the files found: when find starts
// elsewhere than the working directory, they are judged with the start
// paths in its place (find / -exec chmod 777 {} +).
func (x *command) find() {
	args := x.args
	var starts []arg
	i := 1
	for i < len(args) && (args[i].text == "-H" || args[i].text == "-L" || args[i].text == "-P") {
		i++
	}
	for ; i < len(args); i++ {
		t := args[i].text
		if strings.HasPrefix(t, "-") || t == "(" || t == "!" || t == "," {
			break
		}
		if c := canon(x.l.resolve(t)); c != "." {
			starts = append(starts, arg{text: c, static: args[i].static, glob: args[i].glob, subst: args[i].subst, word: args[i].word})
		}
	}
	for i := 1; i < len(args); i++ {
		switch t := args[i].text; t {
		case "-delete":
			x.flag(catDelete)
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && args[j].text != ";" && args[j].text != "+" {
				j++
			}
			target := args[i+1 : j]
			if len(starts) > 0 && len(target) > 1 {
				var spliced []arg
				for k, a := range target {
					if k > 0 && a.text == "{}" {
						spliced = append(spliced, starts...)
					} else {
						spliced = append(spliced, a)
					}
				}
				target = spliced
			}
			x.nested(target, nil, "find "+t)
			i = j
		case "-fprint", "-fprint0", "-fls", "-fprintf":
			if i+1 < len(args) {
				x.writes(args[i+1 : i+2])
			}
		}
	}
}

// shellArgs splits a shell's arguments: the -c code, a script file, or
// neither (it reads its script from stdin).
func shellArgs(args []arg) (code, file *arg, stdin bool) {
	cflag, sflag := false, false
	i := 1
	for i < len(args) {
		t := args[i].text
		if t == "--" || t == "-" {
			sflag = sflag || t == "-"
			i++
			break
		}
		if len(t) < 2 || t[0] != '-' && t[0] != '+' {
			break
		}
		i++
		if strings.HasPrefix(t, "--") {
			if t == "--rcfile" || t == "--init-file" {
				i++
			}
			continue
		}
		for k := 1; k < len(t); k++ {
			switch t[k] {
			case 'c':
				cflag = true
			case 's':
				sflag = true
			case 'o', 'O':
				if k == len(t)-1 {
					i++
				}
			}
		}
	}
	var first *arg
	if i < len(args) {
		first = &args[i]
	}
	switch {
	case cflag:
		return first, nil, false
	case first != nil && !sflag:
		return nil, first, false
	}
	return nil, nil, true
}

// shell judges bash, sh... by what they run: -c code, a script file, or
// a here-document on stdin.
func (x *command) shell() {
	code, file, stdin := shellArgs(x.args)
	switch {
	case code != nil:
		x.code(*code)
	case file != nil:
		x.script(*file, x.shellCode)
	case stdin:
		x.stdinCode(x.shellCode)
	}
}

// stdinCode judges a here-document or here-string fed to a command that
// runs its stdin as code.
func (x *command) stdinCode(judge func(text string)) {
	for _, r := range x.redirs {
		var w *syntax.Word
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			w = r.Hdoc
		case syntax.WordHdoc:
			w = r.Word
		}
		if w != nil {
			if a := x.l.word(w); a.subst {
				x.substCode(a)
				return
			}
		}
	}
	if text, ok := x.l.stdinText(x.redirs); ok {
		judge(text)
		return
	}
	for _, r := range x.redirs { // bash < x.sh
		if r.Op == syntax.RdrIn && r.Word != nil && (r.N == nil || r.N.Value == "0") {
			x.script(x.l.word(r.Word), judge)
		}
	}
}

// interpreterArgs finds the inline code (-c, -e...) or the script operand.
func interpreterArgs(name string, args []arg) (code, file *arg, module string) {
	flags := "-c"
	switch {
	case name == "perl":
		flags = "-e -E"
	case name == "ruby" || name == "lua" || name == "Rscript" || name == "osascript":
		flags = "-e"
	case name == "node" || name == "nodejs" || name == "bun":
		flags = "-e --eval -p --print"
	case name == "deno":
		if len(args) > 2 && args[1].text == "eval" {
			return &args[2], nil, ""
		}
		flags = ""
	case name == "php":
		flags = "-r"
		if hasOperand(args, "-l") || hasOperand(args, "--syntax-check") {
			return nil, nil, "lint" // checks syntax, runs nothing
		}
	}
	if (name == "deno" || name == "bun") && len(args) > 1 && !strings.HasPrefix(args[1].text, "-") {
		switch args[1].text {
		case "run":
			// deno run FILE; bun run FILE or a package.json script
			if i := skipOpts(args[1:], "--allow-read --allow-write --allow-net --allow-env --allow-run --config -c --import-map --cwd"); i < len(args)-1 {
				if f := &args[i+1]; name == "deno" || strings.Contains(path.Base(f.text), ".") {
					return nil, f, ""
				}
			}
			return nil, nil, "task"
		default:
			if !strings.Contains(args[1].text, ".") && !strings.Contains(args[1].text, "/") {
				return nil, nil, "task" // deno test, bun install: a subcommand, not a script
			}
		}
	}
	perlish := name == "perl" || name == "ruby"
	for i := 1; i < len(args); i++ {
		t := args[i].text
		switch {
		case perlish && len(t) > 2 && t[0] == '-' && t[1] != '-' && (strings.HasSuffix(t, "e") || strings.HasSuffix(t, "E")) && strings.Trim(t[1:], "lnpaisFwWtTuUcCdDxX0123456789eE") == "":
			// -ne, -pe, -lane: a cluster that ends in the code flag
			if i+1 < len(args) {
				return &args[i+1], nil, ""
			}
			return nil, nil, ""
		case hasWord(flags, t):
			if i+1 < len(args) {
				return &args[i+1], nil, ""
			}
			return nil, nil, ""
		case t == "-m" && strings.HasPrefix(name, "python"):
			if i+1 < len(args) {
				return nil, nil, args[i+1].text
			}
		case t == "-" || t == "--":
			return nil, nil, ""
		case !strings.HasPrefix(t, "-"):
			return nil, &args[i], ""
		}
	}
	return nil, nil, ""
}

// interpreter judges python, perl, node...: inline code, the script
// operand, python -m pip uninstall, a here-document on stdin.
func (x *command) interpreter() {
	code, file, module := interpreterArgs(x.name, x.args)
	switch {
	case code != nil:
		x.inlineCode(*code)
	case file != nil:
		x.script(*file, x.inlineText)
		if s, ok := scriptCommands[path.Base(file.text)]; ok { // manage.py migrate, artisan migrate:fresh
			rest := x.args[slices.IndexFunc(x.args, func(a arg) bool { return a.word == file.word && a.text == file.text }):]
			if sub, quiet := s.quietSub(rest); !quiet {
				_ = sub
				x.flag(s.cat)
			}
		}
	case module == "pip":
		if hasOperand(x.args, "uninstall") {
			x.flag(catPackage)
		}
	case module == "":
		x.stdinCode(x.inlineText)
	}
}

// inlineDanger matches interpreter one-liners that delete files, run
// commands or fork.
var inlineDanger = regexp.MustCompile(`rmtree|os\.(remove|unlink|rmdir|removedirs|system|popen|exec|spawn|kill)|subprocess|shutil\.(move|rmtree)|\bunlink\b|\bfork\b|child_process|exec(Sync|File)?\s*\(|spawn(Sync)?\s*\(|\bsystem\s*\(|fs\.(rm|unlink|rmdir)|rmSync|rimraf|FileUtils\.rm|File\.delete|Dir\.delete|qx[({/]|` + "`" + `|\bkill\s*\(|Deno\.(remove|run|Command)|Bun\.spawn|\.unlink\(|\.rmdir\(|do shell script`)

// inlineCode judges an interpreter one-liner.
func (x *command) inlineCode(a arg) {
	switch {
	case a.subst:
		x.substCode(a)
	case inlineDanger.MatchString(a.text):
		x.flag(catInline)
	}
}

// chmod judges setuid/setgid modes and targets outside the working directory.
func (x *command) chmod() {
	o := parseOpts(x.args, "--reference")
	ops := o.operands
	mode, modeAsFlag := "", false
	for f := range o.flags { // chmod -x file: the mode looks like a flag
		if len(f) == 2 && strings.ContainsAny(f[1:], "rwxXstugoa") {
			modeAsFlag = true
		}
	}
	if !modeAsFlag && !o.has("--reference") && len(ops) > 0 {
		mode, ops = ops[0].text, ops[1:]
	}
	if setuidMode(mode) {
		x.flag(catPrivilege)
	}
	x.outside(catPerms, ops)
}

// setuidMode reports a chmod mode that sets the setuid or setgid bit.
func setuidMode(m string) bool {
	if len(m) >= 4 && strings.Trim(m, "01234567") == "" {
		d := m[len(m)-4] - '0'
		return d&6 != 0
	}
	for _, clause := range strings.Split(m, ",") {
		if i := strings.IndexAny(clause, "+="); i >= 0 && strings.Contains(clause[i:], "s") {
			return true
		}
	}
	return false
}

// outside flags category when any target may be outside the working directory.
func (x *command) outside(category string, targets []arg) {
	for _, t := range targets {
		t.text = x.l.resolve(t.text)
		if outsideDir(t, x.l.c.dir) {
			x.flag(category)
			return
		}
	}
}

// git judges history rewrites and discarded work: push --force/--delete,
// reset --hard, clean -f, checkout -f / -- ., branch -D, stash clear...
func (x *command) git() {
	args := x.args
	i := 1
	for i < len(args) {
		t := args[i].text
		if t == "-C" || t == "-c" || t == "--git-dir" || t == "--work-tree" || t == "--namespace" {
			i += 2
			continue
		}
		if !strings.HasPrefix(t, "-") {
			break
		}
		i++
	}
	if i >= len(args) {
		return
	}
	sub := args[i].text
	rest := args[i:]
	o := parseOpts(rest, "-m -F -C -c -o --message --file --author --date --push-option --repo --receive-pack --exec --upload-pack")
	ops := o.operands
	dangerous := false
	switch sub {
	case "push":
		dangerous = o.has("-f", "--force", "--force-with-lease", "--force-if-includes", "-d", "--delete", "--mirror", "--prune")
		for _, op := range ops {
			if strings.HasPrefix(op.text, "+") || strings.HasPrefix(op.text, ":") {
				dangerous = true
			}
		}
	case "reset":
		dangerous = o.has("--hard", "--merge", "--keep")
	case "clean":
		dangerous = o.has("-f", "--force") && !o.has("-n", "--dry-run")
	case "checkout":
		dangerous = o.has("-f", "--force") || hasOperand(rest, "--") && len(ops) > 0 || hasOperand(rest, ".")
	case "restore":
		dangerous = !o.has("-S", "--staged") || o.has("-W", "--worktree")
	case "branch":
		dangerous = o.has("-D") || o.has("-d", "--delete") && o.has("-f", "--force")
	case "stash":
		dangerous = o.operand(0) == "drop" || o.operand(0) == "clear"
	case "reflog":
		dangerous = o.operand(0) == "expire" || o.operand(0) == "delete"
	case "gc":
		for _, p := range o.all("--prune") {
			dangerous = dangerous || p.text == "now" || p.text == "all"
		}
	case "filter-branch", "filter-repo":
		dangerous = true
	case "update-ref":
		dangerous = o.has("-d")
	}
	if dangerous {
		x.flag(catGit)
	}
}

// isShell reports command names of shells that take -c and read scripts.
func isShell(name string) bool {
	switch name {
	case "bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "fish", "yash", "tcsh", "csh", "rbash":
		return true
	}
	return false
}

// isInterpreter reports language runtimes that run inline code or stdin.
func isInterpreter(name string) bool {
	switch name {
	case "perl", "ruby", "node", "nodejs", "php", "lua", "Rscript", "bun", "deno", "osascript", "pypy", "pypy3":
		return true
	}
	return strings.HasPrefix(name, "python")
}

// isDownloader reports commands that fetch from the network.
func isDownloader(name string) bool {
	switch name {
	case "curl", "wget", "fetch", "aria2c", "http", "https", "xh", "lwp-download", "GET", "axel":
		return true
	}
	return false
}

// isDatabaseClient reports database command-line clients.
func isDatabaseClient(name string) bool {
	switch name {
	case "psql", "mysql", "mariadb", "sqlite3", "sqlite", "sqlcmd", "mongo", "mongosh", "redis-cli",
		"clickhouse-client", "cqlsh", "duckdb", "cockroach", "dropdb", "dropuser", "mysqladmin":
		return true
	}
	return false
}

// isNetworkSender reports commands that can send their stdin off the machine.
func isNetworkSender(name string) bool {
	switch name {
	case "nc", "ncat", "netcat", "socat", "telnet", "ssh", "curl", "wget", "http", "https", "xh",
		"mail", "mailx", "mutt", "sendmail", "openssl", "s-nail":
		return true
	}
	return false
}

// readsCode reports whether a pipeline stage runs its stdin as code.
func readsCode(name string, args []arg) bool {
	switch {
	case isShell(name):
		_, _, stdin := shellArgs(args)
		return stdin
	case isInterpreter(name):
		code, file, module := interpreterArgs(name, args)
		return code == nil && module == "" && (file == nil || file.text == "/dev/stdin")
	case name == "source" || name == ".":
		ops := parseOpts(args, "").operands
		return len(ops) > 0 && isStdinPath(ops[0].text)
	case name == "at" || name == "batch":
		return !parseOpts(args, "-f -q -t").has("-f", "-l", "-r", "-d", "-c")
	}
	return false
}
