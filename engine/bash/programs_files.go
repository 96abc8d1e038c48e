package bash

// Files: listing, reading, copying, archiving. Writes and deletions are
// judged by the workspace code (workspace.go) and the judgments in
// commands.go; these programs have no subcommands.
var filePrograms = table(plain,
	"ls", "ll", "la", "dir", "vdir", "cat", "tac", "nl", "head", "tail", "less", "more", "most", "bat", "batcat",
	"cp", "mv", "rm", "rmdir", "mkdir", "touch", "ln", "link", "unlink", "install", "mktemp", "realpath", "readlink",
	"basename", "dirname", "pwd", "stat", "file", "du", "df", "tree", "find", "fd", "fdfind", "locate", "which", "whereis",
	"chmod", "chown", "chgrp", "chattr", "lsattr", "setfacl", "getfacl", "truncate", "shred", "wipe", "srm", "dd", "sync",
	"tar", "gzip", "gunzip", "zcat", "bzip2", "bunzip2", "bzcat", "xz", "unxz", "xzcat", "zstd", "unzstd", "zstdcat",
	"lz4", "zip", "unzip", "7z", "7za", "rar", "unrar", "cpio", "ar", "split", "csplit", "md5sum", "sha1sum",
	"sha256sum", "sha512sum", "b2sum", "cksum", "sum", "shasum", "cmp", "diff", "diff3", "sdiff", "colordiff", "patch",
	"rsync", "rclone", "rimraf", "tee", "mkfifo", "mknod", "fallocate", "namei", "lsblk", "blkid", "findmnt",
	"exa", "eza", "lsd", "ncdu", "vim", "vi", "nvim", "view", "vimdiff", "gvim", "ex", "nano", "pico", "emacs",
	"emacsclient", "micro", "code", "subl", "hx", "kak", "ed", "trash", "dos2unix", "unix2dos",
	"inotifywait", "entr", "fswatch", "sponge", "pv",
)

// Text: searching and transforming text on stdin or in files.
var textPrograms = table(plain,
	"grep", "egrep", "fgrep", "rg", "ag", "ack", "sed", "awk", "gawk", "mawk", "nawk", "cut", "paste", "join", "sort",
	"uniq", "wc", "tr", "fold", "fmt", "pr", "column", "expand", "unexpand", "rev", "shuf", "comm", "strings", "od",
	"xxd", "hexdump", "hd", "base64", "base32", "basenc", "iconv", "jq", "yq", "gojq", "jless", "fx", "xmllint",
	"xmlstarlet", "xq", "csvlook", "mlr", "envsubst", "printf", "echo", "seq", "yes", "look", "numfmt", "tsort",
	"md", "glow", "pandoc", "man", "info", "tldr", "apropos", "whatis", "help", "column", "figlet", "cowsay", "lolcat",
	"diffstat", "wdiff", "delta", "difft", "sha3sum", "gpg", "gpg2", "openssl", "age", "ssh-keygen", "base", "clear",
	"reset", "tput", "stty", "tty", "script", "expect", "bc", "dc", "expr", "factor", "units", "cal", "date", "sleep",
	"true", "false", "test", "[", "[[", "uuidgen", "hostname", "uname", "whoami", "id", "groups", "who", "w", "users",
	"last", "lastlog", "uptime", "locale", "getent", "logname", "nproc", "arch", "printenv", "env", "tzselect",
)

// table gives every name the same spec.
func table(s spec, names ...string) map[string]spec {
	t := make(map[string]spec, len(names))
	for _, n := range names {
		t[n] = s
	}
	return t
}
