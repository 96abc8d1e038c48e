package bash

// Version control: history rewrites and discarded work, and the shell code
// git runs from config values, aliases and options.

import (
	"path"
	"regexp"
	"strings"
)

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
		if len(ops) > 0 && (x.l.c.lineRemotes[ops[0].text] || !x.knownRemote(args[:i], ops[0])) {
			x.flag(catUpload) // the repository sent to a machine the project does not name
		}
	case "remote":
		// git remote add NAME URL, set-url NAME URL, rename OLD NAME: a later
		// push to NAME goes where the line says, not where the project did
		if n := len(ops); n >= 3 && (ops[0].text == "add" || ops[0].text == "set-url" || ops[0].text == "rename") {
			if x.l.c.lineRemotes == nil {
				x.l.c.lineRemotes = map[string]bool{}
			}
			x.l.c.lineRemotes[ops[1].text] = true
			x.l.c.lineRemotes[ops[2].text] = true
		}
	case "rm":
		if !o.has("--cached") { // it deletes the files from the working tree too
			if o.has("-r") {
				x.flag(catDelete)
			} else if o.has("-f", "--force") {
				x.flag(catForceDelete) // files with changes not committed: the changes are lost
			}
		}
	case "reset":
		dangerous = o.has("--hard", "--merge", "--keep")
	case "clean":
		dangerous = o.has("-f", "--force") && !o.has("-n", "--dry-run")
	case "checkout":
		dangerous = o.has("-f", "--force") || hasOperand(rest, "--") && len(ops) > 0 || hasOperand(rest, ".")
		if len(ops) >= 2 && !o.has("-b", "-B", "--orphan") { // checkout REF PATH: the file's changes are discarded
			if p, ok := x.l.abs(ops[len(ops)-1]); ok {
				if x.l.c.exists(p) {
					dangerous = true
				}
			}
		}
	case "switch":
		dangerous = o.has("-f", "--force", "--discard-changes")
	case "worktree":
		dangerous = o.operand(0) == "remove" && o.has("-f", "--force") || o.operand(0) == "prune"
		if o.operand(0) == "add" && len(ops) > 1 {
			x.writes(ops[1:2])
		}
	case "submodule":
		dangerous = o.operand(0) == "deinit" && o.has("-f", "--force")
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
	case "tag":
		dangerous = o.has("-d", "--delete") // a tag has no reflog to bring it back
	}
	if dangerous {
		x.flag(catGit)
	}
}

// knownRemote reports whether the repository a push names is a remote of
// the repository git works in, as its config on disk says now (a remote the
// line adds, or a URL, is not); git's options before the subcommand (pre)
// may move it (-C DIR). The repository is looked for from the directory up
// to the workspace (up to / from outside it): outside any, nothing is
// pushed and the push is not judged here.
func (x *command) knownRemote(pre []arg, repo arg) bool {
	dir := arg{text: ".", static: true}
	for k := 1; k+1 < len(pre); k++ {
		if pre[k].text == "-C" {
			dir = arg{text: path.Join(dir.text, pre[k+1].text), static: dir.static && pre[k+1].static}
		}
	}
	d, ok := x.l.abs(dir)
	if !ok {
		return false
	}
	ws := x.l.c.sc.dir
	for {
		if config, ok := x.l.c.gitConfigFile(d); ok {
			if !repo.static {
				return false
			}
			text, _ := x.l.c.sc.cache.read(config, x.l.c.stat)
			for _, m := range gitRemote.FindAllStringSubmatch(text, -1) {
				if m[1] == repo.text {
					return true
				}
			}
			return false
		}
		if d == "/" || d == ws || !strings.HasPrefix(d, "/") {
			return true
		}
		d = path.Dir(d)
	}
}

// gitConfigFile is the config file of the repository whose working tree
// is dir: .git/config, or a worktree's (.git is a file naming its git
// directory, whose commondir holds the config).
func (c *checker) gitConfigFile(dir string) (string, bool) {
	git := path.Join(dir, ".git")
	if c.isDir(git) {
		return path.Join(git, "config"), true
	}
	text, ok := c.sc.cache.read(git, c.stat)
	gitdir, found := strings.CutPrefix(strings.TrimSpace(text), "gitdir: ")
	if !ok || !found {
		return "", false
	}
	if !path.IsAbs(gitdir) {
		gitdir = path.Join(dir, gitdir)
	}
	if common, ok := c.sc.cache.read(path.Join(gitdir, "commondir"), c.stat); ok {
		if c := strings.TrimSpace(common); path.IsAbs(c) {
			gitdir = c
		} else {
			gitdir = path.Join(gitdir, c)
		}
	}
	return path.Join(gitdir, "config"), true
}

// gitRemote matches a remote's section in a git config file.
var gitRemote = regexp.MustCompile(`(?m)^\s*\[remote\s+"([^"]+)"\s*\]`)

// gitCodeKeys are config keys whose value is a command git runs.
var gitCodeKeys = regexp.MustCompile(`(?i)^(core\.(pager|editor|sshcommand|askpass|gitproxy|fsmonitor|alternaterefscommand)|sequence\.editor|diff\.external|diff\..+\.(textconv|command)|merge\..+\.driver|mergetool\..+\.cmd|difftool\..+\.cmd|filter\..+\.(clean|smudge|process)|credential\.helper|credential\..+\.helper|pager\..+|uploadpack\.packobjectshook|gpg\.program|gpg\..+\.program|web\.browser|browser\..+\.cmd|man\..+\.cmd|sendemail\..*(cmd|command|smtpserver)|remote\..+\.(receivepack|uploadpack)|ssh\.variant|instaweb\..+|alias\..+|receive\.procreceiverefs|protocol\..+\.allow|core\.hookspath|include\.path|includeif\..+|core\.worktree|init\.templatedir|core\.attributesfile|submodule\..+\.update)$`)

