package bash

// Shells, interpreters and command runners: the code they run (-c strings,
// script files, here-documents, awk programs, parallel and tmux commands)
// is judged in turn.

import (
	"errors"
	"io/fs"
	"path"
	"path/filepath"
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

// interpreterArgs finds the inline code (-c, -e...) or the script operand.
func interpreterArgs(name string, args []arg) (code, file *arg, module string) {
	flags := "-c"
	switch {
	case name == "perl":
		flags = "-e -E"
	case name == "ruby" || name == "lua" || name == "Rscript" || name == "osascript":
		flags = "-e"
	case name == "node" || name == "nodejs" || name == "bun":
		flags = "-e --eval -p --print -pe"
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
		case attachedCode(name, flags, t) != "":
			// perl -e'unlink ...', python3 -c'...', python3 -Ic CODE, node --eval=...
			if c := attachedCode(name, flags, t); c != "\x00" {
				return &arg{text: c, static: args[i].static, subst: args[i].subst, word: args[i].word}, nil, ""
			}
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

// attachedCode is the code an option carries in the same word (-eCODE,
// --eval=CODE), "\x00" when a cluster of python's flags ends in -c and the
// code is the next word (-Ic CODE), or "" when t carries no code.
func attachedCode(name, flags, t string) string {
	for _, f := range strings.Fields(flags) {
		if strings.HasPrefix(f, "--") {
			if c, ok := strings.CutPrefix(t, f+"="); ok {
				return c
			}
		} else if c, ok := strings.CutPrefix(t, f); ok && c != "" {
			return c
		}
	}
	if strings.HasPrefix(name, "python") && len(t) > 2 && t[0] == '-' && t[1] != '-' {
		if before, after, ok := strings.Cut(t[1:], "c"); ok && strings.Trim(before, "bBdEhiIOPqsSuvVxR") == "" {
			if after == "" {
				return "\x00"
			}
			return after
		}
	}
	return ""
}

// moduleRunsArgs lists the standard modules that run the script or the
// code given after them.
var moduleRunsArgs = map[string]bool{"pdb": true, "cProfile": true, "profile": true, "trace": true, "timeit": true, "runpy": true, "doctest": true, "code": true}

// interpreter judges python, perl, node...: inline code, the script
// operand, python -m pip uninstall, a here-document on stdin.
func (x *command) interpreter() {
	code, file, module := interpreterArgs(x.name, x.args)
	if code == nil && (x.name == "node" || x.name == "nodejs") && parseOpts(x.args, nodeValued).has("--test") {
		x.nodeTests()
		return
	}
	switch {
	case code != nil:
		x.inlineCode(*code)
	case file != nil:
		x.script(*file, x.inlineText)
		if s, ok := scriptCommands[path.Base(file.text)]; ok { // manage.py migrate, artisan migrate:fresh
			rest := x.args[slices.IndexFunc(x.args, func(a arg) bool { return a.word == file.word && a.text == file.text }):]
			if _, quiet := s.quietSub(rest); !quiet {
				x.flag(s.cat)
			}
		}
	case module == "pip":
		if hasOperand(x.args, "uninstall") {
			x.flag(catPackage)
		}
	case moduleRunsArgs[module]:
		// python -m pdb/cProfile/trace/timeit...: the script or code it is
		// given runs (python3 -m cProfile evil.py, python3 -m timeit CODE).
		rest := x.args[slices.IndexFunc(x.args, func(a arg) bool { return a.text == module })+1:]
		for _, a := range rest {
			if strings.HasSuffix(a.text, ".py") {
				x.script(a, x.inlineText)
			} else if !strings.HasPrefix(a.text, "-") {
				x.inlineCode(a)
			}
		}
	case module != "" && module != "lint" && module != "task":
		// python -m NAME runs NAME.py or NAME/__main__.py from the working
		// directory first: a module of the project is judged by its text.
		rel := strings.ReplaceAll(module, ".", "/")
		for _, p := range []string{rel + ".py", rel + "/__main__.py"} {
			if texts, problem := x.l.scriptTexts(arg{text: p, static: true}); problem == "" {
				for _, t := range texts {
					x.inlineText(t)
				}
				break
			}
		}
	case module == "":
		x.stdinCode(x.inlineText)
	}
}

// nodeValued are node's options that take a value.
const nodeValued = "-r --require --import --loader --experimental-loader --env-file -C --conditions --input-type " +
	"--test-reporter --test-reporter-destination --test-name-pattern --test-skip-pattern --test-concurrency " +
	"--test-timeout --test-shard --test-coverage-include --test-coverage-exclude"

// maxTestWalk bounds the directory entries node --test's directories are
// searched through for their test files.
const maxTestWalk = 5000

// testExts are the extensions of the files node --test runs.
var testExts = map[string]bool{".js": true, ".mjs": true, ".cjs": true, ".ts": true, ".mts": true, ".cts": true}

// nodeTests judges node --test by the test files it runs: each file, glob
// and directory it is given (a directory's JS and TS files, outside
// node_modules and hidden directories), or, given none, the files under
// the working directory that node's default patterns name (*.test.js,
// test/**...). They are read, all of them as they are when checked, and
// judged by their text, as a script node runs. What cannot be read, or is
// too much to read, asks.
func (x *command) nodeTests() {
	ops := parseOpts(x.args, nodeValued).operands
	defaults := len(ops) == 0
	if defaults {
		ops = []arg{{text: ".", static: true}}
	}
	var texts []string
	for _, op := range ops {
		if op.static && strings.ContainsAny(op.text, "*?[") {
			op.glob = true // node expands the pattern itself
		}
		p, ok := x.l.abs(op)
		if !ok || !isDir(p) {
			t, problem := x.l.scriptTexts(op)
			if problem != "" {
				x.flagScript(problem)
				return
			}
			texts = append(texts, t...)
			continue
		}
		files, err := testFiles(p, defaults)
		if err != nil {
			x.flagScript("a directory of tests too large to read when checked")
			return
		}
		for _, f := range files {
			t, problem := x.l.scriptTexts(arg{text: f, static: true})
			if problem != "" {
				x.flagScript(problem)
				return
			}
			texts = append(texts, t...)
		}
	}
	for _, t := range texts {
		x.inlineText(t)
	}
}

// defaultTest matches the files node --test runs when given none.
var defaultTest = regexp.MustCompile(`(^|/)(test/.*|[^/]*[._-]test\.[^/]+|test-[^/]+|test\.[^/]+)$`)

// testFiles lists the JS and TS files under dir that node --test runs
// (only those defaultTest names when all is false), outside node_modules
// and hidden directories; an error when there are too many to look at.
func testFiles(dir string, defaults bool) ([]string, error) {
	seen, files := 0, []string(nil)
	err := filepath.WalkDir(dir, func(f string, d fs.DirEntry, err error) error {
		if seen++; err != nil || seen > maxTestWalk {
			return errors.Join(err, fs.ErrInvalid)
		}
		if d.IsDir() && f != dir && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
			return fs.SkipDir
		}
		if rel, _ := filepath.Rel(dir, f); !d.IsDir() && testExts[path.Ext(f)] && (!defaults || defaultTest.MatchString(rel)) {
			files = append(files, f)
		}
		return nil
	})
	return files, err
}

// inlineDanger matches interpreter one-liners that delete, move or
// truncate files, change their permissions, run commands, fork, kill, open
// raw sockets, or reach code by a name built at run time (__import__,
// getattr, eval, require(x)), which no pattern can follow.
var inlineDanger = mustAnyOf(`\.rm\s*\(|\bunlink|rmtree|os\.(remove|unlink|rmdir|removedirs|system|popen|exec|spawn|kill)|subprocess|shutil\.(move|rmtree)|\bunlink\b|\bfork\b|child_process|exec(Sync|File)?\s*\(|spawn(Sync)?\s*\(|\bsystem\s*\(|fs\.(rm|unlink|rmdir)|rmSync|rimraf|FileUtils\.rm|File\.delete|Dir\.delete|qx[({/]|` + "`" + `|\bkill\s*\(|Deno\.(remove|run|Command)|Bun\.spawn|\.unlink\(|\.rmdir\(|do shell script`)

// inlineDangerMore is the rest of inlineDanger: one regular expression of
// both is too large for Go's fast matcher on most scripts.
var inlineDangerMore = mustAnyOf(`__import__|getattr\s*\(|importlib|__builtins__|\beval\s*\(|\bcompile\s*\(|\bFunction\s*\(|process\.binding|\bimport\s*\(|` +
	`\bsystem\b|\bexec\b|\bkill\b|\brmdir\b|remove_tree|\brename|\btruncate|\bchmod|\bchown|os\.(replace|killpg|symlink|link)\b|FileUtils\.|Open3|%x[\[({|]|\bpopen|passthru|proc_open|pcntl_exec|\bsocket\b|pty\.spawn|dup2`)

// inlineWrites matches interpreter one-liners that write files.
var inlineWrites = mustAnyOf(`(?i)write|open\s*\(|fopen|file_put_contents|spit|>>?\s*\$?\w|IO\.|Files\.|fs\.|copy|rename|move`)

// inlineDangerSpans are the patterns of inlineDanger that span words
// (require(x), require("a" + b), perl's open F, "|cmd"): slow to look
// for, they are looked for only in code that names require or open.
var inlineDangerSpans = mustAnyOf(`require\s*\(\s*[^"'\s)]|require\s*\(\s*["'][^"']*["']\s*\+|\bopen\b[^;]*\|`)

// inlinePath matches the string literals of a one-liner that name a path
// away from the working directory: "/etc/x", '~/.x', "../x", perl's
// ">../x"; inlineFileWrite the one-liners that write a file.
var (
	inlinePath      = regexp.MustCompile(`["'][+<>]*\s*((?:/|~|\.\./)[^"'\s]*)["']`)
	inlineFileWrite = mustAnyOf(`["'][rbt]*[wax+][rwabxt+]*["']|["']\+?>|write_text|write_bytes|writeFile|appendFile|createWriteStream|File\.(write|open)|file_put_contents|fopen|\.touch\(|copy|move|spit|\bunlink`)
)

// inlineCode judges an interpreter one-liner. One that writes files and
// names a path outside the working directory asks: that path may be where
// it writes (open("../x", "w")).
func (x *command) inlineCode(a arg) {
	if a.word == nil {
		x.ran = a.text // from a file or a pipe: an approval is of this code
	}
	if a.subst || inlineWrites.MatchString(a.text) {
		x.l.dirty = x.name + " code"
	}
	switch {
	case a.subst:
		x.substCode(a)
	case inlineDanger.MatchString(a.text), inlineDangerMore.MatchString(a.text),
		(strings.Contains(a.text, "require") || strings.Contains(a.text, "open")) && inlineDangerSpans.MatchString(a.text):
		x.flag(catInline)
	case inlineFileWrite.MatchString(a.text):
		for _, m := range inlinePath.FindAllStringSubmatch(a.text, -1) {
			if t := (arg{text: m[1], static: true}); x.l.writeRisk(t.text) != "" || x.l.writesOutside(t) {
				x.flag(catOutside)
				return
			}
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
