package bash

import (
	"fmt"
	"os"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"

	"github.com/interlock-dev/interlock/engine/policy"
)

// Action is what a check decided for a command.
type Action string

// Actions, from least to most restrictive.
const (
	ActionAllow   Action = "allow"   // run it
	ActionConfirm Action = "confirm" // ask the user first
	ActionDeny    Action = "deny"    // never run it; the model gets a tool error
)

// Decision is the verdict on a command line and why.
type Decision struct {
	Decision Action `json:"decision"`
	// Reasons name the category and the offending simple command, e.g.
	// "recursive deletion: rm -rf build". Empty when allowed.
	Reasons []string `json:"reasons"`
	// Rules are the policy rules that decided for the line's simple
	// commands, and the shadow rules that would have.
	Rules []RuleMatch `json:"rules,omitempty"`

	findings []finding
	writes   []fileWrite // files the top level of the line writes, for the session's FileLog
}

// finding is one reason to stop a command.
type finding struct {
	action Action
	reason string
	key    string // what an approval of this finding remembers: the judged action; "" when it cannot be remembered
	why    string // why key is "" (targets not known statically)
}

// Categories of danger, as they appear in reasons.
const (
	catDelete        = "recursive deletion"
	catForceDelete   = "forced deletion"
	catDestroy       = "file destruction"
	catDisk          = "disk or filesystem tool"
	catPerms         = "permission change outside the working directory"
	catOwner         = "ownership change outside the working directory"
	catPrivilege     = "privilege escalation"
	catDownloadExec  = "download and execute"
	catGit           = "git history rewrite or discarded changes"
	catSystem        = "process or system control"
	catAccount       = "user account change"
	catPackage       = "package removal"
	catDatabase      = "database drop or flush"
	catSensitive     = "write to sensitive file"
	catExfil         = "sending secrets or home files off the machine"
	catInfra         = "destructive container, cluster or cloud command"
	catForkBomb      = "fork bomb"
	catNetShell      = "reverse shell or raw network connection"
	catInline        = "inline script that deletes files or runs commands"
	catDynamic       = "command not known statically"
	catDynamicCode   = "shell code not known statically"
	catUnparsable    = "unparsable command"
	catTooDeep       = "nesting too deep"
	catInvalid       = "invalid input"
	catUnknown       = "program not known (a rule can allow it)"
	catChange        = "subcommand that changes state outside the project"
	catEnvCode       = "environment that makes a program run code"
	catOptionCode    = "option that runs code"
	catScript        = "script that cannot be judged"
	catOutside       = "write outside the working directory"
	catHost          = "aimed at the host process or its secrets"
	catMigration     = "database migration"
	catToolchain     = "toolchain or system setting change"
	catPublish       = "publishes or pushes outside the machine"
	catSubUnknown    = "subcommand not known (an alias or a plugin can run anything)"
	catUnknownPath   = "write to a path only known when it runs"
	catHTTP          = "HTTP request that changes or deletes data on another machine"
	catDynamicOption = "options only known when it runs"
	catUpload        = "uploads local files to another machine"
	catServe         = "serves files over the network"
	catRemote        = "runs commands on another machine"
	catClock         = "changes the system clock"
	catSecretRead    = "prints secrets into what the model sees"
)

// MaxCommandBytes is the longest command the tool runs or checks.
const MaxCommandBytes = 100 << 10

// maxDepth bounds nested shells (bash -c "eval '...'") and wrappers (sudo env nice ...).
const maxDepth = 16

// CheckCommand classifies a command line with the built-in categories and
// no policy rules. It never runs anything and is safe for concurrent use. Anything
// it cannot judge (unparsable, a command name only known at run time) is
// confirm: it fails closed.
//
// The command is judged as if run in the current directory: scripts it runs
// are read from disk, paths are resolved there and writes outside it ask.
func CheckCommand(cmd string) Decision {
	dir, _ := os.Getwd()
	return check(cmd, newScope(dir))
}

// check classifies cmd in scope sc (with its policy rules). A panic in the classifier
// must not take the host process down: it becomes a confirm.
func check(cmd string, sc *scope) (d Decision) {
	defer func() {
		if p := recover(); p != nil {
			d = decide([]finding{{action: ActionConfirm, reason: fmt.Sprintf("%s: classifier failed (%v)", catInvalid, p), key: cmd}})
		}
	}()
	return checkUnsafe(cmd, sc)
}

