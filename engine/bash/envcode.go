package bash

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Environment variables that make a program run code: a shell sources
// BASH_ENV, git runs GIT_SSH_COMMAND, the dynamic loader loads LD_PRELOAD.

// codeVars hold a command line a program runs: judged like bash -c.
var codeVars = map[string]bool{
	"PAGER": true, "GIT_PAGER": true, "MANPAGER": true, "SYSTEMD_PAGER": true, "PSQL_PAGER": true,
	"EDITOR": true, "VISUAL": true, "GIT_EDITOR": true, "GIT_SEQUENCE_EDITOR": true, "SUDO_EDITOR": true, "FCEDIT": true,
	"GIT_SSH_COMMAND": true, "GIT_SSH": true, "GIT_ASKPASS": true, "SSH_ASKPASS": true, "SUDO_ASKPASS": true,
	"GIT_PROXY_COMMAND": true, "GIT_EXTERNAL_DIFF": true, "PROMPT_COMMAND": true, "BROWSER": true, "RSYNC_RSH": true,
	"CVS_RSH": true, "LESSOPEN": true, "LESSCLOSE": true, "GIT_CREDENTIAL_HELPER": true, "TAR_OPTIONS": true,
	"MAKEFLAGS": true, "LESSEDIT": true, "TERMINAL": true,
}

// fileVars name files or options a program loads and runs: any value asks.
var fileVars = map[string]bool{
	"BASH_ENV": true, "ENV": true, "ZDOTDIR": true, "LD_PRELOAD": true, "LD_AUDIT": true, "LD_LIBRARY_PATH": true,
	"LD_ORIGIN_PATH": true, "GCONV_PATH": true, "PYTHONSTARTUP": true, "PERL5OPT": true, "PERL5DB": true,
	"PERLLIB": true, "PERL5LIB": true, "RUBYOPT": true, "RUBYLIB": true, "GIT_CONFIG_PARAMETERS": true,
	"GIT_CONFIG_COUNT": true, "GIT_CONFIG_GLOBAL": true, "GIT_CONFIG_SYSTEM": true, "GIT_CONFIG": true,
	"GIT_EXEC_PATH": true, "GIT_TEMPLATE_DIR": true, "JAVA_TOOL_OPTIONS": true, "_JAVA_OPTIONS": true,
	"JDK_JAVA_OPTIONS": true, "SHELLOPTS": true, "BASHOPTS": true, "PROMPT_COMMANDS": true, "INPUTRC": true,
	"PYTHONINSPECT": true, "NODE_PATH": true, "PSQLRC": true, "MYSQL_HISTFILE": true, "LD_BIND_NOW": false,
	"CDPATH": true, "XDG_CONFIG_HOME": true, "GIT_DIR": true, "GIT_WORK_TREE": true, "GIT_COMMON_DIR": true,
	"NPM_CONFIG_SCRIPT_SHELL": true, "npm_config_script_shell": true, "NPM_CONFIG_USERCONFIG": true, "YARN_RC_FILENAME": true,
}

// envAssign judges NAME=value, export NAME=value and declare -x NAME=value.
func (l *level) envAssign(a *syntax.Assign, disp string) {
	if a == nil || a.Name == nil {
		return
	}
	if a.Naked {
		return // export NAME: judged where NAME was assigned
	}
	var val arg
	if a.Value != nil {
		val = l.word(a.Value)
	} else {
		val = arg{static: true}
	}
	l.envValue(a.Name.Value, val, disp)
}

// envWord judges a NAME=value word given to env, sudo or export.
func (l *level) envWord(a arg, disp string) {
	name, value, ok := strings.Cut(a.text, "=")
	if !ok || !syntax.ValidName(name) {
		return
	}
	l.envValue(name, arg{text: value, static: a.static, subst: a.subst, word: a.word}, disp)
}

func (l *level) envValue(name string, val arg, disp string) {
	switch {
	case fileVars[name], strings.HasPrefix(name, "GIT_CONFIG_KEY_"), strings.HasPrefix(name, "GIT_CONFIG_VALUE_"),
		strings.HasPrefix(name, "DYLD_"), strings.HasPrefix(name, "LD_") && name != "LD_BIND_NOW":
		if val.text != "" {
			l.c.flag(catEnvCode, disp)
		}
	case codeVars[name]:
		code := strings.TrimLeft(val.text, "|") // LESSOPEN="|cmd %s"
		switch {
		case val.text == "":
		case val.subst || !val.static:
			l.c.flag(catEnvCode, disp)
		default:
			l.c.script(code, l.depth+1)
		}
	case name == "NODE_OPTIONS":
		for _, f := range strings.Fields(val.text) {
			if f == "-r" || f == "--require" || f == "--import" || f == "--loader" || f == "--experimental-loader" ||
				strings.HasPrefix(f, "--require=") || strings.HasPrefix(f, "--import=") || strings.HasPrefix(f, "--loader=") ||
				strings.HasPrefix(f, "--experimental-loader=") || strings.HasPrefix(f, "-r") && len(f) > 2 {
				l.c.flag(catEnvCode, disp)
				return
			}
		}
	case name == "PS0" || name == "PS1" || name == "PS2" || name == "PS3" || name == "PS4":
		if strings.Contains(val.text, "$(") || strings.Contains(val.text, "`") || val.subst {
			l.c.flag(catEnvCode, disp)
		}
	case name == "PATH":
		for _, dir := range strings.Split(val.text, ":") {
			if dir == "$PATH" || dir == "${PATH}" {
				continue
			}
			abs, ok := l.abs(arg{text: dir, static: val.static || !strings.ContainsAny(dir, "$`")})
			if dir == "" || !ok || !strings.HasPrefix(dir, "/") && !strings.HasPrefix(dir, "$") && !strings.HasPrefix(dir, "~") {
				l.c.flag(catEnvCode, disp) // a relative or unknown directory: which program a name runs is not known
				return
			}
			l.pathDirs = append(l.pathDirs, abs) // names are looked up there first (pathProgram)
		}
	}
}

// isCodeVar reports a variable whose value makes programs run code.
func isCodeVar(name string) bool {
	return codeVars[name] || fileVars[name] || name == "PATH" || name == "NODE_OPTIONS" || strings.HasPrefix(name, "LD_") ||
		strings.HasPrefix(name, "DYLD_") || strings.HasPrefix(name, "GIT_CONFIG") || strings.HasPrefix(name, "PS") && len(name) == 3
}

// setsCodeVar reports read, printf -v and mapfile aimed at such a variable:
// its value is only known at run time.
func (x *command) setsCodeVar() bool {
	switch x.name {
	case "read":
		o := parseOpts(x.args, "-a -d -i -n -N -p -t -u")
		for _, op := range append(o.operands, o.all("-a")...) {
			if isCodeVar(op.text) {
				return true
			}
		}
	case "printf":
		for _, v := range parseOpts(x.args, "-v").all("-v") {
			if isCodeVar(v.text) {
				return true
			}
		}
	case "mapfile", "readarray":
		o := parseOpts(x.args, "-d -n -O -s -u -C -c")
		for _, op := range o.operands {
			if isCodeVar(op.text) {
				return true
			}
		}
	}
	return false
}
