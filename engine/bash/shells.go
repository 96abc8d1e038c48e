package bash

// Shells and command runners: the code they run (-c strings,
// script files, here-documents, awk programs, parallel and tmux commands)
// is judged in turn.

import (
	"regexp"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

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
	if files := o.all("-f", "--file", "-E", "--exec", "-i", "--include"); len(files) > 0 {
		for _, f := range files {
			x.script(f, func(text string) { x.awkProgram(arg{text: text, static: true}) })
		}
		return
	}
	if len(o.all("-l", "--load")) > 0 {
		x.flag(catOptionCode) // a shared library extension
	}
	if len(o.operands) == 0 {
		return
	}
	x.awkProgram(o.operands[0])
}

// awkOutput matches awk's print and printf into a file named by a string;
// awkAnyOutput into a file named by an expression (print > f).
var (
	awkOutput    = regexp.MustCompile(`\bprintf?\b[^;}]*?>>?\s*"([^"]+)"`)
	awkAnyOutput = regexp.MustCompile(`\bprintf?\b(\s*\([^)]*\))?[^;}>(]*>>?\s*[^"\s>]`)
)

// awkProgram judges the commands an awk program runs.
func (x *command) awkProgram(prog arg) {
	for _, m := range awkOutput.FindAllStringSubmatch(prog.text, -1) {
		x.writes([]arg{{text: m[1], static: true}})
	}
	if awkAnyOutput.MatchString(prog.text) {
		x.flag(catUnknownPath)
	}
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
	sub := &command{l: x.l, args: args, name: x.name, depth: x.depth, via: "parallel", disp: x.disp}
	if i < end {
		sub.runWords(args[i:end], false)
		for _, a := range args[end:] { // each input is appended (or put at {}): judged as run
			if !strings.HasPrefix(a.text, ":::") {
				sub.runWords(append(slices.Clone(args[i:end]), a), false)
			}
		}
		if end == len(args) && !anyOptions[commandBase(args[i].text)] {
			sub.flag(catDynamicOption) // inputs from stdin
		}
	} else { // no command: every input is a command line
		for _, a := range args[end:] {
			if !strings.HasPrefix(a.text, ":::") && !strings.HasPrefix(a.text, "::::") {
				sub.runWords([]arg{a}, false)
			}
		}
		if end == len(args) {
			sub.flag(catDynamicCode) // inputs from stdin
		}
	}
	x.local = append(x.local, sub.local...)
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
		x.flagScript(problem)
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

// shellArgs splits a shell's arguments: the -c code, a script file, or
// neither (it reads its script from stdin).
func shellArgs(args []arg) (code, file *arg, stdin bool) {
	code, file, stdin, _ = shellArgsRC(args)
	return code, file, stdin
}

// shellArgsRC is shellArgs with the startup file of --rcfile/--init-file.
func shellArgsRC(args []arg) (code, file *arg, stdin bool, rc *arg) {
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
			if (t == "--rcfile" || t == "--init-file") && i < len(args) {
				rc = &args[i]
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
		return first, nil, false, rc
	case first != nil && !sflag:
		return nil, first, false, rc
	}
	return nil, nil, true, rc
}

// shell judges bash, sh... by what they run: -c code, a script file, or
// a here-document on stdin.
func (x *command) shell() {
	code, file, stdin, rc := shellArgsRC(x.args)
	if code == nil && x.via != "" && hasCFlag(x.args) {
		x.flag(catDynamicCode) // xargs sh -c: the code is the input
	}
	if rc != nil {
		x.script(*rc, x.shellCode)
	}
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
	case "perl", "ruby", "node", "nodejs", "php", "lua", "Rscript", "bun", "deno", "osascript", "pypy", "pypy3",
		"ts-node", "tsx", "esno", "esr", "vite-node", "luajit":
		return true
	}
	return strings.HasPrefix(name, "python")
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

// hasCFlag reports a shell's -c option (alone or in a cluster).
func hasCFlag(args []arg) bool {
	for _, a := range args[1:] {
		t := a.text
		if !strings.HasPrefix(t, "-") || strings.HasPrefix(t, "--") {
			break
		}
		if strings.Contains(t, "c") {
			return true
		}
	}
	return false
}
