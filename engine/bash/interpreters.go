package bash

// Interpreters (python, perl, ruby, node...): the inline code, script
// files and modules they run, node --test's test files, and what their
// one-liners do (delete, run commands, write away from the workspace,
// send requests).

import (
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// interpreterArgs finds the inline code (-c, -e...) or the script operand.
func interpreterArgs(name string, args []arg) (code, file *arg, module string) {
	flags := "-c"
	switch {
	case name == "perl":
		flags = "-e -E"
	case name == "ruby" || name == "lua" || name == "Rscript" || name == "osascript":
		flags = "-e"
	case name == "node" || name == "nodejs" || name == "bun":
		flags = "-e --eval -p --print -pe"
	case name == "deno":
		if len(args) > 2 && args[1].text == "eval" {
			return &args[2], nil, ""
		}
		flags = ""
	case name == "php":
		flags = "-r"
		if hasOperand(args, "-l") || hasOperand(args, "--syntax-check") {
			return nil, nil, "lint" // checks syntax, runs nothing
		}
	}
	if (name == "deno" || name == "bun") && len(args) > 1 && !strings.HasPrefix(args[1].text, "-") {
		switch args[1].text {
		case "run":
			// deno run FILE; bun run FILE or a package.json script
			if i := skipOpts(args[1:], "--allow-read --allow-write --allow-net --allow-env --allow-run --config -c --import-map --cwd"); i < len(args)-1 {
				if f := &args[i+1]; name == "deno" || strings.Contains(path.Base(f.text), ".") {
					return nil, f, ""
				}
			}
			return nil, nil, "task"
		default:
			if !strings.Contains(args[1].text, ".") && !strings.Contains(args[1].text, "/") {
				return nil, nil, "task" // deno test, bun install: a subcommand, not a script
			}
		}
	}
	perlish := name == "perl" || name == "ruby"
	for i := 1; i < len(args); i++ {
		t := args[i].text
		switch {
		case perlish && len(t) > 2 && t[0] == '-' && t[1] != '-' && (strings.HasSuffix(t, "e") || strings.HasSuffix(t, "E")) && strings.Trim(t[1:], "lnpaisFwWtTuUcCdDxX0123456789eE") == "":
			// -ne, -pe, -lane: a cluster that ends in the code flag
			if i+1 < len(args) {
				return &args[i+1], nil, ""
			}
			return nil, nil, ""
		case hasWord(flags, t):
			if i+1 < len(args) {
				return &args[i+1], nil, ""
			}
			return nil, nil, ""
		case attachedCode(name, flags, t) != "":
			// perl -e'unlink ...', python3 -c'...', python3 -Ic CODE, node --eval=...
			if c := attachedCode(name, flags, t); c != "\x00" {
				return &arg{text: c, static: args[i].static, subst: args[i].subst, word: args[i].word}, nil, ""
			}
			if i+1 < len(args) {
				return &args[i+1], nil, ""
			}
			return nil, nil, ""
		case t == "-m" && strings.HasPrefix(name, "python"):
			if i+1 < len(args) {
				return nil, nil, args[i+1].text
			}
		case t == "-" || t == "--":
			return nil, nil, ""
		case !strings.HasPrefix(t, "-"):
			return nil, &args[i], ""
		}
	}
	return nil, nil, ""
}

// attachedCode is the code an option carries in the same word (-eCODE,
// --eval=CODE), "\x00" when a cluster of python's flags ends in -c and the
// code is the next word (-Ic CODE), or "" when t carries no code.
func attachedCode(name, flags, t string) string {
	for _, f := range strings.Fields(flags) {
		if strings.HasPrefix(f, "--") {
			if c, ok := strings.CutPrefix(t, f+"="); ok {
				return c
			}
		} else if c, ok := strings.CutPrefix(t, f); ok && c != "" {
			return c
		}
	}
	if strings.HasPrefix(name, "python") && len(t) > 2 && t[0] == '-' && t[1] != '-' {
		if before, after, ok := strings.Cut(t[1:], "c"); ok && strings.Trim(before, "bBdEhiIOPqsSuvVxR") == "" {
			if after == "" {
				return "\x00"
			}
			return after
		}
	}
	return ""
}

// moduleRunsArgs lists the standard modules that run the script or the
// code given after them.
var moduleRunsArgs = map[string]bool{"pdb": true, "cProfile": true, "profile": true, "trace": true, "timeit": true, "runpy": true, "doctest": true, "code": true}

// interpreter judges python, perl, node...: inline code, the script
// operand, python -m pip uninstall, a here-document on stdin.
func (x *command) interpreter() {
	code, file, module := interpreterArgs(x.name, x.args)
	if code == nil && (x.name == "node" || x.name == "nodejs") && parseOpts(x.args, nodeValued).has("--test") {
		x.nodeTests()
		return
	}
	switch {
	case code != nil:
		x.inlineCode(*code)
	case file != nil:
		x.script(*file, x.inlineText)
		if s, ok := scriptCommands[path.Base(file.text)]; ok { // manage.py migrate, artisan migrate:fresh
			rest := x.args[slices.IndexFunc(x.args, func(a arg) bool { return a.word == file.word && a.text == file.text }):]
			if _, quiet := s.quietSub(rest); !quiet {
				x.flag(s.cat)
			}
		}
	case module == "pip":
		if hasOperand(x.args, "uninstall") {
			x.flag(catPackage)
		}
	case moduleRunsArgs[module]:
		// python -m pdb/cProfile/trace/timeit...: the script or code it is
		// given runs (python3 -m cProfile evil.py, python3 -m timeit CODE).
		rest := x.args[slices.IndexFunc(x.args, func(a arg) bool { return a.text == module })+1:]
		for _, a := range rest {
			if strings.HasSuffix(a.text, ".py") {
				x.script(a, x.inlineText)
			} else if !strings.HasPrefix(a.text, "-") {
				x.inlineCode(a)
			}
		}
	case module != "" && module != "lint" && module != "task":
		// python -m NAME runs NAME.py or NAME/__main__.py from the working
		// directory first: a module of the project is judged by its text.
		rel := strings.ReplaceAll(module, ".", "/")
		for _, p := range []string{rel + ".py", rel + "/__main__.py"} {
			if texts, problem := x.l.scriptTexts(arg{text: p, static: true}); problem == "" {
				for _, t := range texts {
					x.inlineText(t)
				}
				break
			}
		}
	case module == "":
		x.stdinCode(x.inlineText)
	}
}

// nodeValued are node's options that take a value.
const nodeValued = "-r --require --import --loader --experimental-loader --env-file -C --conditions --input-type " +
	"--test-reporter --test-reporter-destination --test-name-pattern --test-skip-pattern --test-concurrency " +
	"--test-timeout --test-shard --test-coverage-include --test-coverage-exclude"

// maxTestWalk bounds the directory entries node --test's directories are
// searched through for their test files.
const maxTestWalk = 5000

// testExts are the extensions of the files node --test runs.
var testExts = map[string]bool{".js": true, ".mjs": true, ".cjs": true, ".ts": true, ".mts": true, ".cts": true}

// nodeTests judges node --test by the test files it runs: each file, glob
// and directory it is given (a directory's JS and TS files, outside
// node_modules and hidden directories), or, given none, the files under
// the working directory that node's default patterns name (*.test.js,
// test/**...). They are read, all of them as they are when checked, and
// judged by their text, as a script node runs. What cannot be read, or is
// too much to read, asks.
func (x *command) nodeTests() {
	ops := parseOpts(x.args, nodeValued).operands
	defaults := len(ops) == 0
	if defaults {
		ops = []arg{{text: ".", static: true}}
	}
	var texts []string
	for _, op := range ops {
		if op.static && strings.ContainsAny(op.text, "*?[") {
			op.glob = true // node expands the pattern itself
		}
		p, ok := x.l.abs(op)
		if !ok || !x.l.c.isDir(p) {
			t, problem := x.l.scriptTexts(op)
			if problem != "" {
				x.flagScript(problem)
				return
			}
			texts = append(texts, t...)
			continue
		}
		files, err := testFiles(p, defaults)
		if err != nil {
			x.flagScript("a directory of tests too large to read when checked")
			return
		}
		for _, f := range files {
			t, problem := x.l.scriptTexts(arg{text: f, static: true})
			if problem != "" {
				x.flagScript(problem)
				return
			}
			texts = append(texts, t...)
		}
	}
	for _, t := range texts {
		x.inlineText(t)
	}
}

// defaultTest matches the files node --test runs when given none.
var defaultTest = regexp.MustCompile(`(^|/)(test/.*|[^/]*[._-]test\.[^/]+|test-[^/]+|test\.[^/]+)$`)

// testFiles lists the JS and TS files under dir that node --test runs
// (only those defaultTest names when all is false), outside node_modules
// and hidden directories; an error when there are too many to look at.
func testFiles(dir string, defaults bool) ([]string, error) {
	seen, files := 0, []string(nil)
	err := filepath.WalkDir(dir, func(f string, d fs.DirEntry, err error) error {
		if seen++; err != nil || seen > maxTestWalk {
			return errors.Join(err, fs.ErrInvalid)
		}
		if d.IsDir() && f != dir && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
			return fs.SkipDir
		}
		if rel, _ := filepath.Rel(dir, f); !d.IsDir() && testExts[path.Ext(f)] && (!defaults || defaultTest.MatchString(rel)) {
			files = append(files, f)
		}
		return nil
	})
	return files, err
}

