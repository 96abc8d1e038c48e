package bash

import (
	"encoding/json"
	"maps"
	"path"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Project scripts run by name: package.json scripts (npm test, yarn build,
// pnpm run x) and makefile targets (make, make test). They are the
// project's own commands, read from disk when checked and judged as shell
// code, like any other script.

// maxTargets bounds the make targets followed through prerequisites.
const maxTargets = 32

// projectDir is the directory a package manager or make works in: -C,
// --prefix, --cwd or --dir, else the working directory.
func (x *command) projectDir(valued ...string) (string, bool) {
	o := parseOpts(x.args, strings.Join(valued, " "))
	d := arg{text: ".", static: true}
	if vs := o.all(valued...); len(vs) > 0 {
		d = vs[len(vs)-1]
	}
	return x.l.abs(d)
}

// shellCodeIn judges text a shell runs in dir (make -C DIR, npm --prefix
// DIR): its paths are resolved there.
func (x *command) shellCodeIn(dir, text string) {
	if x.l.c.sc.dir != "" && under(dir, x.l.c.sc.dir) { // the project's own scripts
		x.l.c.project++
		defer func() { x.l.c.project-- }()
	}
	saved := x.l.c.at
	x.l.c.at = dir
	x.l.c.fromDisk(text)
	x.shellCode(text)
	x.l.c.at = saved
}

// npmBuiltins are package manager commands that are not package.json
// scripts (yarn X and pnpm X run the script X otherwise).
var npmBuiltins = map[string]bool{
	"install": true, "i": true, "add": true, "remove": true, "rm": true, "uninstall": true, "un": true, "ci": true,
	"update": true, "up": true, "upgrade": true, "outdated": true, "audit": true, "why": true, "list": true, "ls": true,
	"info": true, "view": true, "init": true, "create": true, "exec": true, "dlx": true, "x": true, "link": true,
	"unlink": true, "pack": true, "publish": true, "config": true, "cache": true, "dedupe": true, "prune": true,
	"workspace": true, "workspaces": true, "global": true, "set": true, "version": true, "help": true, "bin": true,
	"store": true, "env": true, "licenses": true, "import": true, "patch": true, "rebuild": true, "node": true,
}

// packageScripts judges the package.json scripts a package manager runs:
// npm run X, npm test/start/stop/restart, yarn X, pnpm X, bun run X, with
// their pre and post scripts, and the project's install scripts on install.
func (x *command) packageScripts() {
	dir, ok := x.projectDir("--prefix", "-C", "--cwd", "--dir")
	if !ok {
		x.flag(catScript)
		return
	}
	words := subcommand(x.args, "--prefix -C --cwd --dir -w --workspace -F --filter", 2)
	var names []string
	switch {
	case len(words) == 0:
		if x.name == "yarn" {
			names = []string{"preinstall", "install", "postinstall", "prepare"}
		}
	case words[0] == "run" || words[0] == "run-script" || words[0] == "rum" || words[0] == "urn":
		if len(words) > 1 {
			names = []string{"pre" + words[1], words[1], "post" + words[1]}
		}
	case words[0] == "test" || words[0] == "t" || words[0] == "tst" || words[0] == "start" || words[0] == "stop" || words[0] == "restart":
		w := words[0]
		if w == "t" || w == "tst" {
			w = "test"
		}
		names = []string{"pre" + w, w, "post" + w}
	case (words[0] == "install" || words[0] == "i" || words[0] == "ci") && len(words) == 1:
		names = []string{"preinstall", "install", "postinstall", "prepare"}
	case x.name != "npm" && !npmBuiltins[words[0]]:
		names = []string{"pre" + words[0], words[0], "post" + words[0]}
	}
	if len(names) == 0 {
		return
	}
	texts, problem := x.l.scriptTexts(arg{text: path.Join(dir, "package.json"), static: true})
	if problem != "" {
		if x.l.dirty != "" {
			x.flag(catScript)
		}
		return // no package.json: the package manager fails
	}
	for _, t := range texts {
		pkg := x.l.c.sc.cache.derive("package.json", t, parsePackageJSON).(*packageJSON)
		if pkg == nil {
			x.flag(catScript)
			return
		}
		for _, n := range names {
			if s, ok := pkg.Scripts[n]; ok {
				x.shellCodeIn(dir, s)
			}
		}
	}
}

// packageJSON is what the gate reads of a package.json.
type packageJSON struct {
	Scripts map[string]string `json:"scripts"`
}

// parsePackageJSON parses a package.json's text: nil if it is not valid.
func parsePackageJSON(text string) any {
	var pkg packageJSON
	if err := json.Unmarshal([]byte(text), &pkg); err != nil {
		return (*packageJSON)(nil)
	}
	return &pkg
}

// makeVar matches a variable assignment line of a makefile.
var makeVar = regexp.MustCompile(`^(?:export\s+|override\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*(:::=|::=|:=|\?=|\+=|!=|=)\s*(.*)$`)

// makeRule matches a rule line: targets, a colon, prerequisites.
var makeRule = regexp.MustCompile(`^([^:=#\t][^:=#]*?)\s*::?\s*([^=]*)$`)

// makefile is a parsed makefile: variables and the recipes of each target.
type makefile struct {
	vars    map[string]string
	recipes map[string][]string
	prereqs map[string][]string
	first   string
	dynamic bool // != or $(shell) in a variable: values not known
}

// clone is m with its own vars, to be changed.
func (m *makefile) clone() *makefile {
	c := *m
	c.vars = maps.Clone(m.vars)
	return &c
}

func parseMakefile(text string) *makefile {
	m := &makefile{vars: map[string]string{}, recipes: map[string][]string{}, prereqs: map[string][]string{}}
	text = strings.ReplaceAll(text, "\\\n", " ")
	var current []string
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "\t") {
			for _, t := range current {
				m.recipes[t] = append(m.recipes[t], line[1:])
			}
			continue
		}
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		if v := makeVar.FindStringSubmatch(line); v != nil && !strings.Contains(v[1], " ") {
			current = nil
			switch v[2] {
			case "!=":
				m.dynamic = true
				m.vars[v[1]] = "$(shell)"
			case "+=":
				m.vars[v[1]] = strings.TrimSpace(m.vars[v[1]] + " " + v[3])
			case "?=":
				if _, ok := m.vars[v[1]]; !ok {
					m.vars[v[1]] = v[3]
				}
			default:
				m.vars[v[1]] = v[3]
			}
			continue
		}
		if r := makeRule.FindStringSubmatch(line); r != nil {
			current = strings.Fields(r[1])
			recipe := ""
			prereqs, inline, hasInline := strings.Cut(r[2], ";")
			if hasInline {
				recipe = inline
			}
			for _, t := range current {
				m.prereqs[t] = append(m.prereqs[t], strings.Fields(prereqs)...)
				if m.first == "" && !strings.HasPrefix(t, ".") && !strings.Contains(t, "%") {
					m.first = t
				}
				if hasInline {
					m.recipes[t] = append(m.recipes[t], recipe)
				}
			}
			continue
		}
		current = nil
	}
	return m
}

