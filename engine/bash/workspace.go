package bash

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// The workspace is the boundary: a command may change the session's
// working directory (and temporary directories) without asking; writing,
// truncating, moving or deleting anything else asks. Paths are resolved as
// they will be when the command runs: against the directory a cd moved to,
// with ~ and $HOME, and through the symlinks already on disk or made
// earlier on the line.

// home is the home directory ~ stands for on this line.
func (l *level) home() string {
	if v, ok := l.vars["HOME"]; ok {
		if v.known {
			return v.value
		}
		return ""
	}
	return l.c.sc.home
}

// abs is the absolute path a word names when the command runs, with
// symlinks resolved; ok is false when that is not known statically (a
// variable, a command substitution, a glob, a cd to somewhere unknown).
func (l *level) abs(a arg) (string, bool) {
	p := a.text
	if !a.static {
		known := false
		for _, v := range [...]string{"$HOME", "${HOME}", "$PWD", "${PWD}"} {
			if p != v && !strings.HasPrefix(p, v+"/") {
				continue
			}
			rest := p[len(v):]
			if strings.ContainsAny(rest, "$`") {
				return "", false
			}
			base := l.home()
			if strings.Contains(v, "PWD") {
				base = l.at
			}
			if base == "" {
				return "", false
			}
			p, known = base+rest, true
			break
		}
		if !known {
			return "", false
		}
	}
	if a.glob || p == "" {
		return "", false
	}
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		h := l.home()
		if h == "" {
			return "", false
		}
		p = h + p[1:]
	case strings.HasPrefix(p, "~"):
		return "", false // ~user
	}
	switch {
	case strings.HasPrefix(p, "/"):
		p = filepath.Clean(p)
	case l.at == "":
		return "", false
	case l.at == l.c.sc.dir && l.at != "/" && p != "." && p != ".." && !strings.Contains(p, "/"):
		p = l.at + "/" + p // a name in the (clean) working directory: filepath.Join without its Clean
	default:
		p = filepath.Join(l.at, p)
	}
	for range 8 { // links made earlier on the line, also as a directory on the path
		best := ""
		for link := range l.absLinks {
			if under(p, link) && len(link) > len(best) {
				best = link
			}
		}
		if best == "" {
			break
		}
		p = l.absLinks[best] + strings.TrimPrefix(p, best)
	}
	return l.c.realPath(p), true
}

// realPath is realPath, remembered for the rest of the check.
func (c *checker) realPath(p string) string {
	if r, ok := c.real[p]; ok {
		return r
	}
	if c.real == nil {
		c.real = map[string]string{}
	}
	r := realPathFrom(c.sc.dir, p, c.kind) // the working directory is already resolved
	c.real[p] = r
	return r
}

// lstat is os.Lstat, remembered for the rest of the check: realPath looks
// at every component of the paths a line names, and the checks after it
// (does it exist, is it a directory, is the file read still the one
// cached) ask about the same paths. Below a component found missing,
// nothing is looked at.
func (c *checker) lstat(p string) (os.FileInfo, error) {
	if r, ok := c.lstats[p]; ok {
		return r.fi, r.err
	}
	if c.lstats == nil {
		c.lstats = map[string]lstatResult{}
	}
	for d := filepath.Dir(p); len(d) > 1 && d != p; d = filepath.Dir(d) {
		if r, ok := c.lstats[d]; ok {
			if errors.Is(r.err, fs.ErrNotExist) {
				return nil, r.err
			}
			break
		}
	}
	if dir := filepath.Dir(p); c.listable(dir) && dir != p {
		if dfi, err := c.lstat(dir); err == nil {
			if absent, known := c.sc.cache.absent(dir, dfi, filepath.Base(p)); known && absent {
				err := &fs.PathError{Op: "lstat", Path: p, Err: syscall.ENOENT}
				c.lstats[p] = lstatResult{nil, err}
				return nil, err
			}
		}
	}
	fi, err := os.Lstat(p)
	c.lstats[p] = lstatResult{fi, err}
	return fi, err
}

// kind is the type bits of p's lstat, for realPath: a name in the working
// directory is answered by its listing when the session holds it.
func (c *checker) kind(p string) (fs.FileMode, error) {
	if r, ok := c.lstats[p]; ok {
		if r.err != nil {
			return 0, r.err
		}
		return r.fi.Mode().Type(), nil
	}
	if dir := filepath.Dir(p); c.listable(dir) && dir != p {
		if dfi, err := c.lstat(dir); err == nil {
			if names, ok := c.sc.cache.names(dir, dfi); ok {
				if typ, there := names[filepath.Base(p)]; there {
					return typ, nil
				}
			}
		}
	}
	fi, err := c.lstat(p)
	if err != nil {
		return 0, err
	}
	return fi.Mode().Type(), nil
}

