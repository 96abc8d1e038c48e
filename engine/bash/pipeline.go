package bash

// Data flow between the stages of a pipeline: a download, secrets or
// known text flowing into a shell, the network or a database client.

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// pipeline judges what flows between the stages of a | b | c: a download
// or unknown text fed to a shell, secrets fed to the network, SQL fed to a
// database client.
func (l *level) pipeline(s *syntax.Stmt, top *syntax.BinaryCmd) {
	var stages []*syntax.Stmt
	var flatten func(st *syntax.Stmt)
	flatten = func(st *syntax.Stmt) {
		if b, ok := st.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) {
			put(&l.pipesDone, b, true)
			flatten(b.X)
			flatten(b.Y)
			return
		}
		stages = append(stages, st)
	}
	put(&l.pipesDone, top, true)
	flatten(s)
	disp := l.source(s)
	var up upstream
	up.text, up.textKnown = "", true
	for i, st := range stages {
		if i > 0 {
			l.consume(st, &up, disp)
		}
		l.produce(st, &up)
	}
}

// upstream sums up what the earlier stages of a pipeline produce.
type upstream struct {
	downloads bool   // a downloader's output flows down
	secrets   bool   // secret or home files, or the environment, flow down
	text      string // the exact text, when only echo/printf/cat <<EOF produce it
	textKnown bool
}

func (l *level) produce(st *syntax.Stmt, up *upstream) {
	syntax.Walk(st, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			args := l.effective(l.words(n.Args))
			if len(args) == 0 {
				return true
			}
			name := commandBase(args[0].text)
			if isDownloader(name) {
				up.downloads = true
			}
		}
		return true
	})
	up.secrets = up.secrets || l.readsSecrets(st)
	text, ok := l.staticOutput(st)
	up.textKnown = up.textKnown && ok
	if up.textKnown {
		up.text += text
	}
}

// readsSecrets reports whether n runs a command that outputs secrets or
// home files: the environment, key files, a password store.
func (l *level) readsSecrets(n syntax.Node) bool {
	found := false
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			args := l.effective(l.words(n.Args))
			if len(args) == 0 {
				return true
			}
			if printsSecrets(commandBase(args[0].text), args) {
				found = true
			}
			for _, a := range args[1:] {
				if l.leaks(a.text) || mentionsSecret(a.text) {
					found = true
				}
			}
		case *syntax.DeclClause:
			if (n.Variant.Value == "export" || n.Variant.Value == "declare" || n.Variant.Value == "typeset") &&
				(len(n.Args) == 0 || len(n.Args) == 1 && n.Args[0].Naked && n.Args[0].Name == nil) {
				found = true // export, export -p: the environment
			}
		case *syntax.Redirect:
			if n.Op == syntax.RdrIn && n.Word != nil && l.leaks(l.word(n.Word).text) {
				found = true
			}
		}
		return !found
	})
	return found
}

// printsSecrets reports commands whose output is secrets.
func printsSecrets(name string, args []arg) bool {
	switch name {
	case "env", "printenv", "set", "compgen", "export", "declare":
		return name != "export" && name != "declare" || len(args) == 1 || hasOperand(args, "-p")
	case "gpg", "gpg2":
		return hasOperand(args, "--export-secret-keys") || hasOperand(args, "--export-secret-subkeys")
	case "gh":
		return hasOperand(args, "auth") && hasOperand(args, "token")
	case "pass", "security", "keyring", "secret-tool":
		return true
	case "aws":
		return hasOperand(args, "configure") && (hasOperand(args, "get") || hasOperand(args, "export-credentials"))
	}
	return false
}

// secretReaders are programs that print what they read (files named as
// operands, or stdin).
var secretReaders = map[string]bool{
	"cat": true, "tac": true, "nl": true, "head": true, "tail": true, "less": true, "more": true, "most": true, "bat": true,
	"batcat": true, "view": true, "base64": true, "base32": true, "basenc": true, "xxd": true, "od": true, "hexdump": true,
	"hd": true, "strings": true, "grep": true, "egrep": true, "fgrep": true, "rg": true, "ag": true, "awk": true, "gawk": true,
	"sed": true, "cut": true, "sort": true, "uniq": true, "jq": true, "yq": true, "column": true, "fold": true, "fmt": true,
	"pr": true, "paste": true, "diff": true, "iconv": true, "uuencode": true, "zcat": true, "tr": true, "rev": true,
}

