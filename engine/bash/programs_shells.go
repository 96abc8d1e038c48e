package bash

// Shells, interpreters, shell builtins and wrappers that run another
// command: what they run is judged (shellcode, scripts read from disk,
// wrapped commands); they themselves are known.
var shellPrograms = mergeTables(table(plain,
	"bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "fish", "yash", "tcsh", "csh", "rbash", "busybox",
	"perl", "ruby", "node", "nodejs", "lua", "luajit", "Rscript", "R", "osascript", "pypy", "pypy3",
	"ghci", "julia", "tclsh", "wish", "guile", "racket", "sbcl", "ocaml", "erl", "elixir", "iex", "scala", "kotlin",
	"groovy", "jshell", "dotnet-script", "ts-node", "tsx", "esno", "jjs",
	// builtins and keywords
	"cd", "pushd", "popd", "dirs", "export", "unset", "set", "shopt", "declare", "typeset", "local", "readonly",
	"read", "mapfile", "readarray", "shift", "getopts", "let", "exit", "return", "break", "continue", "wait",
	"jobs", "fg", "bg", "disown", "suspend", "type", "hash", "alias", "unalias", "eval", "source", ".", "exec",
	"trap", "umask", "times", "caller", "complete", "compgen", "compopt", "history", "fc", "bind",
	"enable", "logout", ":", "command", "builtin", "time", "coproc", "select", "function",
	// wrappers: the command they run is judged
	"sudo", "doas", "pkexec", "su", "runuser", "sg", "nohup", "setsid", "unbuffer", "timeout", "nice", "ionice",
	"chrt", "taskset", "stdbuf", "chroot", "nsenter", "unshare", "firejail", "fakeroot", "xargs", "parallel",
	"watch", "flock", "tmux", "screen", "xvfb-run", "dbus-run-session", "dbus-launch", "caffeinate", "catchsegv",
	"proxychains", "proxychains4", "torsocks", "ssh-agent", "strace", "ltrace", "systemd-run", "at",
	"batch", "nix-shell", "dotenv", "envdir", "with-contenv", "rlwrap",
	"cross-env", "cross-env-shell", "env-cmd", "chronic", "ts", "tini", "dumb-init", "faketime", "eatmydata", "gosu", "su-exec", "setpriv",
), map[string]spec{
	"npx":  {quiet: []string{"*"}},
	"pnpx": {quiet: []string{"*"}},
	"bunx": {quiet: []string{"*"}},
	"uvx":  {quiet: []string{"*"}},
})