// listable reports the directories whose listing the session keeps: the
// working directory (most words are looked up there) and the home
// directory (~/x).
func (c *checker) listable(dir string) bool {
	return dir == c.sc.dir || dir == c.sc.home && dir != ""
}

type lstatResult struct {
	fi  os.FileInfo
	err error
}

// stat is os.Stat through lstat: a symlink is followed with os.Stat.
func (c *checker) stat(p string) (os.FileInfo, error) {
	fi, err := c.lstat(p)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return fi, err
	}
	return os.Stat(p)
}

// exists reports whether something is at p (a dangling symlink too).
func (c *checker) exists(p string) bool {
	_, err := c.lstat(p)
	return err == nil
}

// isDir reports whether p is a directory (through symlinks).
func (c *checker) isDir(p string) bool {
	fi, err := c.stat(p)
	return err == nil && fi.IsDir()
}

// writesOutside reports whether writing to a (a file a command creates,
// truncates, moves or deletes) may change something outside the workspace:
// it is outside, or where it is is not known statically.
func (l *level) writesOutside(a arg) bool {
	c := canon(a.text)
	for _, d := range harmlessDevices {
		if c == d {
			return false
		}
	}
	for _, d := range harmlessDevDirs {
		if under(c, d) {
			return false
		}
	}
	if isFD(a.text) {
		return false
	}
	p, ok := l.abs(a)
	if !ok {
		return !l.tempVarPath(a) // tmp=$(mktemp); echo x > "$tmp"
	}
	return !l.c.sc.inside(p, l.c.lstat) || l.c.hardLinked(p)
}

// hardLinked reports a regular file with more than one name: writing to it
// may change a file outside the workspace.
func (c *checker) hardLinked(p string) bool {
	fi, err := c.lstat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Nlink > 1
}

// outsideCategory is the category of a write writesOutside reported.
func (l *level) outsideCategory(a arg) string {
	if _, ok := l.abs(a); !ok {
		return catUnknownPath
	}
	return catOutside
}

// writes flags operands that are sensitive files or disks, or outside the
// workspace.
func (x *command) writes(ops []arg) {
	for _, a := range ops {
		if cat := x.l.writeRisk(a.text); cat != "" {
			x.flag(cat)
		} else if x.l.writesOutside(a) {
			x.flag(x.l.outsideCategory(a))
		}
	}
}

