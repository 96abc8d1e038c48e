package bash

// System administration. The judgments of system.go catch the known
// destructive forms (kill -9, systemctl stop, mkfs...); these programs are
// known, the rest of system administration (grub, efibootmgr, nmcli...)
// is not listed, and so it asks.
var systemPrograms = mergeTables(table(plain,
	"kill", "killall", "pkill", "killall5", "skill", "slay", "xkill", "shutdown", "reboot", "halt", "poweroff", "rmmod",
	"insmod", "modprobe", "lsmod", "modinfo", "init", "telinit", "sysctl", "iptables", "ip6tables", "iptables-legacy",
	"iptables-nft", "ebtables", "nft", "ufw", "swapoff", "swapon", "umount", "mount", "mkswap", "wipefs", "blkdiscard",
	"badblocks", "cryptsetup", "e2fsck", "tune2fs", "resize2fs", "lvremove", "vgremove", "pvremove", "lvreduce",
	"mdadm", "mke2fs", "hdparm", "dmsetup", "fdisk", "sfdisk", "cfdisk", "gdisk", "sgdisk", "parted", "zpool", "zfs",
	"diskutil", "useradd", "userdel", "usermod", "adduser", "deluser", "passwd", "chpasswd", "groupadd", "groupdel",
	"groupmod", "gpasswd", "chsh", "chfn", "vipw", "vigr", "dscl", "visudo", "setcap", "getcap", "renice", "prlimit",
	"ulimit", "gcore", "pmap", "fuser", "timedatectl-status", "systemd-analyze", "loginctl-list", "sw_vers",
	"lsb_release", "hostnamectl-status", "getconf", "ipcs", "ipcrm",
), map[string]spec{
	"timedatectl":  {quiet: []string{"status", "show", "list-timezones", "timesync-status", "show-timesync"}, cat: catToolchain},
	"hostnamectl":  {quiet: []string{"status"}, cat: catToolchain},
	"loginctl":     {quiet: []string{"list-sessions", "list-users", "show-session", "show-user", "session-status", "user-status"}, cat: catSystem},
	"nmcli":        {quiet: []string{"device status", "dev status", "connection show", "con show", "general status", "radio", "device show", "d", "c"}, cat: catSystem},
	"defaults":     {quiet: []string{"read", "domains", "read-type", "find"}, cat: catToolchain},
	"gsettings":    {quiet: []string{"get", "list-schemas", "list-keys", "list-recursively", "range", "describe"}, cat: catToolchain},
	"dconf":        {quiet: []string{"read", "list", "dump", "watch"}, cat: catToolchain},
	"xdg-settings": {quiet: []string{"get", "check"}, cat: catToolchain},
	"launchctl":    {quiet: []string{"list", "print", "blame", "managerpid", "getenv", "version", "print-disabled", "load", "start"}, cat: catSystem},
})
