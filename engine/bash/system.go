package bash

// System administration: process, service, firewall and disk control, and
// package removal.

import (
	"strings"
)

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
			"switch-root", "soft-reboot", "daemon-reexec", "reset-failed", "clean", "freeze",
			// what starts or installs units: they run outside the sandbox, as
			// the service manager's (system or --user), and come back at boot
			"start", "enable", "reenable", "link", "edit", "preset", "preset-all", "unmask", "add-wants",
			"add-requires", "set-property", "set-environment", "import-environment", "daemon-reload", "revert", "thaw":
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
