package bash

import (
	"path"
	"regexp"
	"strings"
)

// canon puts a path in a form the checks below can compare: the home
// directory, however written (~, $HOME, ${HOME}, /root, /home/bob,
// /Users/bob), becomes "~", and "." and ".." are resolved.
func canon(p string) string {
	rest, home := "", false
	for _, h := range []string{"~", "$HOME", "${HOME}", "/root"} {
		if p == h || strings.HasPrefix(p, h+"/") {
			rest, home = p[len(h):], true
			break
		}
	}
	if !home {
		for _, h := range []string{"/home/", "/Users/"} {
			if strings.HasPrefix(p, h) && len(p) > len(h) {
				user, after, _ := strings.Cut(p[len(h):], "/")
				if user != "" && !strings.ContainsAny(user, "*?[") {
					rest, home = "/"+after, true
				}
				break
			}
		}
	}
	if home {
		c := path.Clean("/" + rest)
		if c == "/" {
			return "~"
		}
		return "~" + c
	}
	if strings.HasPrefix(p, "/") {
		return path.Clean(p)
	}
	if p == "" {
		return p
	}
	return path.Clean(p)
}

// inHome reports whether p (canonical) is the home directory or under it.
func inHome(p string) bool { return p == "~" || strings.HasPrefix(p, "~/") }

// under reports whether p is dir or inside it (both canonical).
func under(p, dir string) bool {
	d := strings.TrimSuffix(dir, "/") // p starts with d + "/", without making that string
	return p == dir || len(p) > len(d) && p[len(d)] == '/' && strings.HasPrefix(p, d)
}

