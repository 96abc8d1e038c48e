package bash

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Look through to what runs: options and config values of ordinary
// programs that carry shell code (git -c core.pager=..., ssh -o
// ProxyCommand=..., rsync -e, tar --to-command, vim -c '!...', less +!,
// sed's e and w commands, make -f /dev/stdin, gdb -ex 'shell ...') are
// parsed and judged like bash -c; a program they name is judged as run.

// lookThrough judges the code a command's options carry.
func (x *command) lookThrough() {
	switch x.name {
	case "env", "sudo", "doas":
		for _, a := range x.args[1:] {
			if isAssignWord(a.text) {
				x.l.envWord(a, x.disp)
			}
		}
	case "export", "declare", "typeset", "local", "readonly":
		// assignments in declarations are judged from the syntax tree (envAssign)
	case "git":
		x.gitCode()
	case "ssh", "scp", "sftp", "autossh", "sshfs":
		x.sshCode()
	case "rsync":
		o := parseOpts(x.args, "-e --rsh --rsync-path")
		for _, v := range o.all("-e", "--rsh", "--rsync-path") {
			x.code(v)
		}
	case "tar", "bsdtar", "gtar":
		x.tarCode()
	case "vim", "vi", "nvim", "view", "vimdiff", "gvim", "ex", "rvim", "nvi", "evim":
		x.vimCode()
	case "less", "more", "most":
		for _, a := range x.args[1:] {
			if strings.HasPrefix(a.text, "+") && strings.Contains(a.text, "!") || strings.HasPrefix(a.text, "-o") || strings.HasPrefix(a.text, "--log-file") || strings.HasPrefix(a.text, "-O") {
				x.flag(catOptionCode)
				return
			}
		}
	case "sed", "gsed":
		x.sedCode()
	case "make", "gmake":
		x.makeCode()
		x.makeTargets()
	case "gdb", "lldb":
		x.gdbCode()
	case "zip":
		for i, a := range x.args {
			if (a.text == "-TT" || a.text == "--unzip-command") && i+1 < len(x.args) {
				x.code(x.args[i+1])
			} else if v, ok := strings.CutPrefix(a.text, "--unzip-command="); ok {
				x.code(arg{text: v, static: a.static, subst: a.subst, word: a.word})
			}
		}
	case "man":
		o := parseOpts(x.args, "-P -H -C -M -S -e -m -p -L -R -E --pager --html --config-file --manpath --sections --extension --systems --preprocessor --locale --recode --encoding")
		for _, v := range o.all("-P", "--pager", "-H", "--html") {
			x.code(v)
		}
		if len(o.all("-C", "--config-file", "-p", "--preprocessor")) > 0 {
			x.flag(catOptionCode) // a config file can set the pager; preprocessors are programs
		}
	case "sort":
		for _, v := range parseOpts(x.args, "--compress-program -o -k -t -S -T").all("--compress-program") {
			x.nested([]arg{v}, nil, x.via)
		}
	case "emacs", "emacsclient":
		o := parseOpts(x.args, "--eval -eval -l --load -f --funcall --script -x --insert -L --directory -t --chdir")
		for _, v := range o.all("--eval", "-eval") {
			if v.subst || emacsRuns.MatchString(v.text) {
				x.flag(catOptionCode)
			}
		}
		if len(o.all("-l", "--load", "--script", "-x", "-f", "--funcall")) > 0 {
			x.flag(catOptionCode)
		}
	case "cmake":
		x.cmakeCode()
	case "concurrently":
		for _, op := range parseOpts(x.args, "-n -c -p -k -s -r -P -i -l -t --names --prefix-colors --prefix --kill-others --success --restart-tries --restart-after --max-processes --timestamp-format --default-input-target --handle-input --name-separator --passthrough-arguments").operands {
			if strings.HasPrefix(op.text, "npm:") || strings.HasPrefix(op.text, "yarn:") || strings.HasPrefix(op.text, "pnpm:") || strings.HasPrefix(op.text, "bun:") {
				pm, script, _ := strings.Cut(op.text, ":")
				x.nested([]arg{{text: pm, static: true}, {text: "run", static: true}, {text: script, static: op.static}}, nil, x.via)
				continue
			}
			x.code(op)
		}
	case "npm-run-all", "npm-run-all2", "run-s", "run-p":
		for _, op := range parseOpts(x.args, "-c -l -n -p -r -s --continue-on-error --max-parallel --npm-path").operands {
			if op.glob || strings.ContainsAny(op.text, "*") {
				x.flag(catScript) // scripts chosen by pattern
				continue
			}
			x.nested([]arg{{text: "npm", static: true}, {text: "run", static: true}, op}, nil, x.via)
		}
	case "go":
		if sub := subcommand(x.args, "-C", 1); len(sub) > 0 && (sub[0] == "run" || sub[0] == "install") {
			for _, a := range parseOpts(x.args, "-C -tags -ldflags -gcflags -o -exec -p").operands[1:] {
				if strings.Contains(a.text, "@") && !strings.HasPrefix(a.text, ".") {
					x.flag(catDownloadExec) // go run module@version: fetched and run
					break
				}
			}
		}
	case "deno":
		for _, a := range x.args[1:] {
			if strings.HasPrefix(a.text, "https://") || strings.HasPrefix(a.text, "http://") || strings.HasPrefix(a.text, "npm:") || strings.HasPrefix(a.text, "jsr:") {
				x.flag(catDownloadExec)
				break
			}
		}
	case "npm", "pnpm", "yarn", "npx", "bun":
		o := parseOpts(x.args, "-c --call -w --workspace -p --package")
		if sub := subcommand(x.args, "", 1); len(sub) > 0 && sub[0] == "dlx" || x.name == "npx" && o.has("-y", "--yes") {
			x.flag(catDownloadExec) // fetched from the registry and run
		}
		for _, v := range o.all("-c", "--call") {
			x.code(v)
		}
		if x.name != "npx" {
			x.packageScripts()
		}
	case "strace", "ltrace":
		for _, v := range parseOpts(x.args, "-o -e -p -s -u -E -a -I -b -P -S -X -O").all("-o") {
			if strings.HasPrefix(v.text, "|") || strings.HasPrefix(v.text, "!") {
				x.code(arg{text: v.text[1:], static: v.static, subst: v.subst})
			} else {
				x.writes([]arg{v})
			}
		}
	case "ssh-agent":
		if i := skipOpts(x.args, "-a -E -P -t"); i < len(x.args) {
			x.nested(x.args[i:], x.redirs, x.via)
		}
	case "entr":
		o := parseOpts(x.args, "")
		if o.has("-s") && len(o.operands) > 0 {
			x.code(o.operands[0])
		} else if i := skipOpts(x.args, ""); i < len(x.args) {
			x.nested(x.args[i:], nil, x.via)
		}
	case "ip":
		words := subcommand(x.args, "-n -netns -b -batch -rc -rcvbuf -l -loops -f -family", 2)
		if len(words) == 2 && words[1] != "show" && words[1] != "list" && words[1] != "ls" && words[1] != "lst" && words[1] != "get" && words[0] != "monitor" {
			x.flag(catSystem)
		}
	case "perf":
		if sub := subcommand(x.args, "", 1); len(sub) > 0 && (sub[0] == "stat" || sub[0] == "record" || sub[0] == "trace" || sub[0] == "top" || sub[0] == "mem" || sub[0] == "c2c" || sub[0] == "sched") {
			rest := x.args[slices.IndexFunc(x.args, func(a arg) bool { return a.text == sub[0] }):]
			if i := skipOpts(rest, "-e -o -p -t -C -r -F -g -G -c -j --event --output --pid --tid --cpu --repeat --freq --call-graph --count --cgroup"); i < len(rest) {
				x.nested(rest[i:], x.redirs, x.via)
			}
		}
	case "hyperfine":
		o := parseOpts(x.args, "-w -r -m -M -p -c -s -u -n -S -N -L -P -D --warmup --runs --min-runs --max-runs --prepare --conclude --cleanup --setup --shell --command-name --export-json --export-markdown --export-csv --export-asciidoc --export-orgmode --time-unit --parameter-scan --parameter-list --parameter-step-size --output --input --sort --style --reference")
		for _, c := range append(o.operands, o.all("-p", "--prepare", "-c", "--cleanup", "-s", "--setup", "--conclude", "--reference")...) {
			x.code(c)
		}
		if len(o.all("-S", "--shell")) > 0 {
			x.flag(catOptionCode)
		}
	case "sudoedit":
		x.flag(catPrivilege)
	case "hash":
		if parseOpts(x.args, "-p -d -t").has("-p") {
			x.flag(catEnvCode) // hash -p /bin/rm ls: ls now runs rm
		}
	case "enable":
		if parseOpts(x.args, "-f").has("-f") {
			x.flag(catEnvCode) // a builtin loaded from a shared object
		}
	case "read", "printf", "mapfile", "readarray":
		if x.setsCodeVar() {
			x.flag(catEnvCode)
		}
	case "gh":
		if sub := subcommand(x.args, "-R --repo", 1); len(sub) > 0 && sub[0] == "api" {
			o := parseOpts(x.args, "-X --method -f -F --field --raw-field --input -H --header -q --jq -t --template --cache --hostname -p --preview")
			for _, m := range o.all("-X", "--method") {
				if strings.ToUpper(m.text) != "GET" || !m.static {
					x.flag(catChange)
					return
				}
			}
			if len(o.all("-X", "--method")) == 0 && len(o.all("-f", "-F", "--field", "--raw-field", "--input")) > 0 {
				x.flag(catChange) // fields make it a POST
			}
		}
	case "journalctl":
		for _, f := range parseOpts(x.args, "").flags {
			if strings.HasPrefix(f, "--vacuum") || f == "--rotate" || f == "--flush" || f == "--relinquish-var" || f == "--setup-keys" {
				x.flag(catSystem)
				return
			}
		}
	case "pacman", "yay", "paru":
		for _, f := range parseOpts(x.args, "").flags {
			if f == "-S" || f == "-U" || f == "--sync" || f == "--upgrade" {
				x.flag(catToolchain)
				return
			}
		}
	}
}