// printsSecret flags a program that prints a private secret from outside
// the workspace (cat ~/.ssh/id_rsa, base64 < ~/.aws/credentials): its
// output goes to the model, off the machine. The project's own files
// (its .env) are the workspace's.
func (x *command) printsSecret() {
	if !secretReaders[x.name] {
		return
	}
	reads := parseOpts(x.args, "").operands
	for _, r := range x.redirs {
		if r.Op == syntax.RdrIn && r.Word != nil && (r.N == nil || r.N.Value == "0") {
			reads = append(reads, x.l.word(r.Word))
		}
	}
	for _, a := range reads {
		p, ok := x.l.abs(a)
		if !ok {
			p = a.text
		} else if x.l.c.sc.dir != "" && under(p, x.l.c.sc.dir) {
			continue
		}
		if privateSecret(p) {
			x.flag(catSecretRead)
			return
		}
	}
}

// staticOutput is what a stage writes when it is known statically: echo
// and printf with static words, cat of a here-document.
func (l *level) staticOutput(st *syntax.Stmt) (string, bool) {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return "", false
	}
	args := l.words(call.Args)
	for _, a := range args {
		if !a.static {
			return "", false
		}
	}
	var words []string
	for _, a := range args[1:] {
		words = append(words, a.text)
	}
	switch commandBase(args[0].text) {
	case "echo":
		for len(words) > 0 && (words[0] == "-n" || words[0] == "-e" || words[0] == "-E") {
			words = words[1:]
		}
		return strings.Join(words, " ") + "\n", true
	case "printf":
		return printfText(words)
	case "cat":
		if len(words) == 0 {
			if text, ok := l.stdinText(st.Redirs); ok {
				return text, true
			}
			return "", false
		}
		files := make([]string, 0, len(args)-1) // cat FILE...: the files as written on the line or on disk
		for _, a := range args[1:] {
			if strings.HasPrefix(a.text, "-") {
				return "", false
			}
			texts, problem := l.scriptTexts(a)
			if problem != "" || len(texts) != 1 {
				return "", false
			}
			files = append(files, texts[0])
		}
		return strings.Join(files, ""), true // one file: its text, not a copy (cat /bin/rm > r reads 70 KB)
	}
	return "", false
}

// stdinText is the text a here-document or here-string feeds to stdin.
func (l *level) stdinText(rs []*syntax.Redirect) (string, bool) {
	for _, r := range rs {
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			if r.Hdoc == nil {
				return "", true
			}
			body := l.source(r.Hdoc) // the body as written: a quoted delimiter keeps backslashes
			if r.Word != nil {
				if d := strings.Trim(l.source(r.Word), `'"`); d != "" {
					body = strings.TrimSuffix(strings.TrimSuffix(body, "\n"), d)
				}
			}
			return body, true
		case syntax.WordHdoc:
			if r.Word != nil {
				return l.word(r.Word).text + "\n", true
			}
		}
	}
	return "", false
}

// consume judges a stage that reads what the earlier ones produce.
func (l *level) consume(st *syntax.Stmt, up *upstream, disp string) {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok {
		if up.downloads {
			l.c.flag(catDownloadExec, disp)
		}
		return
	}
	args := l.effective(l.words(call.Args))
	if len(args) == 0 {
		return
	}
	if !args[0].static {
		return // already flagged as a dynamic command
	}
	name := commandBase(args[0].text)
	switch {
	case readsCode(name, args):
		switch {
		case up.downloads:
			l.c.flag(catDownloadExec, disp)
		case up.textKnown && (isShell(name) || name == "at" || name == "batch"):
			for _, text := range escapeForms(up.text) {
				l.c.script(text, l.depth+1)
			}
		case up.textKnown:
			x := &command{l: l, args: args, name: name, disp: disp}
			for _, text := range escapeForms(up.text) {
				x.inlineText(text)
			}
			for _, f := range x.local {
				l.c.add(f)
			}
		default:
			l.c.flag(catDynamicCode, disp)
		}
	case isDatabaseClient(name):
		if up.textKnown && dangerousSQL(up.text) {
			l.c.flag(catDatabase, disp)
		}
	case (name == "make" || name == "gmake") && (hasOperand(args, "-") || hasOperand(args, "/dev/stdin")):
		x := &command{l: l, args: args, name: name, disp: disp}
		if up.textKnown {
			x.recipes(up.text)
		} else {
			x.flag(catDynamicCode)
		}
		for _, f := range x.local {
			l.c.add(f)
		}
	case isNetworkSender(name):
		if up.secrets {
			l.c.flag(catExfil, disp)
		}
	case ftpClient(name) && (name != "sftp" || !slices.ContainsFunc(args, func(a arg) bool { return isRemote(a.text) })):
		x := &command{l: l, args: args, name: name, disp: disp}
		if up.textKnown { // echo 'put x' | sftp host: the session's commands
			x.ftpCommands(up.text)
		} else {
			x.flag(catUpload) // commands a program prints: any file may be sent
		}
		for _, f := range x.local {
			l.c.add(f)
		}
	}
}