// inlineDanger matches interpreter one-liners that delete, move or
// truncate files, change their permissions, run commands, fork, kill, open
// raw sockets, or reach code by a name built at run time (__import__,
// getattr, eval, require(x)), which no pattern can follow.
var inlineDanger = mustAnyOf(`\.rm\s*\(|\bunlink|rmtree|os\.(remove|unlink|rmdir|removedirs|system|popen|exec|spawn|kill)|subprocess|shutil\.(move|rmtree)|\bunlink\b|\bfork\b|child_process|exec(Sync|File)?\s*\(|spawn(Sync)?\s*\(|\bsystem\s*\(|fs\.(rm|unlink|rmdir)|rmSync|rimraf|FileUtils\.rm|File\.delete|Dir\.delete|qx[({/]|` + "`" + `|\bkill\s*\(|Deno\.(remove|run|Command)|Bun\.spawn|\.unlink\(|\.rmdir\(|do shell script`)

// inlineDangerMore is the rest of inlineDanger: one regular expression of
// both is too large for Go's fast matcher on most scripts.
var inlineDangerMore = mustAnyOf(`__import__|getattr\s*\(|importlib|__builtins__|\beval\s*\(|\bcompile\s*\(|\bFunction\s*\(|process\.binding|\bimport\s*\(|` +
	`\bsystem\b|\bexec\b|\bkill\b|\brmdir\b|remove_tree|\brename|\btruncate|\bchmod|\bchown|os\.(replace|killpg|symlink|link)\b|FileUtils\.|Open3|%x[\[({|]|\bpopen|passthru|proc_open|pcntl_exec|\bsocket\b|pty\.spawn|dup2`)