// emacsRuns matches Emacs Lisp that runs programs or changes files.
var emacsRuns = regexp.MustCompile(`shell-command|call-process|start-process|make-process|process-file|delete-file|delete-directory|write-region|rename-file|copy-file|make-symbolic-link|set-file-modes|eshell|async-shell|compile|load|eval|url-retrieve`)

// tarCode judges tar's options that run commands.
func (x *command) tarCode() {
	o := parseOpts(x.args, "-I -F -C -f -T -X --to-command --use-compress-program --info-script --new-volume-script "+
		"--checkpoint-action --rsh-command --rmt-command --directory --file --files-from --exclude-from")
	for _, v := range o.all("-I", "--use-compress-program", "--to-command", "--rsh-command", "--rmt-command") {
		x.code(v)
	}
	for _, v := range o.all("-F", "--info-script", "--new-volume-script") {
		x.code(v)
	}
	for _, v := range o.all("--checkpoint-action") {
		if c, ok := strings.CutPrefix(v.text, "exec="); ok {
			x.code(arg{text: c, static: v.static, subst: v.subst, word: v.word})
		}
	}
}

// vimRuns matches Vim commands that run programs or change files outside
// the buffer.
var vimRuns = regexp.MustCompile(`!|\bsystem|\bcall\b|\blua\b|\bpy(thon)?3?\b|\bperl\b|\bruby\b|\btcl\b|\bterm(inal)?\b|\bexe(cute)?\b|\bso(urce)?\b|writefile|delete\(|rename\(|\bw(rite)?\s+\S|\bsav(eas)?\b|\bredir\b|\bmake\b|\bmak\b|\bgrep\b|\bnorm(al)?\b`)

