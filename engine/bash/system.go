package bash

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Judgments of system, database, package and infrastructure commands.

// database judges SQL, Redis and MongoDB clients by the statements they
// are given (-c, -e, --eval, operands, here-documents).
func (x *command) database() {
	o := parseOpts(x.args, "-c -e -q -Q -d -h -p -P -U -u -D -f -o -v -F -R -T -L -S -a -n -r -i -s "+
		"--command --execute --query --eval --dbname --host --port --username --user --database --file --set "+
		"--variable --output --pset --log-file --socket -cmd --pass --cert --key --cacert")
	var texts []string
	for _, v := range o.all("-c", "-e", "-q", "-Q", "--command", "--execute", "--query", "--eval", "-cmd") {
		if v.subst {
			x.flag(catDatabase)
			return
		}
		texts = append(texts, v.text)
	}
	switch x.name {
	case "sqlite3", "sqlite", "duckdb":
		for _, op := range o.operands[min(1, len(o.operands)):] {
			texts = append(texts, op.text)
		}
	case "redis-cli":
		var words []string
		for _, op := range o.operands {
			words = append(words, op.text)
		}
		texts = append(texts, strings.Join(words, " "))
	case "dropdb", "dropuser":
		x.flag(catDatabase)
		return
	case "mysqladmin":
		if hasOperand(x.args, "drop") || hasOperand(x.args, "shutdown") {
			x.flag(catDatabase)
			return
		}
	}
	if text, ok := x.l.stdinText(x.redirs); ok {
		texts = append(texts, text)
	}
	files := o.all("-f", "--file")
	if x.name == "sqlite3" || x.name == "sqlite" || x.name == "duckdb" || x.name == "mongosh" || x.name == "mongo" {
		files = nil // -f is no script file there
	}
	for _, r := range x.redirs {
		if r.Op == syntax.RdrIn && r.Word != nil && (r.N == nil || r.N.Value == "0") {
			files = append(files, x.l.word(r.Word))
		}
	}
	for _, op := range o.operands {
		if (x.name == "mongosh" || x.name == "mongo") && (strings.HasSuffix(op.text, ".js") || strings.HasSuffix(op.text, ".mongodb")) {
			files = append(files, op)
		}
	}
	for _, f := range files {
		if strings.HasPrefix(f.text, ".read") {
			continue
		}
		fileTexts, problem := x.l.scriptTexts(f)
		if problem != "" {
			x.flag(catScript)
			return
		}
		texts = append(texts, fileTexts...)
	}
	for _, t := range texts {
		if dangerousSQL(t) {
			x.flag(catDatabase)
			return
		}
	}
}

// dangerousSQL reports statements that drop, truncate or wipe data:
// DROP ..., TRUNCATE, DELETE or UPDATE without WHERE, ALTER TABLE ... DROP,
// Redis FLUSHALL/FLUSHDB, MongoDB dropDatabase()/drop()/deleteMany({}).
func dangerousSQL(s string) bool {
	low := strings.ToLower(s)
	compact := strings.Join(strings.Fields(low), "")
	for _, m := range []string{"dropdatabase(", ".drop()", "deletemany({})", ".remove({})", "flushall", "flushdb",
		"configset", "config set", "shutdown", "replicaof", "slaveof", "debugsegfault", "scriptflush", "functionflush",
		"aclsetuser", "acldeluser", "dropuser(", "dropallusers", "dropindexes", "renamecollection"} {
		if strings.Contains(compact, m) {
			return true
		}
	}
	for _, stmt := range strings.Split(low, ";") {
		st := " " + strings.Join(strings.Fields(stmt), " ") + " "
		switch {
		case strings.Contains(st, " drop table "), strings.Contains(st, " drop database "), strings.Contains(st, " drop schema "),
			strings.Contains(st, " drop user "), strings.Contains(st, " drop role "), strings.Contains(st, " drop view "),
			strings.Contains(st, " drop index "), strings.Contains(st, " drop keyspace "), strings.Contains(st, " drop collection "),
			strings.HasPrefix(st, " truncate "):
			if strings.HasPrefix(st, " drop ") || strings.HasPrefix(st, " truncate ") || strings.HasPrefix(st, " alter ") ||
				strings.Contains(st, " if exists ") || !strings.ContainsAny(st, "'\"") {
				return true
			}
		case strings.HasPrefix(st, " delete from ") || strings.HasPrefix(st, " update ") && strings.Contains(st, " set "):
			if !strings.Contains(st, " where ") {
				return true
			}
		case strings.HasPrefix(st, " alter table ") && strings.Contains(st, " drop "):
			return true
		case strings.HasPrefix(st, " shutdown "), strings.HasPrefix(st, " grant "), strings.HasPrefix(st, " revoke "),
			strings.HasPrefix(st, " alter user "), strings.HasPrefix(st, " alter role "), strings.HasPrefix(st, " create user "),
			strings.HasPrefix(st, " create role "), strings.HasPrefix(st, " set password "), strings.HasPrefix(st, " rename table "):
			return true
		}
	}
	return false
}