// inlineWrites matches interpreter one-liners that write files.
var inlineWrites = mustAnyOf(`(?i)write|open\s*\(|fopen|file_put_contents|spit|>>?\s*\$?\w|IO\.|Files\.|fs\.|copy|rename|move`)

// inlineDangerSpans are the patterns of inlineDanger that span words
// (require(x), require("a" + b), perl's open F, "|cmd"): slow to look
// for, they are looked for only in code that names require or open.
var inlineDangerSpans = mustAnyOf(`require\s*\(\s*[^"'\s)]|require\s*\(\s*["'][^"']*["']\s*\+|\bopen\b[^;]*\|`)

// inlinePath matches the string literals of a one-liner that name a path
// away from the working directory: "/etc/x", '~/.x', "../x", perl's
// ">../x"; inlineFileWrite the one-liners that write a file.
var (
	inlinePath      = regexp.MustCompile(`["'][+<>]*\s*((?:/|~|\.\./)[^"'\s]*)["']`)
	inlineFileWrite = mustAnyOf(`["'][rbt]*[wax+][rwabxt+]*["']|["']\+?>|write_text|write_bytes|writeFile|appendFile|createWriteStream|File\.(write|open)|file_put_contents|fopen|\.touch\(|copy|move|spit|\bunlink`)
)

