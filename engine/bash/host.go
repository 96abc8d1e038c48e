package bash

import (
	"regexp"
	"strconv"
	"strings"
)

// The host as a target: the engine's own process and its ancestors
// ($PPID, their pids), the environment of any process (/proc/*/environ,
// which holds the host's secrets), secrets placed into URLs.

// readsEnviron reports a path to a process's environment or memory.
func readsEnviron(p string) bool {
	return strings.HasSuffix(p, "/environ") || strings.Contains(p, "/proc/") && (strings.HasSuffix(p, "/mem") || strings.Contains(p, "/environ"))
}

// procDir matches a process's /proc directory: /proc/1, /proc/$PPID/, /proc/*.
var procDir = regexp.MustCompile(`^/proc/([0-9]+|self|thread-self|\$\{?[A-Za-z_]+\}?|\*|\[[^/]*\][^/]*)/?$`)

// pidTools aim at processes given by pid.
var pidTools = map[string]bool{
	"kill": true, "gdb": true, "lldb": true, "strace": true, "ltrace": true, "prlimit": true, "renice": true,
	"ionice": true, "taskset": true, "chrt": true, "gcore": true, "reptyr": true, "py-spy": true, "perf": true,
	"pmap": true, "criu": true, "nsenter": true, "rbspy": true, "dtrace": true, "kill-process": true,
}

// protectedPID reports whether a pid operand may be the host: $PPID, one
// of the engine's own pids, a process group of them, -1 (every process),
// or a pid only known at run time.
func (l *level) protectedPID(a arg) bool {
	if strings.Contains(a.text, "PPID") {
		return true
	}
	if !a.static {
		return a.text != "$!" && !strings.HasPrefix(a.text, "%")
	}
	t := a.text
	n, err := strconv.Atoi(strings.TrimPrefix(t, "-"))
	if err != nil {
		return false // a job (%1) or a name
	}
	if strings.HasPrefix(t, "-") {
		return n != 0 // a process group; -1 is every process
	}
	return l.c.sc.protected[n]
}

// hostTargets judges what a command aims at: process environments, the
// host's processes, secrets in URLs.
func (x *command) hostTargets() {
	for _, a := range x.args[1:] {
		if readsEnviron(a.text) {
			x.flag(catHost)
			return
		}
	}
	if pidTools[x.name] && x.via != "" {
		x.flag(catHost) // pids only known at run time
		return
	}
	if x.name != "ls" && x.name != "stat" && x.name != "readlink" && x.name != "cd" && x.name != "test" && x.name != "[" && x.name != "ps" && x.name != "file" {
		for _, a := range x.args[1:] {
			if procDir.MatchString(a.text) {
				x.flag(catHost) // a process's whole /proc directory holds its environment
				return
			}
		}
	}
	if pidTools[x.name] {
		for _, a := range x.pidOperands() {
			if x.l.protectedPID(a) {
				x.flag(catHost)
				return
			}
		}
	}
	x.secretURLs()
}

// pidOperands are the words of a pid tool that may be pids.
func (x *command) pidOperands() []arg {
	args := x.args
	if x.name != "kill" {
		var out []arg
		for _, a := range args[1:] {
			if v, ok := strings.CutPrefix(a.text, "--pid="); ok {
				out = append(out, arg{text: v, static: a.static})
			} else if !strings.HasPrefix(a.text, "-") || !a.static {
				out = append(out, a)
			}
		}
		if x.name == "gdb" || x.name == "lldb" {
			return onlyPIDLike(out)
		}
		return out
	}
	var out []arg
	signal, dashdash := false, false
	for i := 1; i < len(args); i++ {
		t := args[i].text
		switch {
		case dashdash:
			out = append(out, args[i])
		case t == "--":
			dashdash = true
		case t == "-s" || t == "-n" || t == "--signal":
			i++
			signal = true
		case t == "-l" || t == "-L" || t == "--list" || t == "--table":
			return nil
		case strings.HasPrefix(t, "-") && !signal && len(out) == 0 && args[i].static:
			signal = true // -9, -TERM, -SIGSTOP
		default:
			out = append(out, args[i])
		}
	}
	return out
}

// onlyPIDLike keeps the words of a debugger's command line that may be a
// pid (a number or a variable), not the program it loads.
func onlyPIDLike(as []arg) []arg {
	var out []arg
	for _, a := range as {
		if _, err := strconv.Atoi(a.text); err == nil || !a.static && strings.Contains(a.text, "$") && !a.subst || strings.Contains(a.text, "PPID") {
			out = append(out, a)
		}
	}
	return out
}

// urlTools take host names and URLs as operands.
var urlTools = map[string]bool{
	"curl": true, "wget": true, "http": true, "https": true, "xh": true, "ping": true, "ping6": true, "dig": true,
	"nslookup": true, "host": true, "drill": true, "whois": true, "traceroute": true, "aria2c": true, "git": true,
	"nc": true, "ncat": true, "telnet": true, "ssh": true, "websocat": true, "wscat": true, "grpcurl": true,
}

// secretURLs flags a secret (a token variable, a key file) placed into a
// URL or a host name: it leaves the machine in the request itself.
func (x *command) secretURLs() {
	if !urlTools[x.name] && !isDownloader(x.name) {
		return
	}
	for _, a := range x.args[1:] {
		t := a.text
		if strings.HasPrefix(t, "-") || strings.ContainsAny(t, " \t\n") {
			continue
		}
		if (strings.Contains(t, "://") || strings.ContainsAny(t, "./")) && mentionsSecret(t) && !isSecret(t) {
			x.flag(catExfil)
			return
		}
	}
}