// system judges process, service and firewall control.
func (x *command) system() {
	args := x.args
	switch x.name {
	case "kill":
		for i := 1; i < len(args); i++ {
			t := args[i].text
			switch {
			case (t == "-s" || t == "-n" || t == "--signal") && i+1 < len(args):
				i++
				if isKillSignal(args[i].text) {
					x.flag(catSystem)
					return
				}
			case t == "-1" || t == "1":
				x.flag(catSystem)
				return
			case strings.HasPrefix(t, "-") && isKillSignal(t[1:]):
				x.flag(catSystem)
				return
			}
		}
	case "killall", "pkill", "killall5", "skill", "slay", "xkill", "shutdown", "reboot", "halt", "poweroff", "rmmod", "insmod":
		x.flag(catSystem)
	case "init", "telinit":
		switch parseOpts(args, "").operand(0) {
		case "0", "1", "6", "s", "S", "single":
			x.flag(catSystem)
		}
	case "systemctl":
		o := parseOpts(args, "-H -M -t -s -p -n -o --host --machine --type --signal --property --lines --output --root")
		switch o.operand(0) {
		case "stop", "disable", "mask", "kill", "reboot", "poweroff", "halt", "isolate", "restart", "try-restart",
			"reload-or-restart", "emergency", "rescue", "suspend", "hibernate", "hybrid-sleep", "kexec", "exit",
			"switch-root", "soft-reboot", "daemon-reexec", "reset-failed", "clean", "freeze":
			x.flag(catSystem)
		}
	case "service":
		switch parseOpts(args, "").operand(1) {
		case "stop", "restart", "force-reload", "try-restart":
			x.flag(catSystem)
		}
	case "launchctl":
		switch parseOpts(args, "").operand(0) {
		case "unload", "remove", "bootout", "stop", "kill", "disable":
			x.flag(catSystem)
		}
	case "sysctl":
		o := parseOpts(args, "")
		if o.has("-w", "--write", "-p", "--load", "--system") || len(o.operands) > 0 && strings.Contains(o.operand(0), "=") {
			x.flag(catSystem)
		}
	case "iptables", "ip6tables", "iptables-legacy", "iptables-nft", "ebtables":
		if parseOpts(args, "").has("-F", "--flush", "-X", "--delete-chain", "-P", "--policy") {
			x.flag(catSystem)
		}
	case "nft":
		if hasOperand(args, "flush") || hasOperand(args, "delete") {
			x.flag(catSystem)
		}
	case "ufw":
		switch parseOpts(args, "").operand(0) {
		case "disable", "reset", "delete":
			x.flag(catSystem)
		}
	case "modprobe":
		if parseOpts(args, "").has("-r", "--remove") {
			x.flag(catSystem)
		}
	case "swapoff", "umount", "mkswap", "wipefs", "blkdiscard", "badblocks", "cryptsetup", "e2fsck", "tune2fs",
		"resize2fs", "lvremove", "vgremove", "pvremove", "lvreduce", "mdadm", "mke2fs", "hdparm", "dmsetup":
		x.flag(catDisk)
	case "fdisk", "sfdisk", "cfdisk", "gdisk", "sgdisk", "parted":
		o := parseOpts(args, "")
		if !(o.has("-l", "--list") && len(o.flags) == 1) {
			x.flag(catDisk)
		}
	case "mount":
		if len(parseOpts(args, "-t -o").operands) > 0 {
			x.flag(catDisk)
		}
	case "zpool", "zfs":
		switch parseOpts(args, "").operand(0) {
		case "destroy", "labelclear", "rollback":
			x.flag(catDisk)
		}
	case "diskutil":
		switch strings.ToLower(parseOpts(args, "").operand(0)) {
		case "erasedisk", "erasevolume", "partitiondisk", "zerodisk", "securerase", "secureerase", "randomdisk", "unmountdisk", "reformat":
			x.flag(catDisk)
		}
	default:
		if strings.HasPrefix(x.name, "mkfs") || strings.HasPrefix(x.name, "fsck") {
			x.flag(catDisk)
		}
	}
}