// workspace judges where the programs that write files (besides those
// judged in commands.go) write: touch, mkdir, archives, compilers, clones...
func (x *command) workspace() {
	args := x.args
	switch x.name {
	case "sponge":
		x.writes(parseOpts(args, "").operands)
	case "touch":
		x.writes(parseOpts(args, "-d -r -t --date --reference").operands)
	case "black", "isort", "rustfmt", "autopep8", "autoflake", "ruff", "gofmt", "goimports", "gofumpt", "shfmt", "prettier",
		"eslint", "biome", "clang-format", "yq", "mlr", "xmlstarlet", "codespell", "typos":
		x.rewrites()
	case "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "lzma", "unlzma", "zstd", "unzstd", "lz4", "dos2unix", "unix2dos":
		// they replace each file with its (de)compressed or converted form
		o := parseOpts(args, "-S -o -T -M --suffix --output --threads --memlimit --format")
		if !o.has("-c", "--stdout", "--to-stdout", "-l", "--list", "-t", "--test") {
			x.writes(append(o.operands, o.all("-o", "--output")...))
		}
	case "ed", "red":
		x.writes(parseOpts(args, "-p --prompt").operands) // ed -s f <<< $'d\nw' writes f back
	case "ex", "vi", "vim", "nvim", "nano", "pico", "micro":
		// an editor writes back the files it opens (vim -es f < script)
		x.writes(parseOpts(args, "-c -S -u -U -T -i -w -W -t -q --cmd -Y -o -r -Q -X -f -C").operands)
	case "trash", "trash-put", "fallocate", "mkfifo":
		x.writes(parseOpts(args, "-l -o -m --length --offset --mode").operands)
	case "mknod":
		ops := parseOpts(args, "-m --mode --context").operands
		x.writes(ops[:min(1, len(ops))])
	case "link":
		if ops := parseOpts(args, "").operands; len(ops) == 2 {
			x.writes(ops[1:])
		}
	case "zip":
		o := parseOpts(args, "-b -n -t -tt -x -i -P -O --out --temp-path --suffixes --exclude --include --password")
		if ops := o.operands; len(ops) > 0 {
			x.writes(ops[:1])
			if o.has("-m", "--move") { // the files zipped are deleted
				x.writes(ops[1:])
			}
		}
	case "openssl":
		for i, a := range args {
			if a.text == "-out" && i+1 < len(args) {
				x.writes(args[i+1 : i+2])
			}
		}
	case "gpg", "gpg2", "iconv", "pandoc", "time":
		x.writes(parseOpts(args, "-o -f -t -r -u --output --from --to --format --recipient --local-user").all("-o", "--output"))
	case "xxd":
		if o := parseOpts(args, "-c -g -l -s -o -n -C -cols -len -seek"); o.has("-r", "-revert") && len(o.operands) > 1 {
			x.writes(o.operands[1:2])
		}
	case "script":
		o := parseOpts(args, "-c --command -E --echo -I -O -B -T -t --log-in --log-out --log-io --log-timing --timing --logging-format")
		x.writes(append(o.operands[:min(1, len(o.operands))], o.all("-I", "-O", "-B", "-T", "--log-in", "--log-out", "--log-io", "--log-timing", "--timing")...))
	case "install":
		if o := parseOpts(args, "-m -o -g -S -t --mode --owner --group --suffix --target-directory"); o.has("-d", "--directory") {
			x.writes(o.operands)
		}
	case "mkdir":
		x.writes(parseOpts(args, "-m --mode --context").operands)
	case "sort":
		x.writes(parseOpts(args, "-o -k -t -S -T --output --key --field-separator --buffer-size --temporary-directory --compress-program --files0-from --parallel").all("-o", "--output"))
	case "uniq":
		if ops := parseOpts(args, "-f -s -w --skip-fields --skip-chars --check-chars").operands; len(ops) > 1 {
			x.writes(ops[1:2])
		}
	case "split", "csplit":
		if ops := parseOpts(args, "-a -b -C -l -n -t -f --prefix --suffix-length --bytes --line-bytes --lines --number --separator --additional-suffix").operands; len(ops) > 1 {
			x.writes(ops[len(ops)-1:])
		}
		x.writes(parseOpts(args, "-f --prefix").all("-f", "--prefix"))
	case "tar", "bsdtar", "gtar":
		x.tarTargets()
	case "unzip":
		x.writes(parseOpts(args, "-d -x -P").all("-d"))
	case "7z", "7za", "7zr":
		for _, a := range args[1:] {
			if o, ok := strings.CutPrefix(a.text, "-o"); ok && o != "" {
				x.writes([]arg{{text: o, static: a.static, glob: a.glob}})
			}
		}
		if ops := parseOpts(args, "").operands; hasOperand(args, "-sdel") && len(ops) > 2 {
			x.writes(ops[2:]) // 7z a -sdel ARCHIVE FILES: the files are deleted
		}
	case "go":
		if sub := subcommand(args, "-C", 1); len(sub) > 0 && (sub[0] == "build" || sub[0] == "test") {
			x.writes(parseOpts(args, "-o -C -tags -ldflags -gcflags -run -bench -count -timeout -p -exec -coverprofile -cpuprofile -memprofile").all("-o"))
		}
	case "gcc", "g++", "cc", "c++", "clang", "clang++", "rustc", "javac", "tsc", "zig", "swiftc", "ghc":
		for i, a := range args {
			if (a.text == "-o" || a.text == "-d" && x.name == "javac" || a.text == "--outDir" || a.text == "--outFile") && i+1 < len(args) {
				x.writes(args[i+1 : i+2])
			} else if o, ok := strings.CutPrefix(a.text, "-o"); ok && o != "" && x.name != "javac" && x.name != "tsc" {
				x.writes([]arg{{text: o, static: a.static, glob: a.glob}})
			}
		}
	case "patch":
		o := parseOpts(args, "-p -i -o -d -r -B -D -F -V -z -Y --input --output --directory --strip --reject-file")
		x.writes(o.all("-o", "--output", "-d", "--directory"))
		if len(o.operands) > 0 {
			x.writes(o.operands[:1])
		}
	case "ssh-keygen":
		o := parseOpts(args, "-f -t -b -C -N -P -a -E -I -n -O -V -z -Z -m -s -D -F -R -w -Y")
		if !o.has("-l", "-F", "-y", "-Y", "-L", "-B") || o.has("-R") {
			x.writes(o.all("-f"))
		}
	case "perl", "ruby":
		o := parseOpts(args, "-e -E -I -M -m -x -C")
		if o.has("-i") || anyPrefix(args, "-i") || anyPrefix(args, "-pi") || anyPrefix(args, "-ni") {
			x.writes(o.operands)
			x.l.dirty = x.name + " -i"
		}
	case "sed", "gsed":
		if parseOpts(args, "-e -f -l --expression --file --line-length").has("-i", "--in-place") {
			x.l.dirty = "sed -i"
		}
	case "cpio":
		if o := parseOpts(args, "-D -E -F -H -I -O -R --directory --file --format --owner"); o.has("-i", "--extract") {
			x.writes(o.all("-D", "--directory"))
			if !o.has("--no-absolute-filenames") {
				x.flag(catOutside) // members may name any path
			}
		}
	case "npm", "pnpm", "bun":
		o := parseOpts(args, "-C --prefix -w --workspace")
		if o.has("-g", "--global", "--location=global") && !o.has("--dry-run") {
			if v := o.operand(0); v != "ls" && v != "list" && v != "root" && v != "bin" && v != "outdated" && v != "view" {
				x.flag(catOutside)
			}
		}
	case "yarn":
		if parseOpts(args, "--cwd").operand(0) == "global" {
			x.flag(catOutside)
		}
	case "pip", "pip3":
		o := parseOpts(args, "-t -r -c -e -i --target --prefix --root --index-url --extra-index-url --requirement --constraint --editable --src --python")
		if o.operand(0) == "install" || o.operand(0) == "uninstall" {
			if o.has("--user", "--break-system-packages") {
				x.flag(catOutside)
			}
			x.writes(o.all("-t", "--target", "--prefix", "--root"))
		}
	}
}