// vimCode judges -c, +cmd, --cmd and the script files of -S, -s, -u.
func (x *command) vimCode() {
	args := x.args
	for i := 1; i < len(args); i++ {
		t := args[i].text
		var cmd *arg
		switch {
		case (t == "-c" || t == "--cmd" || len(t) > 2 && t[0] == '-' && t[1] != '-' && strings.HasSuffix(t, "c")) && i+1 < len(args):
			i++
			cmd = &args[i]
		case strings.HasPrefix(t, "+") && len(t) > 1:
			c := args[i]
			c.text = t[1:]
			cmd = &c
		case (t == "-S" || t == "-s" || t == "-u" || t == "-U" || t == "-W" || t == "-w") && i+1 < len(args):
			i++
			if f := args[i].text; f != "NONE" && f != "NORC" && f != "DEFAULTS" {
				x.flag(catOptionCode)
				return
			}
		case strings.HasPrefix(t, "-S") && len(t) > 2:
			x.flag(catOptionCode)
			return
		}
		if cmd != nil && (!cmd.static || vimRuns.MatchString(cmd.text)) {
			x.flag(catOptionCode)
			return
		}
	}
}

// sedCode judges sed scripts: the e command and the e flag run shell
// code, w and W write files.
func (x *command) sedCode() {
	o := parseOpts(x.args, "-e -f -l -s --expression --file --line-length")
	scripts := o.all("-e", "--expression")
	for _, f := range o.all("-f", "--file") {
		texts, problem := x.l.scriptTexts(f)
		if problem != "" {
			x.flagScript(problem)
			return
		}
		for _, t := range texts {
			scripts = append(scripts, arg{text: t, static: true})
		}
	}
	if len(o.all("-e", "--expression", "-f", "--file")) == 0 && len(o.operands) > 0 {
		scripts = append(scripts, o.operands[0])
	}
	for _, s := range scripts {
		if !s.static {
			if s.subst || strings.Contains(s.text, "e") || strings.Contains(s.text, "w") {
				x.flag(catOptionCode)
			}
			continue
		}
		execs, files := sedEffects(s.text)
		for _, c := range execs {
			if c == "" {
				x.flag(catOptionCode) // e with no command runs the pattern space
			} else {
				x.shellCode(c)
			}
		}
		for _, f := range files {
			if f != "/dev/stdout" && f != "/dev/stderr" {
				x.writes([]arg{{text: f, static: true}})
			}
		}
	}
}