func isKillSignal(s string) bool {
	s = strings.TrimPrefix(strings.ToUpper(s), "SIG")
	return s == "KILL" || s == "9"
}

// packages judges package removal.
func (x *command) packages() {
	o := parseOpts(x.args, "-o -c -t --option --config-file --target-release --root --prefix -n --name -p --prefix")
	verb := o.operand(0)
	remove := false
	switch x.name {
	case "apt", "apt-get", "aptitude":
		remove = verb == "remove" || verb == "purge" || verb == "autoremove" || verb == "autopurge"
	case "dpkg":
		remove = o.has("-r", "-P", "--remove", "--purge")
	case "rpm":
		remove = o.has("-e", "--erase")
	case "yum", "dnf", "microdnf", "tdnf":
		remove = verb == "remove" || verb == "erase" || verb == "autoremove"
	case "pacman", "yay", "paru":
		remove = o.has("-R", "--remove")
	case "zypper":
		remove = verb == "remove" || verb == "rm"
	case "apk":
		remove = verb == "del"
	case "brew":
		remove = verb == "uninstall" || verb == "remove" || verb == "rm" || verb == "autoremove"
	case "snap":
		remove = verb == "remove"
	case "flatpak":
		remove = verb == "uninstall" || verb == "remove"
	case "npm", "pnpm":
		remove = (verb == "uninstall" || verb == "remove" || verb == "rm" || verb == "r" || verb == "un") && o.has("-g", "--global")
	case "yarn":
		remove = verb == "global" && (o.operand(1) == "remove" || o.operand(1) == "uninstall")
	case "pip", "pip3", "pipx":
		remove = verb == "uninstall" || verb == "uninstall-all"
	case "uv":
		remove = verb == "pip" && o.operand(1) == "uninstall" || verb == "tool" && o.operand(1) == "uninstall"
	case "gem", "cargo", "port", "choco", "winget", "scoop":
		remove = verb == "uninstall"
	case "conda", "mamba", "micromamba":
		remove = verb == "remove" || verb == "uninstall" || verb == "env" && o.operand(1) == "remove"
	case "nix-env":
		remove = o.has("-e", "--uninstall")
	}
	if remove {
		x.flag(catPackage)
	}
}

// infra judges containers, clusters and cloud resources.
func (x *command) infra() {
	args := x.args
	switch x.name {
	case "docker", "podman", "nerdctl":
		i := skipOpts(args, "-H -c -l --host --context --config --log-level --tlscacert --tlscert --tlskey")
		if i < len(args) {
			x.docker(args[i:])
		}
	case "docker-compose", "podman-compose":
		x.compose(args)
	case "kubectl", "oc", "microk8s.kubectl":
		x.kubectl()
	case "helm":
		switch parseOpts(args, "-n --namespace --kube-context --kubeconfig").operand(0) {
		case "uninstall", "delete", "del", "un":
			x.flag(catInfra)
		}
	case "terraform", "tofu", "terragrunt", "pulumi":
		o := parseOpts(args, "-chdir -var -var-file -target -s --stack")
		if o.operand(0) == "destroy" || o.operand(0) == "apply" && o.has("-destroy", "--destroy") ||
			o.operand(0) == "state" && o.operand(1) == "rm" || o.operand(0) == "stack" && o.operand(1) == "rm" {
			x.flag(catInfra)
		}
	case "aws":
		o := parseOpts(args, "--profile --region --output --endpoint-url --query --cli-input-json --exclude --include")
		ops := o.operands
		for _, op := range ops {
			if strings.HasPrefix(op.text, "delete-") || strings.HasPrefix(op.text, "terminate-") || strings.HasPrefix(op.text, "deregister-") {
				x.flag(catInfra)
				return
			}
		}
		if o.operand(0) == "s3" {
			switch o.operand(1) {
			case "rb":
				x.flag(catInfra)
			case "rm":
				if o.has("--recursive") {
					x.flag(catInfra)
				}
			case "cp", "sync", "mv":
				if o.has("--delete") {
					x.flag(catInfra)
				}
				x.transfer(ops[2:])
			}
		}
	case "gsutil":
		o := parseOpts(args, "-o -h")
		switch o.operand(0) {
		case "rm", "rb":
			x.flag(catInfra)
		case "cp", "rsync", "mv":
			if o.has("-d") {
				x.flag(catInfra)
			}
			x.transfer(o.operands[1:])
		}
	case "gcloud", "az", "doctl", "linode-cli", "hcloud", "flyctl", "fly", "heroku", "vercel", "netlify":
		for _, op := range parseOpts(args, "--project --region --zone --format --account -g --resource-group -a --app").operands {
			switch op.text {
			case "delete", "destroy", "rm", "remove", "apps:destroy", "pg:reset", "apps:delete":
				x.flag(catInfra)
				return
			}
		}
	}
}

