package bash

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
)

// Scripts and programs are judged by what they are on disk when the check
// runs: a script file a command runs (sh x, bash < x, source x, ./x, a
// glob) is read and judged by its text; a path run as a program is
// resolved (symlinks, copies of system programs found by content hash).
// What cannot be read or judged asks.

// maxScriptBytes is the largest script file read; a larger one asks.
const maxScriptBytes = 1 << 20

// maxScripts bounds the script files one check reads (scripts that run
// scripts...).
const maxScripts = 64

// openRegular opens p only if it is a regular file: the check must never
// block on a FIFO, a terminal or a device (cat /dev/zero | sh, mkfifo p).
// O_NONBLOCK makes the open itself return at once for a FIFO.
func openRegular(p string) (*os.File, error) {
	f, _, err := openRegularInfo(p)
	return f, err
}

// openRegularInfo is openRegular, with what the file is.
func openRegularInfo(p string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s is not a regular file", p)
	}
	return f, fi, nil
}

// readSmall reads a regular file of at most maxScriptBytes.
func readSmall(p string) (string, bool) {
	text, _, ok := readSmallID(p)
	return text, ok
}

// readSmallID is readSmall, with the identity of the file read.
func readSmallID(p string) (string, fileID, bool) {
	f, fi, err := openRegularInfo(p)
	if err != nil {
		return "", fileID{}, false
	}
	defer f.Close()
	// Read into a buffer of the file's size (one read, no regrowth: a 70 KB
	// binary copied on the line took ~100 µs through io.ReadAll), still
	// bounded whatever the file grows to meanwhile.
	size := int64(512)
	if fi.Size() > 0 {
		size = min(fi.Size(), maxScriptBytes) + 1
	}
	b := make([]byte, 0, size)
	for {
		if len(b) == cap(b) {
			if len(b) > maxScriptBytes {
				return "", fileID{}, false
			}
			b = append(b, 0)[:len(b)]
		}
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", fileID{}, false
		}
	}
	if len(b) > maxScriptBytes {
		return "", fileID{}, false
	}
	return string(b), fileIDOf(fi), true
}

// scriptTexts finds the text of the script file a names, as the command
// will see it: written earlier on the line, copied on the line, logged by
// an earlier call of the session, or on disk (globs expanded). problem
// says why it cannot be judged.
func (l *level) scriptTexts(a arg) (texts []string, problem string) {
	if text, ok := l.writtenScript(a.text); ok && a.static {
		return []string{text}, ""
	}
	if a.glob && a.static {
		return l.globScripts(a)
	}
	p, ok := l.abs(a)
	if !ok {
		return nil, "its path is not known statically"
	}
	if src, ok := l.copies[p]; ok {
		p = src
	}
	if l.unknownOut[p] {
		return nil, "the line writes it with text not known statically"
	}
	if lf, ok := l.c.sc.files.lookup(p); ok && lf.download {
		return nil, "an earlier command of the session downloaded it"
	}
	if l.dirty != "" {
		return nil, "an earlier command of the line (" + l.dirty + ") may have rewritten it"
	}
	if l.c.scripts++; l.c.scripts > maxScripts {
		return nil, "too many scripts to read"
	}
	text, ok := l.c.sc.cache.read(p, l.c.stat)
	if ok {
		l.c.fromDisk(text)
	}
	if !ok {
		if lf, ok := l.c.sc.files.lookup(p); ok && lf.text != "" {
			return []string{lf.text}, "" // written by an earlier call: judged by what was written
		}
		if l.c.isDir(p) {
			return nil, "it is a directory"
		}
		return nil, "it cannot be read when checked"
	}
	if lf, ok := l.c.sc.files.lookup(p); ok && lf.text != "" && lf.hash != hashText(text) {
		return []string{text, lf.text}, ""
	}
	if _, logged := l.c.sc.files.lookup(p); l.c.sc.dir != "" && under(p, l.c.sc.dir) && !logged {
		if l.c.projectTexts == nil {
			l.c.projectTexts = map[string]bool{}
		}
		l.c.projectTexts[text] = true // the project's own script, as on disk
	}
	return []string{text}, ""
}