// sedEffects scans a sed script for the commands it runs (e, s///e) and
// the files it writes (w, W, s///w). An s///e runs the replaced pattern
// space, which is not known: it is reported as "".
func sedEffects(script string) (execs, files []string) {
	s := script
	i := 0
	skipAddr := func() {
		for i < len(s) {
			c := s[i]
			switch {
			case c == ' ' || c == '\t' || c == ',' || c == '!' || c == '~' || c == '+' || c == '$' || c >= '0' && c <= '9':
				i++
			case c == '/' || c == '\\':
				d := byte('/')
				if c == '\\' && i+1 < len(s) {
					i++
					d = s[i]
				}
				i++
				for i < len(s) && s[i] != d {
					if s[i] == '\\' {
						i++
					}
					i++
				}
				i++
				for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
					i++
				}
			default:
				return
			}
		}
	}
	restOfLine := func() string {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			j = len(s) - i
		}
		out := strings.TrimSpace(s[i : i+j])
		i += j
		return out
	}
	for i < len(s) {
		for i < len(s) && (s[i] == ';' || s[i] == '\n' || s[i] == ' ' || s[i] == '\t' || s[i] == '{' || s[i] == '}') {
			i++
		}
		skipAddr()
		if i >= len(s) {
			break
		}
		c := s[i]
		i++
		switch c {
		case 'e':
			execs = append(execs, restOfLine())
		case 'w', 'W':
			files = append(files, restOfLine())
		case 'a', 'i', 'c', 'r', 'R', 'b', 't', 'T', ':', 'q', 'Q', 'l', 'L', 'v':
			j := strings.IndexAny(s[i:], ";\n")
			if c == 'a' || c == 'i' || c == 'c' || c == 'r' || c == 'R' || c == ':' {
				j = strings.IndexByte(s[i:], '\n')
			}
			if j < 0 {
				i = len(s)
			} else {
				i += j
			}
		case 's', 'y':
			if i >= len(s) {
				return
			}
			d := s[i]
			i++
			for part := 0; part < 2 && i < len(s); part++ {
				for i < len(s) && s[i] != d {
					if s[i] == '\\' {
						i++
					}
					i++
				}
				i++
			}
			if c == 'y' {
				continue
			}
			for i < len(s) && s[i] != ';' && s[i] != '\n' && s[i] != '}' {
				switch s[i] {
				case 'e':
					execs = append(execs, "")
				case 'w':
					i++
					files = append(files, restOfLine())
					continue
				}
				i++
			}
		}
	}
	return execs, files
}

// makeCode judges makefiles make reads from stdin or --eval, and SHELL=
// overrides: their recipes are shell code.
func (x *command) makeCode() {
	o := parseOpts(x.args, "-f -C -I -j -l -o -W -E --file --makefile --directory --include-dir --jobs --eval --what-if --old-file --new-file")
	for _, f := range o.all("-f", "--file", "--makefile") {
		if isStdinPath(f.text) {
			x.stdinCode(x.recipes)
		} // other files: makeTargets
	}
	for _, e := range o.all("-E", "--eval") {
		if !e.static {
			x.flag(catOptionCode)
			continue
		}
		x.recipes(e.text)
	}
	for _, op := range o.operands {
		if name, val, ok := strings.Cut(op.text, "="); ok && (name == "SHELL" || name == ".SHELLFLAGS" || name == "MAKESHELL") {
			if !isShell(commandBase(val)) {
				x.flag(catOptionCode)
			}
		}
	}
}