// checkUnsafe is check without the recover, for the fuzz test.
func checkUnsafe(cmd string, sc *scope) Decision {
	if err := validate(cmd); err != nil {
		if strings.TrimSpace(cmd) == "" {
			return decide(nil)
		}
		return decide([]finding{{action: ActionConfirm, reason: catInvalid + ": " + err.Error(), key: cmd}})
	}
	if sc.policyErr != nil {
		return decide([]finding{{action: ActionDeny, reason: "not run: " + sc.policyErr.Error() + " (fix the file)"}})
	}
	c := &checker{dir: sc.dir, sc: sc, at: sc.dir, policy: sc.policy}
	c.script(cmd, 0)
	sc.cache.release(c.parser) // not after a panic: check's recover returns without it
	d := decide(c.found)
	d.writes = c.writes
	d.Rules = c.matched
	return d
}

// validate reports why cmd cannot be run at all.
func validate(cmd string) error {
	switch {
	case strings.TrimSpace(cmd) == "":
		return fmt.Errorf("command is empty")
	case len(cmd) > MaxCommandBytes:
		return fmt.Errorf("command is %d bytes; the limit is %d (write a script file and run that)", len(cmd), MaxCommandBytes)
	case strings.IndexByte(cmd, 0) >= 0:
		return fmt.Errorf("command contains a NUL byte at offset %d", strings.IndexByte(cmd, 0))
	case !utf8.ValidString(cmd):
		return fmt.Errorf("command is not valid UTF-8 (first bad byte at offset %d)", firstInvalid(cmd))
	}
	return nil
}

func firstInvalid(s string) int {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, n := utf8.DecodeRuneInString(s[i:]); n <= 1 {
				return i
			}
		}
	}
	return -1
}

// decide turns findings into a decision: any deny wins, then any confirm.
func decide(fs []finding) Decision {
	d := Decision{Decision: ActionAllow, Reasons: []string{}, findings: fs}
	for _, f := range fs {
		if f.action == ActionDeny {
			d.Decision = ActionDeny
		} else if d.Decision == ActionAllow {
			d.Decision = ActionConfirm
		}
	}
	for _, want := range []Action{ActionDeny, ActionConfirm} {
		for _, f := range fs {
			if f.action == want {
				d.Reasons = append(d.Reasons, f.reason)
			}
		}
	}
	return d
}

// checker walks one command line and collects findings.
type checker struct {
	dir    string
	sc     *scope
	parser *syntax.Parser
	at     string // absolute directory a nested script starts in ("" unknown)
	// scripts counts the script files read from disk, to bound the work
	scripts int
	writes  []fileWrite
	real    map[string]string // realPath results of this check
	lstats  map[string]lstatResult
	found   []finding
	seen    map[string]bool // reasons already found
	// parsed counts the bytes of all nested scripts parsed, to bound the
	// work on a line whose nested strings multiply (echo ... | sh in eval...).
	parsed int
	// aliases defined on the line (alias ls=rm): with expand_aliases, a
	// later line runs the value in place of the name.
	endAt     string // the directory the last script parsed ended in
	aliases   map[string]arg
	expanding map[string]bool // aliases being expanded: bash does not expand one in itself
	policy    *policy.Set     // the policy files' rules in force; nil: none
	matched   []RuleMatch     // the rules that decided (or would have, in shadow mode)
	collect   bool            // record every simple command as rules see it (Commands)
	// collectPaths: with their words' paths resolved
	collectPaths bool
	commands     []policy.Command
	// project counts the project's own code being judged (scripts, make
	// recipes, package.json scripts read from the workspace); projectTexts
	// are the texts of script files read from the workspace.
	project      int
	projectTexts map[string]bool
	// diskTexts are the texts read from files (and the package.json
	// scripts and make recipes in them): their syntax trees are kept.
	diskTexts map[string]bool
	// artefactFind counts the finds being judged that select only build
	// artefacts in the workspace (findArtefacts): under the sandbox, their
	// -delete and the rm they run on what they found ({} or their start
	// paths, artefactStarts) need no question.
	artefactFind   int
	artefactStarts []string
	// lineRemotes are the git remotes the line adds or points elsewhere.
	lineRemotes map[string]bool
}

// maxParsedBytes bounds the work of one check; past it the line is confirm.
const maxParsedBytes = 4 * MaxCommandBytes

