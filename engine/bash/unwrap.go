package bash

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
	case "envdir":
		return at(skipOpts(args, "") + 1), true // envdir DIR CMD
	case "cross-env", "cross-env-shell":
		return at(skipAssigns(args, 1)), true
	case "env-cmd":
		return at(skipOpts(args, "-f -e -r --file --environments --rc-file")), true
	case "dotenv":
		for k, a := range args {
			if a.text == "--" {
				return at(k + 1), true // dotenv -e .env -- CMD
			}
		}
	case "nohup", "builtin", "setsid", "unbuffer", "rlwrap", "with-contenv", "chronic", "ts", "sem", "nice-run", "tini", "dumb-init", "gosu", "su-exec", "setpriv", "authbind", "faketime", "nocache", "eatmydata", "trickle", "cpulimit", "lxterminal-run", "proxychains", "proxychains4", "torsocks", "catchsegv", "nsenter", "unshare", "firejail",
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
	case "bundle", "poetry", "pipenv", "pdm", "hatch", "rye", "uv", "conda", "mamba", "micromamba", "npm", "pnpm", "yarn", "mise", "asdf", "direnv", "doppler", "op", "aws-vault", "nix", "bun":
		// bundle exec CMD, poetry run CMD, direnv exec DIR CMD...: the
		// subcommand that runs the rest; any other subcommand is no wrapper.
		i := skipOpts(args, "-n -p --name --prefix -C --cwd --dir --directory --env --project")
		if i >= len(args) {
			return nil, false
		}
		switch sub := args[i].text; {
		case sub == "exec" && name != "doppler" && name != "bun" || sub == "run" && name != "npm" && name != "pnpm" && name != "yarn" && name != "nix" && name != "bun" || sub == "dlx" || sub == "x":
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
	case "prlimit":
		if o("-p --pid -o --output").has("-p", "--pid") {
			return nil, true
		}
		return at(skipOpts(args, "-p --pid -o --output")), true
	case "sshpass": // sshpass -p PASSWORD ssh HOST CMD
		return at(skipOpts(args, "-p -f -d -P")), true
	case "xvfb-run":
		return at(skipOpts(args, "-n -s -f -e -w -p --server-num --server-args --auth-file --error-file --wait")), true
	}
	return nil, false
}