// makeRef matches $(NAME), ${NAME}, $(func args) and automatic variables.
var makeRef = regexp.MustCompile(`\$\(([^()]*)\)|\$\{([^{}]*)\}|\$([@<^?*%+|])`)

// expand substitutes the makefile's variables in s; undefined ones are
// empty (as in make), except those the environment provides. ok is false
// when s calls a make function whose result is not known ($(shell ...)).
func (m *makefile) expand(s string, l *level, depth int) (string, bool) {
	ok := true
	s = strings.ReplaceAll(s, "$$", "\x00")
	for range 8 {
		if !strings.Contains(s, "$") {
			break
		}
		s = makeRef.ReplaceAllStringFunc(s, func(ref string) string {
			sm := makeRef.FindStringSubmatch(ref)
			name := sm[1] + sm[2]
			if sm[3] != "" {
				return "target"
			}
			if strings.ContainsAny(name, " ,") { // a function: $(shell ...), $(wildcard ...)
				f, _, _ := strings.Cut(name, " ")
				if f == "shell" || f == "eval" || f == "call" || f == "file" || f == "value" || f == "guile" {
					ok = false
				}
				return "x"
			}
			if v, found := m.vars[name]; found {
				if v == "$(shell)" {
					ok = false
				}
				return v
			}
			switch name {
			case "MAKE":
				return "make"
			case "RM":
				return "rm -f"
			case "CC":
				return "cc"
			case "CXX":
				return "g++"
			case "AR":
				return "ar"
			case "CURDIR", "PWD":
				return l.at
			case "HOME":
				return l.home()
			case "SHELL":
				return "/bin/sh"
			}
			return ""
		})
	}
	return strings.ReplaceAll(s, "\x00", "$"), ok
}

// makeTargets judges the recipes make runs for the targets asked (or the
// first one), with their prerequisites, from the makefile on disk.
func (x *command) makeTargets() {
	o := parseOpts(x.args, "-f -C -I -j -l -o -W -E --file --makefile --directory --include-dir --jobs --eval --what-if --old-file --new-file")
	if o.has("-n", "--dry-run", "--just-print", "--recon", "-q", "--question", "-p", "--print-data-base", "-v", "--version", "-h", "--help") {
		return
	}
	dir, ok := x.projectDir("-C", "--directory")
	if !ok {
		x.flag(catScript)
		return
	}
	var texts []string
	if fs := o.all("-f", "--file", "--makefile"); len(fs) > 0 {
		for _, f := range fs {
			if isStdinPath(f.text) {
				return // judged by makeCode
			}
			if !strings.HasPrefix(f.text, "/") && f.static && !f.glob {
				f.text = path.Join(dir, f.text)
			}
			t, problem := x.l.scriptTexts(f)
			if problem != "" {
				x.flagScript(problem)
				return
			}
			texts = append(texts, strings.Join(t, "\n"))
		}
	} else {
		if x.l.dirty != "" {
			x.flag(catScript)
			return
		}
		for _, name := range []string{"GNUmakefile", "makefile", "Makefile"} {
			if t, problem := x.l.scriptTexts(arg{text: path.Join(dir, name), static: true}); problem == "" {
				texts = t
				break
			}
		}
	}
	for _, text := range texts {
		overridden := false
		m := x.l.c.sc.cache.derive("makefile", text, func(t string) any { return parseMakefile(t) }).(*makefile)
		for _, op := range o.operands {
			if name, val, ok := strings.Cut(op.text, "="); ok && syntax.ValidName(name) {
				if !overridden {
					m, overridden = m.clone(), true // the cached one is shared
				}
				m.vars[name] = val
			}
		}
		var targets []string
		for _, op := range o.operands {
			if !strings.Contains(op.text, "=") {
				targets = append(targets, op.text)
			}
		}
		if len(targets) == 0 && m.first != "" {
			targets = []string{m.first}
		}
		seen := map[string]bool{}
		for len(targets) > 0 && len(seen) < maxTargets {
			t := targets[0]
			targets = targets[1:]
			if seen[t] {
				continue
			}
			seen[t] = true
			targets = append(targets, m.prereqs[t]...)
			for _, line := range m.recipes[t] {
				line = strings.TrimLeft(line, " \t@-+")
				line, ok := m.expand(line, x.l, 0)
				if !ok {
					x.flag(catScript)
					return
				}
				x.shellCodeIn(dir, line)
			}
		}
	}
}