// inlineCode judges an interpreter one-liner. One that writes files and
// names a path outside the working directory asks: that path may be where
// it writes (open("../x", "w")).
func (x *command) inlineCode(a arg) {
	if a.word == nil {
		x.ran = a.text // from a file or a pipe: an approval is of this code
	}
	if a.subst {
		x.l.dirty = x.name + " code"
		x.substCode(a)
		return
	}
	var s *inlineScan
	if x.l.c.diskTexts[a.text] { // a program's file: scanned once per session
		s = x.l.c.sc.cache.derive("inline", a.text, scanInline).(*inlineScan)
	} else {
		s = scanInline(a.text).(*inlineScan)
	}
	if s.writes {
		x.l.dirty = x.name + " code"
	}
	if s.requests {
		x.inlineRequests(a.text)
	}
	switch {
	case s.danger:
		x.flag(catInline)
	case s.fileWrite:
		for _, p := range s.paths {
			if t := (arg{text: p, static: true}); x.l.writeRisk(t.text) != "" || x.l.writesOutside(t) {
				x.flag(catOutside)
				return
			}
		}
	}
}

// inlineScan is what the patterns find in an interpreter's code.
type inlineScan struct {
	writes    bool     // it may write files (the line is dirty after it)
	requests  bool     // a one-liner talking HTTP (inlineRequests)
	danger    bool     // code that asks
	fileWrite bool     // it writes the files at paths
	paths     []string // paths it names, when fileWrite
}

// scanInline scans an interpreter's code (a pure function of it).
func scanInline(text string) any {
	s := &inlineScan{
		writes:   inlineWrites.MatchString(text),
		requests: strings.Count(text, "\n") < maxRequestLines && inlineNet.MatchString(text),
		danger: inlineDanger.MatchString(text) || inlineDangerMore.MatchString(text) ||
			(strings.Contains(text, "require") || strings.Contains(text, "open")) && inlineDangerSpans.MatchString(text),
	}
	if !s.danger && inlineFileWrite.MatchString(text) {
		s.fileWrite = true
		for _, m := range inlinePath.FindAllStringSubmatch(text, -1) {
			s.paths = append(s.paths, m[1])
		}
	}
	return s
}

// One-liners that talk HTTP (or FTP, SMTP, SSH) from a library: inlineNet
// finds them, inlineChange the requests that change or delete what a
// server holds, inlineReads the reading of a local file (what is read
// there is sent).
var (
	inlineNet = mustAnyOf(`urlopen|urllib|\brequests\b|http\.client|httpx|aiohttp|\bfetch\s*\(|axios|https?\.request|` +
		`XMLHttpRequest|Net::HTTP|LWP::|HTTP::Tiny|Faraday|RestClient|HTTParty|curl_(exec|init)|ftplib|smtplib|paramiko|pysftp|Deno\.connect|Bun\.connect`)
	inlineChange = mustAnyOf(`(?i)\.(delete|put|patch)\s*\(|method\s*[:=]\s*["'](delete|put|patch)["']|` +
		`Net::HTTP::(Delete|Put|Patch)|["'](DELETE|PUT|PATCH)["']|CURLOPT_CUSTOMREQUEST`)
	inlineReads = mustAnyOf(`\bopen\s*\(\s*[^,()]+\)|\bopen\s*\(\s*[^,()]+,\s*["']r?b?t?["']\s*\)|read_bytes|read_text|` +
		`readFileSync|readFile\s*\(|createReadStream|File\.(read|binread|open)|IO\.read|Deno\.readFile|Bun\.file|` +
		`file_get_contents\s*\(\s*["'][^h]|storbinary|storlines|sendfile|put_file|\.put\s*\(\s*["'][^h]|CURLOPT_INFILE|CURLFile`)
	inlineURL = regexp.MustCompile(`\w+://[^"'\s)]+`)
)

// maxRequestLines bounds the code inlineRequests looks at: in a one-liner
// (or a short here-document) a request and a file read are one action; in
// a program's file they are far apart.
const maxRequestLines = 10

// inlineRequests judges a one-liner's network requests: a request that
// changes or deletes data on another machine (DELETE, PUT, PATCH) asks, as
// with curl -X; one that reads a local file sends it (an upload, a leak
// when it names a secret). Requests only to this machine are development.
func (x *command) inlineRequests(code string) {
	urls := inlineURL.FindAllString(code, -1)
	local := len(urls) > 0
	for _, u := range urls {
		local = local && isLoopbackURL(arg{text: u, static: true})
	}
	if local {
		return
	}
	if inlineChange.MatchString(code) {
		x.flag(catHTTP)
	}
	if inlineReads.MatchString(code) {
		for _, m := range inlinePath.FindAllStringSubmatch(code, -1) {
			if x.l.leaks(m[1]) {
				x.flag(catExfil)
				return
			}
		}
		x.flag(catUpload)
	}
}