// inPlace lists, per formatter or editor of structured files, the options
// that make it rewrite the files it is given ("" : it always does, unless
// it only checks).
var inPlace = map[string]string{
	"black": "", "isort": "", "rustfmt": "", "autopep8": "-i --in-place", "autoflake": "-i --in-place",
	"ruff": "--fix format", "gofmt": "-w", "goimports": "-w", "gofumpt": "-w", "shfmt": "-w --write",
	"prettier": "-w --write", "eslint": "--fix", "biome": "--write --apply --fix", "clang-format": "-i",
	"yq": "-i --inplace", "mlr": "-I", "xmlstarlet": "-L --inplace", "codespell": "-w --write-changes",
	"typos": "-w --write-changes",
}

// rewrites judges a formatter that rewrites the files it is given in place
// (prettier --write ../x, black ~/y): as writes to them.
func (x *command) rewrites() {
	o := parseOpts(x.args, "-c -d -u -v -s -t -n -r -m -N -x -l --config --line-length --target-version --ignore-path --stdin-filepath --style --rules --plugin --parser --exclude --extend-exclude --select --ignore")
	flags := inPlace[x.name]
	if o.has("--check", "--diff", "-l", "--list-different") && flags == "" {
		return
	}
	if flags != "" && !o.has(strings.Fields(flags)...) && !hasOperand(x.args, "format") {
		return
	}
	x.writes(o.operands)
}

// tarTargets judges where tar extracts (-C, or the archive's own absolute
// names with -P) and the archive it creates.
func (x *command) tarTargets() {
	o := parseOpts(x.args, "-C -f -T -X -I -F -b -H -K -L -N -g -V --directory --file --files-from --exclude-from "+
		"--use-compress-program --info-script --new-volume-script --to-command --checkpoint --checkpoint-action "+
		"--format --owner --group --mode --transform --xform --exclude --newer --after-date --label --rsh-command")
	create := o.has("-c", "--create", "-r", "--append", "-u", "--update", "-A", "--catenate", "--concatenate")
	files, dirs := o.all("-f", "--file"), o.all("-C", "--directory")
	if len(x.args) > 1 && !strings.HasPrefix(x.args[1].text, "-") { // tar czf x.tgz: old-style letters
		create = create || strings.ContainsAny(x.args[1].text, "cru")
		next := 2 // each letter that takes a value takes the next word
		for _, c := range x.args[1].text {
			if !strings.ContainsRune("fbCTXgKLNV", c) || next >= len(x.args) {
				continue
			}
			switch c {
			case 'f':
				files = append(files, x.args[next])
			case 'C':
				dirs = append(dirs, x.args[next])
			}
			next++
		}
	}
	if create {
		x.writes(files)
		if o.has("--remove-files") { // the files archived are deleted
			x.writes(o.operands)
		}
		return
	}
	x.writes(dirs)
	if o.has("-P", "--absolute-names") {
		x.flag(catOutside)
	}
}

func anyPrefix(args []arg, p string) bool {
	for _, a := range args[1:] {
		if strings.HasPrefix(a.text, p) {
			return true
		}
	}
	return false
}
