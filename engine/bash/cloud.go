package bash

// Containers, clusters and clouds: deletions, privileged containers and
// the commands containers and pods run.

import (
	"strings"
)

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
		ops := parseOpts(args, "--project --region --zone --format --account -g --resource-group -a --app --command -C").operands
		for _, shell := range cloudShells[x.name] {
			if n := strings.Count(shell, " ") + 1; len(ops) >= n && joinTexts(ops[:n]) == shell {
				x.flag(catRemote) // a shell, or a command, on the provider's machine
				return
			}
		}
		for _, op := range ops {
			switch op.text {
			case "delete", "destroy", "rm", "remove", "apps:destroy", "pg:reset", "apps:delete":
				x.flag(catInfra)
				return
			}
		}
	}
}

// cloudShells are the subcommands of cloud CLIs that open a shell, or run
// a command, on a machine of the provider: ssh by another name.
var cloudShells = map[string][]string{
	"gcloud":  {"compute ssh", "beta compute ssh", "alpha compute ssh", "cloud-shell ssh", "alpha cloud-shell ssh", "compute connect-to-serial-port"},
	"az":      {"ssh vm", "ssh arc", "vm run-command", "container exec", "containerapp exec", "webapp ssh"},
	"doctl":   {"compute ssh"},
	"flyctl":  {"ssh console", "ssh sftp", "console"},
	"fly":     {"ssh console", "ssh sftp", "console"},
	"heroku":  {"run", "run:detached", "run:inside", "ps:exec"},
	"hcloud":  {"server ssh"},
	"vercel":  {},
	"netlify": {},
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
		x.bindMounts(rest)
	case "cp":
		if ops := o.operands; len(ops) == 2 && !isContainerPath(ops[1].text) {
			x.writes(ops[1:])
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
	case "cp":
		if ops := o.operands; len(ops) == 3 && !isContainerPath(ops[2].text) {
			x.writes(ops[2:])
		}
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

// isContainerPath reports a docker cp / kubectl cp operand inside a
// container or pod (NAME:PATH).
func isContainerPath(s string) bool {
	name, _, ok := strings.Cut(s, ":")
	return ok && name != "" && !strings.Contains(name, "/")
}

// bindMounts asks before a container gets a writable host directory
// outside the workspace: what runs inside can change it.
func (x *command) bindMounts(args []arg) {
	o := parseOpts(args, "-v -e -p -w -u -l -m -h --volume --mount --env --name --publish --workdir --user --network --net --pid "+
		"--cap-add --device --entrypoint --security-opt --userns --ipc --uts --label --env-file --platform --memory --cpus "+
		"--hostname --restart --log-driver --tmpfs --add-host --dns --ulimit --shm-size --gpus")
	for _, v := range o.all("-v", "--volume") {
		parts := strings.Split(v.text, ":")
		src := parts[0]
		if len(parts) > 2 && strings.Contains(","+parts[2]+",", ",ro,") || !strings.ContainsAny(src[:min(1, len(src))], "/~.$") {
			continue // read-only, or a named volume
		}
		x.writes([]arg{{text: src, static: v.static || !strings.ContainsAny(src, "$`"), subst: v.subst}})
	}
	for _, v := range o.all("--mount") {
		src, ro := "", false
		for _, kv := range strings.Split(v.text, ",") {
			k, val, _ := strings.Cut(kv, "=")
			switch k {
			case "source", "src":
				src = val
			case "readonly", "ro":
				ro = val == "" || val == "true" || val == "1"
			}
		}
		if src != "" && !ro && strings.ContainsAny(src[:1], "/~.$") {
			x.writes([]arg{{text: src, static: v.static}})
		}
	}
}