// docker judges a docker/podman subcommand; rest starts at it.
func (x *command) docker(rest []arg) {
	o := parseOpts(rest, "")
	switch rest[0].text {
	case "rm", "rmi", "kill":
		x.flag(catInfra)
	case "container", "image", "volume", "network", "system", "builder", "secret", "config", "node", "plugin", "context", "buildx", "stack", "swarm":
		switch o.operand(0) {
		case "prune", "rm", "remove", "kill", "down":
			x.flag(catInfra)
		case "leave":
			if o.has("-f", "--force") {
				x.flag(catInfra)
			}
		}
	case "compose":
		x.compose(rest)
	case "run", "create":
		if privilegedContainer(rest) {
			x.flag(catPrivilege)
		}
	case "exec":
		if i := skipOpts(rest, "-u -w -e --user --workdir --env --env-file --detach-keys"); i+1 < len(rest) {
			x.nested(rest[i+1:], nil, x.via)
		}
	}
}

// compose judges docker compose: down -v, rm, kill.
func (x *command) compose(args []arg) {
	o := parseOpts(args, "-f -p --file --project-name --profile --env-file --project-directory")
	switch o.operand(0) {
	case "down":
		if o.has("-v", "--volumes", "--rmi") {
			x.flag(catInfra)
		}
	case "rm", "kill":
		x.flag(catInfra)
	}
}

// privilegedContainer reports docker run options that give the container
// the host: --privileged, host namespaces, mounts of / or the docker socket.
func privilegedContainer(args []arg) bool {
	o := parseOpts(args, "-v -e -p -w -u -l -m -h --volume --mount --env --name --publish --workdir --user --network --net --pid "+
		"--cap-add --device --entrypoint --security-opt --userns --ipc --uts --label --env-file --platform --memory --cpus "+
		"--hostname --restart --log-driver --tmpfs --add-host --dns --ulimit --shm-size --gpus")
	if o.has("--privileged", "--device") {
		return true
	}
	for _, v := range o.all("--pid", "--net", "--network", "--ipc", "--uts", "--userns") {
		if v.text == "host" {
			return true
		}
	}
	for _, v := range o.all("--cap-add") {
		switch strings.ToUpper(strings.TrimPrefix(strings.ToUpper(v.text), "CAP_")) {
		case "ALL", "SYS_ADMIN", "SYS_MODULE", "SYS_PTRACE", "SYS_RAWIO", "DAC_READ_SEARCH":
			return true
		}
	}
	var sources []string
	for _, v := range o.all("-v", "--volume") {
		src, _, _ := strings.Cut(v.text, ":")
		sources = append(sources, src)
	}
	for _, v := range o.all("--mount") {
		for _, kv := range strings.Split(v.text, ",") {
			if s, ok := strings.CutPrefix(kv, "source="); ok {
				sources = append(sources, s)
			} else if s, ok := strings.CutPrefix(kv, "src="); ok {
				sources = append(sources, s)
			}
		}
	}
	for _, s := range sources {
		c := canon(s)
		if c == "/" || c == "~" || strings.HasSuffix(c, "docker.sock") || writeRisk(s) != "" {
			return true
		}
	}
	return false
}

// kubectl judges deletions, drains, forced replaces, scale to zero and
// the command of kubectl exec.
func (x *command) kubectl() {
	o := parseOpts(x.args, "-n -s -l -o -f -c --namespace --context --kubeconfig --server --cluster --user --as --as-group "+
		"--token --selector --output --filename --container --replicas --timeout")
	switch o.operand(0) {
	case "delete", "drain":
		x.flag(catInfra)
	case "replace":
		if o.has("--force") {
			x.flag(catInfra)
		}
	case "scale":
		for _, r := range o.all("--replicas") {
			if r.text == "0" {
				x.flag(catInfra)
			}
		}
	case "apply":
		if o.has("--prune") {
			x.flag(catInfra)
		}
	case "exec":
		for i, a := range x.args {
			if a.text == "--" && i+1 < len(x.args) {
				x.nested(x.args[i+1:], nil, x.via)
				break
			}
		}
	}
}