// recipes judges the recipe lines of a makefile as shell code (make
// variables make a line not known statically).
func (x *command) recipes(text string) {
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "\t") {
			if _, r, ok := strings.Cut(line, ";"); ok && strings.Contains(line, ":") && !strings.Contains(line, "=") {
				line = r // target: ; recipe
			} else {
				continue
			}
		}
		line = strings.TrimLeft(line, "\t @-+")
		if strings.Contains(line, "$(") || strings.Contains(line, "${") {
			x.flag(catOptionCode)
			continue
		}
		x.shellCode(line)
	}
}

// gdbCode judges the commands gdb runs: shell, !, pipe and calls of
// system() in -ex, -iex and command files.
func (x *command) gdbCode() {
	o := parseOpts(x.args, "-ex -iex -x -ix -eval-command --eval-command -init-eval-command --init-eval-command -command --command -init-command -p --pid -cd --cd -d --directory -s --symbols -c --core -batch-silent")
	cmds := o.all("-ex", "-iex", "-eval-command", "--eval-command", "-init-eval-command", "--init-eval-command")
	for _, f := range o.all("-x", "-ix", "-command", "--command", "-init-command") {
		texts, problem := x.l.scriptTexts(f)
		if problem != "" {
			x.flagScript(problem)
			return
		}
		for _, t := range texts {
			for _, line := range strings.Split(t, "\n") {
				cmds = append(cmds, arg{text: line, static: true})
			}
		}
	}
	runs := false
	for _, c := range cmds {
		if t := strings.TrimSpace(c.text); t == "run" || t == "r" || t == "start" || t == "starti" || strings.HasPrefix(t, "run ") || strings.HasPrefix(t, "r ") {
			runs = true
		}
	}
	for k, a := range x.args {
		if a.text == "--args" && k+1 < len(x.args) {
			x.nested(x.args[k+1:], nil, x.via) // the program gdb starts
			runs = false
			break
		}
	}
	if runs {
		for _, op := range o.operands {
			if _, err := strconv.Atoi(op.text); err != nil {
				x.nested([]arg{op}, nil, x.via)
				break
			}
		}
	}
	for _, c := range cmds {
		t := strings.TrimSpace(c.text)
		switch {
		case !c.static:
			x.flag(catOptionCode)
		case strings.HasPrefix(t, "!"):
			x.shellCode(t[1:])
		case strings.HasPrefix(t, "shell "), strings.HasPrefix(t, "pipe "), strings.HasPrefix(t, "| "):
			_, rest, _ := strings.Cut(t, " ")
			x.shellCode(rest)
		case gdbRuns.MatchString(t):
			x.flag(catOptionCode)
		}
	}
}

var gdbRuns = regexp.MustCompile(`\b(system|exec[lv]p?e?|popen|unlink|remove|rmdir|kill|python|py|source|dump|restore|set\s+var|set\s+\*|call|print\s+\(?\w+\s*\()`)

// cmakeCode judges cmake -E (rm, remove_directory, copy...) and -P scripts.
func (x *command) cmakeCode() {
	args := x.args
	for i := 1; i < len(args); i++ {
		switch args[i].text {
		case "-P":
			x.flag(catScript)
			return
		case "-E":
			if i+1 >= len(args) {
				return
			}
			rest := args[i+1:]
			ops := parseOpts(append([]arg{rest[0]}, rest[1:]...), "").operands
			switch rest[0].text {
			case "rm", "remove", "remove_directory", "rmdir":
				if parseOpts(rest, "").has("-r", "-R", "-f", "-rf", "-fr") || rest[0].text == "remove_directory" {
					x.flag(catDelete)
				}
				x.writes(ops)
			case "copy", "copy_directory", "copy_if_different", "rename", "create_symlink", "create_hardlink":
				if len(ops) > 0 {
					x.writes(ops[len(ops)-1:])
				}
				if rest[0].text == "rename" && len(ops) > 0 {
					x.writes(ops[:1])
				}
			case "touch", "touch_nocreate", "make_directory", "tar", "chdir", "env", "time":
				if rest[0].text == "touch" || rest[0].text == "touch_nocreate" || rest[0].text == "make_directory" {
					x.writes(ops)
				}
				if rest[0].text == "chdir" && len(ops) > 1 {
					x.nested(ops[1:], nil, x.via)
				}
				if rest[0].text == "time" && len(ops) > 0 {
					x.nested(ops, nil, x.via)
				}
				if rest[0].text == "env" {
					if k := skipAssigns(rest, skipOpts(rest, "--unset")); k < len(rest) {
						x.nested(rest[k:], nil, x.via)
					}
				}
			}
			return
		}
	}
}
