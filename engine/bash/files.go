package bash

// Files: find's actions, permission changes.

import (
	"strings"
)

// find judges -delete and the commands of -exec, -execdir, -ok, -okdir.
// In those commands {} stands for the files found: when find starts
// elsewhere than the working directory, they are judged with the start
// paths in its place (find / -exec chmod 777 {} +).
func (x *command) find() {
	args := x.args
	var starts []arg
	i := 1
	for i < len(args) && (args[i].text == "-H" || args[i].text == "-L" || args[i].text == "-P") {
		i++
	}
	for ; i < len(args); i++ {
		t := args[i].text
		if strings.HasPrefix(t, "-") || t == "(" || t == "!" || t == "," {
			break
		}
		if c := canon(x.l.resolve(t)); c != "." {
			starts = append(starts, arg{text: c, static: args[i].static, glob: args[i].glob, subst: args[i].subst, word: args[i].word})
		}
	}
	if x.l.c.sc.sandbox.confined && x.findArtefacts(starts, i) {
		saved := x.l.c.artefactStarts
		x.l.c.artefactFind++ // what it deletes, or runs rm on, is build artefacts
		for _, s := range starts {
			x.l.c.artefactStarts = append(x.l.c.artefactStarts[:len(x.l.c.artefactStarts):len(x.l.c.artefactStarts)], s.text)
		}
		defer func() { x.l.c.artefactFind--; x.l.c.artefactStarts = saved }()
	}
	for i := 1; i < len(args); i++ {
		switch t := args[i].text; t {
		case "-delete":
			x.flag(catDelete)
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && args[j].text != ";" && args[j].text != "+" {
				j++
			}
			target := args[i+1 : j]
			if len(starts) > 0 && len(target) > 1 {
				var spliced []arg
				for k, a := range target {
					if k > 0 && a.text == "{}" {
						spliced = append(spliced, starts...)
					} else {
						spliced = append(spliced, a)
					}
				}
				target = spliced
			}
			x.nested(target, nil, "find "+t)
			i = j
		case "-fprint", "-fprint0", "-fls", "-fprintf":
			if i+1 < len(args) {
				x.writes(args[i+1 : i+2])
			}
		}
	}
}

// chmod judges setuid/setgid modes and targets outside the working directory.
func (x *command) chmod() {
	o := parseOpts(x.args, "--reference")
	ops := o.operands
	mode, modeAsFlag := "", false
	for _, f := range o.flags { // chmod -x file: the mode looks like a flag
		if len(f) == 2 && strings.ContainsAny(f[1:], "rwxXstugoa") {
			modeAsFlag = true
		}
	}
	if !modeAsFlag && !o.has("--reference") && len(ops) > 0 {
		mode, ops = ops[0].text, ops[1:]
	}
	if setuidMode(mode) {
		x.flag(catPrivilege)
	}
	x.outside(catPerms, ops)
}

// setuidMode reports a chmod mode that sets the setuid or setgid bit.
func setuidMode(m string) bool {
	if len(m) >= 4 && strings.Trim(m, "01234567") == "" {
		d := m[len(m)-4] - '0'
		return d&6 != 0
	}
	for _, clause := range strings.Split(m, ",") {
		if i := strings.IndexAny(clause, "+="); i >= 0 && strings.Contains(clause[i:], "s") {
			return true
		}
	}
	return false
}

// outside flags category when any target may be outside the working
// directory, as written or through a symlink (chmod -R 000 link/).
func (x *command) outside(category string, targets []arg) {
	for _, t := range targets {
		p, ok := x.l.abs(t)
		t.text = x.l.resolve(t.text)
		// known: the boundary of writes (the workspace, and new files of the
		// temp dir: curl -o /tmp/jq URL && chmod +x /tmp/jq); else by its text
		if ok && x.l.c.dir != "" && !x.l.c.sc.inside(p, x.l.c.lstat) || !(ok && x.l.c.dir != "") && outsideDir(t, x.l.c.dir) {
			x.flag(category)
			return
		}
	}
}