// System and home locations whose modification changes how the machine,
// the user's shell or their credentials behave.
var (
	sensitiveDirs = []string{
		"/etc", "/boot", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
		"/var/spool/cron", "/var/lib", "/sys", "/proc", "/System", "/Library", "/private/etc",
		"~/.ssh", "~/.aws", "~/.gnupg", "~/.kube", "~/.docker", "~/.azure", "~/.config/gcloud",
		"~/.config/autostart", "~/.config/systemd", "~/.config/fish", "~/.local/bin", "~/Library/LaunchAgents",
	}
	sensitiveHomeFiles = []string{
		".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zprofile",
		".zshenv", ".zlogin", ".zlogout", ".cshrc", ".tcshrc", ".kshrc", ".inputrc", ".xinitrc",
		".xprofile", ".netrc", ".git-credentials", ".gitconfig", ".npmrc", ".pypirc", ".vimrc",
		".curlrc", ".wgetrc", ".bash_history", ".zsh_history",
	}
	// Writable device files that hold no data.
	harmlessDevices = []string{"/dev/null", "/dev/zero", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty", "/dev/random", "/dev/urandom", "/dev/full"}
	harmlessDevDirs = []string{"/dev/fd", "/dev/pts", "/dev/shm", "/proc/self/fd", "/dev/tcp", "/dev/udp"}
	diskDevice      = regexp.MustCompile(`^/dev/(sd|hd|vd|xvd|nvme|mmcblk|md|dm-|disk|rdisk|loop|sr|mapper/|mem$|kmem$|port$)`)
)

// writeRisk says what writing to (or deleting) p would touch: "" when
// nothing in particular, else catSensitive or catDisk.
func writeRisk(p string) string {
	c := canon(p)
	if strings.HasPrefix(c, "/dev/") || c == "/dev" {
		for _, d := range harmlessDevices {
			if c == d {
				return ""
			}
		}
		for _, d := range harmlessDevDirs {
			if under(c, d) {
				return ""
			}
		}
		if diskDevice.MatchString(c) {
			return catDisk
		}
		return catSensitive
	}
	if under(c, "/proc/self/fd") {
		return ""
	}
	for _, d := range sensitiveDirs {
		if under(c, d) {
			return catSensitive
		}
	}
	if inHome(c) {
		for _, f := range sensitiveHomeFiles {
			if c == "~/"+f {
				return catSensitive
			}
		}
	}
	switch path.Base(c) {
	case "authorized_keys", ".npmrc", ".yarnrc", ".yarnrc.yml", ".gitconfig", ".envrc":
		return catSensitive // config that makes a tool run commands, in any directory
	}
	if c == "/" || c == "~" || inGitDir(c) {
		return catSensitive
	}
	return ""
}

// inGitDir reports a path that is a repository's .git directory or in it:
// moving, truncating or overwriting any of it (HEAD, index, objects, refs,
// hooks, config) loses the history or makes git run code. .git/info/exclude,
// the repository's own ignore list, is the one file there people edit.
func inGitDir(c string) bool {
	git := c == ".git" || strings.HasPrefix(c, ".git/") || strings.HasSuffix(c, "/.git") || strings.Contains(c, "/.git/")
	return git && !strings.HasSuffix(c, ".git/info/exclude")
}

var (
	secretDirs  = []string{"~/.ssh", "~/.aws", "~/.gnupg", "~/.kube", "~/.azure", "~/.config/gcloud", "~/.password-store", "~/.local/share/keyrings", "/etc/ssh"}
	secretFiles = []string{"~/.netrc", "~/.git-credentials", "~/.docker/config.json", "~/.npmrc", "~/.pypirc", "~/.bash_history", "~/.zsh_history", "/etc/shadow", "/etc/gshadow", "/etc/sudoers"}
	secretBase  = regexp.MustCompile(`^(id_(rsa|dsa|ecdsa|ed25519)(_sk)?|.*\.(pem|key|p12|pfx|kdbx)|\.env(\..*)?|credentials(\.json)?|secrets?\.(json|ya?ml|txt))$`)
	// Text that names a secret inside a longer word: "$(cat ~/.ssh/id_rsa)",
	// "token=$GITHUB_TOKEN". Each alternative at the top: most words hold
	// none of their literals and are not run through any.
	secretMention = mustAnyOf(`(?i)\.ssh/|\.aws/|\.gnupg|\.netrc|\.git-credentials|\.kube/config|\.docker/config\.json|/etc/shadow|/etc/sudoers|\bid_(rsa|dsa|ecdsa|ed25519)\b|\.pypirc|\.npmrc|\$\{?[A-Za-z0-9_]*(SECRET|TOKEN|PASSWORD|PASSWD|API_?KEY|PRIVATE_KEY|ACCESS_KEY|CREDENTIAL)[A-Za-z0-9_]*`)
)

// privateSecret reports a secret whose content is private: isSecret's
// files but public keys, known hosts and ssh's own config.
func privateSecret(p string) bool {
	c := canon(p)
	switch base := path.Base(c); {
	case strings.HasSuffix(base, ".pub"), strings.HasPrefix(base, "known_hosts"), base == "authorized_keys",
		base == "config" && under(c, "~/.ssh"):
		return false
	}
	return isSecret(c)
}

// isSecret reports whether p names a credential or key file.
func isSecret(p string) bool {
	c := canon(p)
	for _, d := range secretDirs {
		if under(c, d) {
			return true
		}
	}
	for _, f := range secretFiles {
		if c == f {
			return true
		}
	}
	return secretBase.MatchString(path.Base(c))
}

// leaksHome reports whether sending p off the machine sends secrets or the
// user's home files.
func leaksHome(p string) bool { return isSecret(p) || inHome(canon(p)) }

// mentionsSecret reports whether a word names a secret anywhere in it.
func mentionsSecret(s string) bool { return secretMention.MatchString(s) || isSecret(s) }

// isRemote reports whether an scp/rsync/rclone operand names another
// machine: host:path, user@host:path, scp://..., rsync://...
func isRemote(s string) bool {
	for _, p := range []string{"scp://", "sftp://", "rsync://", "s3://", "gs://", "ssh://"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	host, _, ok := strings.Cut(s, ":")
	return ok && host != "" && !strings.ContainsAny(host, "/ ") && !strings.HasPrefix(host, "-")
}

// outsideDir reports whether a path operand may point outside the working
// directory dir ("" when unknown).
func outsideDir(a arg, dir string) bool {
	t := a.text
	switch {
	case strings.HasPrefix(t, "~"), strings.HasPrefix(t, "$"):
		return true
	case strings.HasPrefix(t, "/"):
		return dir == "" || !under(path.Clean(t), path.Clean(dir))
	}
	c := path.Clean(t)
	return c == ".." || strings.HasPrefix(c, "../")
}