// globScripts expands a glob against the scripts written on the line and
// the files on disk.
func (l *level) globScripts(a arg) ([]string, string) {
	pattern := a.text
	if !strings.HasPrefix(pattern, "/") {
		if l.at == "" {
			return nil, "its path is not known statically"
		}
		pattern = path.Join(l.at, pattern)
	}
	wild := 0
	for _, part := range strings.Split(pattern, "/") {
		if strings.ContainsAny(part, "*?[") {
			wild++
		}
	}
	if wild > 1 {
		return nil, "its glob spans directories: too broad to read when checked"
	}
	var texts []string
	for p, text := range l.written {
		if ap, ok := l.abs(arg{text: p, static: true}); ok {
			if m, _ := path.Match(pattern, ap); m {
				texts = append(texts, text)
			}
		}
	}
	matches := l.c.glob(pattern)
	for _, m := range matches {
		t, problem := l.scriptTexts(arg{text: m, static: true})
		if problem != "" {
			return nil, problem
		}
		texts = append(texts, t...)
	}
	if len(texts) == 0 {
		return nil, "its glob matches no file when checked"
	}
	return texts, ""
}

// glob is filepath.Glob of the absolute pattern, matched against the
// session's listing of the directory when only the last component has
// wildcards.
func (c *checker) glob(pattern string) []string {
	dir, file := filepath.Split(pattern)
	dir = filepath.Clean(dir)
	if _, err := filepath.Match(file, ""); err != nil || !filepath.IsAbs(dir) || strings.ContainsAny(dir, `*?[\`) {
		matches, _ := filepath.Glob(pattern)
		return matches
	}
	fi, err := c.stat(dir)
	if err != nil || !fi.IsDir() {
		return nil
	}
	names, ok := c.sc.cache.names(dir, fi)
	if !ok {
		matches, _ := filepath.Glob(pattern)
		return matches
	}
	var matches []string
	for n := range names {
		if m, _ := filepath.Match(file, n); m {
			matches = append(matches, filepath.Join(dir, n))
		}
	}
	slices.Sort(matches)
	return matches
}

// shebang is the interpreter a script names in its first line.
func shebang(text string) string {
	if !strings.HasPrefix(text, "#!") {
		return ""
	}
	line, _, _ := strings.Cut(text[2:], "\n")
	f := strings.Fields(line)
	if len(f) == 0 {
		return ""
	}
	name := commandBase(f[0])
	if name == "env" {
		for _, w := range f[1:] {
			if !strings.HasPrefix(w, "-") {
				return commandBase(w)
			}
		}
	}
	return name
}

// judgeScriptText judges a script's text by its interpreter.
func (x *command) judgeScriptText(text string) {
	switch sb := shebang(text); {
	case sb == "" || isShell(sb):
		x.shellCode(text)
	case isInterpreter(sb):
		x.inlineText(text)
	default:
		x.flag(catScript)
	}
}

// systemBinDirs hold the programs names are looked up in.
var systemBinDirs = []string{"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin", "/opt/homebrew/bin"}

func inSystemBin(p string) bool {
	return slices.Contains(systemBinDirs, path.Dir(p))
}

// pathProgram is the file a bare name runs when the line put directories
// in PATH before the system's, or "".
func (l *level) pathProgram(name string) string {
	for _, d := range l.pathDirs {
		p := path.Join(d, name)
		if l.c.exists(p) {
			return p
		}
		if _, ok := l.written[canon(p)]; ok {
			return p
		}
		if _, ok := l.copies[p]; ok {
			return p
		}
	}
	return ""
}

// resolveProgram judges a program run by path (./x, /abs/x, dir/x, or a
// name found in a PATH directory the line added) by what it is: a script
// written or copied on the line, a download, a system program under
// another name (symlink or copy), a script on disk judged by its text, or
// an unknown binary. It returns true when that judgment is complete; false
// when the command is to be judged as the program it turned out to be
// (x.name may have changed).
func (x *command) resolveProgram() bool {
	name := x.args[0]
	p := name.text
	if !strings.Contains(p, "/") {
		if p = x.l.pathProgram(p); p == "" {
			return false
		}
		name = arg{text: p, static: true}
	}
	if x.l.downloaded[canon(p)] {
		x.flag(catDownloadExec)
		return true
	}
	if strings.HasPrefix(p, "/") && inSystemBin(path.Clean(p)) {
		return false // a system program by its own path: a multi-call binary (busybox, systemctl) goes by this name
	}
	abs, ok := x.l.abs(name)
	if !ok {
		x.flag(catDynamic)
		return true
	}
	if text, ok := x.l.writtenScript(p); ok {
		x.judgeScriptText(text) // ./s.sh after echo ... > s.sh
		return true
	}
	for range 8 {
		src, ok := x.l.copies[abs]
		if !ok {
			break
		}
		abs = src
	}
	if x.l.unknownOut[abs] {
		x.flag(catScript)
		return true
	}
	if lf, ok := x.l.c.sc.files.lookup(abs); ok && lf.download {
		x.flag(catDownloadExec)
		return true
	}
	fi, err := x.l.c.stat(abs)
	if err != nil || fi.IsDir() {
		if strings.HasPrefix(p, "/") && inSystemBin(path.Clean(p)) {
			return false // a system program this machine lacks: judged by its name
		}
		x.flag(catUnknown)
		return true
	}
	if inSystemBin(abs) || strings.HasPrefix(abs, "/usr/lib/") || strings.HasPrefix(abs, "/usr/libexec/") {
		x.renamed(abs) // tools/ls -> /usr/bin/rm is rm
		if real := commandBase(abs); isShell(real) || isInterpreter(real) || known[real].quiet != nil || known[real].prefixes != nil {
			return false
		}
		return false
	}
	var head []byte
	if text, ok := x.l.c.sc.cache.held(abs, fi); ok { // read before: no need to open it
		head = []byte(text[:min(4, len(text))])
	} else {
		head, _ = readHead(abs, 4)
	}
	if bytes.HasPrefix(head, []byte("\x7fELF")) || bytes.HasPrefix(head, []byte("\xcf\xfa\xed\xfe")) {
		if sys := systemCopy(abs, fi.Size()); sys != "" {
			x.renamed(sys) // a copy of a system program
			return false
		}
		x.flag(catUnknown)
		return true
	}
	texts, problem := x.l.scriptTexts(arg{text: abs, static: true})
	if problem != "" {
		x.flagScript(problem)
		return true
	}
	for _, t := range texts {
		if strings.IndexByte(t, 0) >= 0 {
			x.flag(catUnknown) // binary, not a script
			return true
		}
		x.judgeScriptText(t)
	}
	return true
}

func readHead(p string, n int) ([]byte, error) {
	f, err := openRegular(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	k, err := io.ReadFull(f, b)
	return b[:k], err
}

// systemCopy finds a system program with the same content as the binary
// at p (size first, then SHA-256), or "".
func systemCopy(p string, size int64) string {
	idx := systemBinaries()
	cands := idx.bySize[size]
	if len(cands) == 0 {
		return ""
	}
	h, err := fileHash(p)
	if err != nil {
		return ""
	}
	for _, c := range cands {
		if ch, err := idx.hash(c); err == nil && ch == h {
			return c
		}
	}
	return ""
}

// binIndex lists the system programs by size, hashing them on demand. It
// describes the machine, not a session, so one is shared.
type binIndex struct {
	bySize map[int64][]string
	mu     sync.Mutex
	hashes map[string][32]byte
}

var systemBinaries = sync.OnceValue(func() *binIndex {
	idx := &binIndex{bySize: map[int64][]string{}, hashes: map[string][32]byte{}}
	for _, d := range systemBinDirs {
		entries, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range entries {
			fi, err := os.Stat(filepath.Join(d, e.Name()))
			if err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 {
				continue
			}
			idx.bySize[fi.Size()] = append(idx.bySize[fi.Size()], filepath.Join(d, e.Name()))
		}
	}
	return idx
})

func (b *binIndex) hash(p string) ([32]byte, error) {
	b.mu.Lock()
	h, ok := b.hashes[p]
	b.mu.Unlock()
	if ok {
		return h, nil
	}
	h, err := fileHash(p)
	if err == nil {
		b.mu.Lock()
		b.hashes[p] = h
		b.mu.Unlock()
	}
	return h, err
}

func fileHash(p string) ([32]byte, error) {
	f, err := openRegular(p)
	if err != nil {
		return [32]byte{}, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return [32]byte{}, err
	}
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out, nil
}

// renamed judges the command as the system program at p from now on, and
// says so in its reasons: "ls -rf x (ls is /usr/bin/rm)".
func (x *command) renamed(p string) {
	if base := commandBase(p); base != x.name || !strings.Contains(x.args[0].text, "/") {
		x.disp += " (" + x.args[0].text + " is " + p + ")"
	}
	x.name = commandBase(p)
}