func (c *checker) add(f finding) {
	if c.seen[f.reason] {
		return
	}
	put(&c.seen, f.reason, true)
	c.found = append(c.found, f)
}

// flag records a confirm finding about the command shown as disp. It can
// be remembered only when disp holds no expansion and the directory is known.
func (c *checker) flag(category, disp string) {
	f := finding{action: ActionConfirm, reason: category + ": " + abbreviate(disp)}
	switch {
	case c.at == "":
		f.why = "its working directory is not known statically"
	case strings.ContainsAny(disp, "$`*?"):
		f.why = "its words are only known when it runs"
	default:
		f.key = disp + " (in " + c.at + ")"
	}
	c.add(f)
}

// level is one parsed script: the command line itself, or the string given
// to bash -c, eval, ssh, a here-doc fed to a shell...
type level struct {
	c          *checker
	src        string
	depth      int
	vars       map[string]variable // static assignments seen so far
	downloaded map[string]bool     // files a downloader wrote (curl -o x.sh)
	written    map[string]string   // scripts written with known text (echo ... > x.sh)
	links      map[string]string   // symlinks made (ln -s /etc/passwd x): name -> target
	cwd        string              // directory after a static cd ("" = the working directory, "?" = unknown)
	ifsChanged bool                // IFS is set: unquoted expansions split in unknown ways
	pipesDone  map[*syntax.BinaryCmd]bool
	at         string            // absolute directory commands run in ("" = not known statically)
	copies     map[string]string // files copied on the line: absolute destination -> absolute source
	unknownOut map[string]bool   // files written on the line with text not known statically (absolute)
	funcs      map[string]bool   // functions defined on the line: calling one runs its body, judged where defined
	pathDirs   []string          // directories the line put in PATH: names are looked up there first
	absLinks   map[string]string // symlinks made on the line: absolute link -> absolute target
	secretOut  map[string]bool   // files the line fills with secrets (env > x): absolute
	dirty      string            // a command that may have rewritten files in ways not tracked, "" if none
	readVars   map[string]bool   // variables read or looped over computed words (read v, for v in $(...)), once asked
	callEnv    []string          // NAME=value given to the simple command being judged (prefix assignments, env NAME=value)
}

// put sets (*m)[k] = v, making the map on first use: a level's maps stay
// nil until its line records something in them, and most lines record
// nothing in most of them.
func put[K comparable, V any](m *map[K]V, k K, v V) {
	if *m == nil {
		*m = map[K]V{}
	}
	(*m)[k] = v
}

// parsedScript is a script's syntax tree (shared: never changed), or why
// it does not parse.
type parsedScript struct {
	f   *syntax.File
	err error
}

// fromDisk marks text as read from a file (see diskTexts).
func (c *checker) fromDisk(text string) {
	if c.diskTexts == nil {
		c.diskTexts = map[string]bool{}
	}
	c.diskTexts[text] = true
}

// script parses src and judges every simple command in it.
func (c *checker) script(src string, depth int) {
	if c.projectTexts[src] {
		c.project++
		defer func() { c.project-- }()
	}
	c.parsed += len(src)
	if depth > maxDepth || c.parsed > maxParsedBytes {
		c.flag(catTooDeep, src)
		return
	}
	if c.parser == nil { // one per check: a parser is large, and reusable once Parse returned
		c.parser = c.sc.cache.parser()
	}
	var f *syntax.File
	var err error
	if c.diskTexts[src] { // the same script is parsed once per session
		p := c.sc.cache.derive("sh", src, func(src string) any {
			f, err := c.parser.Parse(strings.NewReader(src), "")
			return parsedScript{f, err}
		}).(parsedScript)
		f, err = p.f, p.err
	} else {
		f, err = c.parser.Parse(strings.NewReader(src), "")
	}
	if err != nil {
		c.add(finding{action: ActionConfirm, reason: catUnparsable + ": " + abbreviate(err.Error()), key: src})
		return
	}
	l := &level{c: c, src: src, depth: depth, ifsChanged: strings.Contains(src, "IFS"), at: c.at}
	syntax.Walk(f, func(n syntax.Node) bool {
		if fd, ok := n.(*syntax.FuncDecl); ok && fd.Name != nil {
			put(&l.funcs, fd.Name.Value, true)
		}
		return true
	})
	saved := c.at
	syntax.Walk(f, l.visit)
	c.at, c.endAt = saved, l.at
	if depth == 0 {
		c.writes = l.fileWrites()
	}
}