// gitConfigValue judges one git config setting: a command is parsed as
// shell code; a hooks path, an included file or an allowed transport asks.
func (x *command) gitConfigValue(key string, val arg) {
	if !gitCodeKeys.MatchString(key) {
		return
	}
	low := strings.ToLower(key)
	switch {
	case strings.HasPrefix(low, "alias."):
		if strings.HasPrefix(val.text, "!") {
			x.code(arg{text: val.text[1:], static: val.static, subst: val.subst, word: val.word})
		} else if !val.static {
			x.flag(catOptionCode)
		}
	case strings.HasPrefix(low, "credential.") && !strings.HasPrefix(val.text, "!") && val.static && !strings.ContainsAny(val.text, " /"):
		// a helper name (store, cache, osxkeychain): git runs git-credential-NAME
	case strings.HasPrefix(low, "credential."):
		x.code(arg{text: strings.TrimPrefix(val.text, "!"), static: val.static, subst: val.subst, word: val.word})
	case strings.HasPrefix(low, "protocol.") || low == "core.hookspath" || strings.HasPrefix(low, "include") ||
		low == "core.worktree" || low == "init.templatedir" || low == "core.attributesfile" || strings.HasPrefix(low, "submodule."):
		x.flag(catOptionCode)
	default:
		if !val.static {
			x.flag(catOptionCode)
			return
		}
		x.code(val)
	}
}

// gitCode judges git -c key=value, --config-env, git config KEY VALUE and
// the subcommands that run commands (rebase --exec, bisect run, submodule
// foreach, difftool -x).
func (x *command) gitCode() {
	args := x.args
	i := 1
	for ; i < len(args); i++ {
		t := args[i].text
		switch {
		case t == "-c" && i+1 < len(args):
			i++
			k, v, _ := strings.Cut(args[i].text, "=")
			a := args[i]
			x.gitConfigValue(k, arg{text: v, static: a.static, subst: a.subst, word: a.word})
		case strings.HasPrefix(t, "--config-env"):
			x.flag(catOptionCode) // the value is an environment variable's, not known here
		case t == "-C" || t == "--git-dir" || t == "--work-tree" || t == "--namespace" || t == "--exec-path" || t == "--super-prefix":
			if t == "--exec-path" {
				x.flag(catOptionCode)
			}
			i++
		case strings.HasPrefix(t, "--exec-path="):
			x.flag(catOptionCode)
		case strings.HasPrefix(t, "-"):
		default:
			goto sub
		}
	}
	return
sub:
	rest := args[i:]
	o := parseOpts(rest, "-x --exec -m -F -C -c --extcmd --upload-pack -u --receive-pack --exec-path --output --output-directory -o --file -f --type --default")
	switch rest[0].text {
	case "config":
		ops := o.operands
		if o.has("--unset", "--unset-all", "--get", "--get-all", "--get-regexp", "--list", "-l", "--remove-section", "--rename-section", "--show-origin", "--name-only") || len(ops) < 2 {
			if o.has("-e", "--edit") {
				x.flag(catOptionCode)
			}
			break
		}
		key := ops[0].text
		if ops[0].text == "set" && len(ops) > 2 {
			key, ops = ops[1].text, ops[1:]
		}
		x.gitConfigValue(key, ops[1])
		if o.has("--global", "--system") || len(o.all("-f", "--file")) > 0 {
			x.writes(o.all("-f", "--file"))
			if o.has("--global", "--system") {
				x.flag(catOutside)
			}
		}
	case "rebase":
		for _, v := range o.all("-x", "--exec") {
			x.code(v)
		}
	case "bisect":
		for k, a := range rest {
			if a.text == "run" && k+1 < len(rest) {
				x.nested(rest[k+1:], nil, x.via)
				break
			}
		}
	case "submodule":
		for k, op := range o.operands {
			if op.text == "foreach" && k+1 < len(o.operands) {
				x.runWords(o.operands[k+1:], false)
				break
			}
		}
	case "difftool", "mergetool":
		for _, v := range o.all("-x", "--extcmd") {
			x.code(v)
		}
	case "clone", "fetch", "pull", "push", "ls-remote", "archive":
		for _, v := range o.all("--upload-pack", "--receive-pack", "--exec") {
			x.code(v)
		}
		if rest[0].text == "clone" {
			for _, v := range o.all("-u") { // clone -u is --upload-pack (push -u is --set-upstream)
				x.code(v)
			}
		}
		for _, op := range o.operands {
			if strings.HasPrefix(op.text, "ext::") || strings.HasPrefix(op.text, "fd::") {
				x.flag(catOptionCode)
			}
		}
		if rest[0].text == "clone" && len(o.operands) > 1 {
			x.writes(o.operands[1:2])
		}
		if rest[0].text == "archive" {
			x.writes(o.all("--output", "-o"))
		}
	case "log", "diff", "show", "format-patch":
		x.writes(o.all("--output", "-o", "--output-directory"))
	case "bundle":
		if ops := o.operands; len(ops) > 1 && ops[0].text == "create" {
			x.writes(ops[1:2])
		}
	case "init":
		x.writes(o.operands[:min(1, len(o.operands))])
	case "grep":
		for _, a := range rest[1:] { // -O/--open-files-in-pager runs its value with the matching files
			if v, ok := strings.CutPrefix(a.text, "--open-files-in-pager="); ok {
				x.code(arg{text: v, static: a.static, subst: a.subst, word: a.word})
			} else if v, ok := strings.CutPrefix(a.text, "-O"); ok && v != "" {
				x.code(arg{text: v, static: a.static, subst: a.subst, word: a.word})
			}
		}
	}
}
