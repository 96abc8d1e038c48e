package bash

// The rules of policy files (package policy) applied to each simple
// command the gate judges, as the gate parsed it.

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/policy"
)

// RuleMatch says which rule decided (or would have decided, in shadow
// mode) for one simple command of a line.
type RuleMatch struct {
	Tier     string          `json:"tier"` // "engine", "user", "project"
	Rule     string          `json:"rule"`
	File     string          `json:"file,omitempty"`
	Decision policy.Decision `json:"decision"`
	Reason   string          `json:"reason"`
	Command  string          `json:"command"`
	Shadow   bool            `json:"shadow,omitempty"` // evaluated, not enforced
}

// Commands splits line into its simple commands as the gate judges them
// in dir (through wrappers, renames, nested shells, scripts...), in the
// form policy rules match: policy.Splitter for a file's examples.
func Commands(line, dir string) []policy.Command { return newScope(dir).commands(line, true, nil) }

// commands is Commands in sc, the words' paths resolved only if paths,
// parsed with parser (nil: a new one).
func (sc *scope) commands(line string, paths bool, parser *syntax.Parser) []policy.Command {
	c := &checker{dir: sc.dir, sc: sc, at: sc.dir, collect: true, collectPaths: paths, parser: parser}
	if validate(line) != nil {
		return nil
	}
	c.script(line, 0)
	return c.commands
}

// splitter is Commands in the current directory, for the examples of one
// file, checked one after another: the scope and the parser are made once.
func splitter() policy.Splitter {
	dir, _ := os.Getwd()
	sc, parser := newScope(dir), syntax.NewParser(syntax.Variant(syntax.LangBash))
	return func(line string, paths bool) []policy.Command { return sc.commands(line, paths, parser) }
}

// ParsePolicy parses a policy file's content for tier, checking its rules'
// examples with the gate's own parsing (see package policy).
func ParsePolicy(path string, data []byte, tier policy.Tier) (*policy.File, error) {
	return policy.Parse(path, data, tier, splitter())
}

// ParsePolicyJSON parses a policy given as JSON in the policy format (the
// engine config's bash.policy, named name in errors) for tier.
func ParsePolicyJSON(name string, data []byte, tier policy.Tier) (*policy.File, error) {
	return policy.ParseJSON(name, data, tier, splitter())
}

// LoadPolicy reads and parses the policy file at path for tier.
func LoadPolicy(path string, tier policy.Tier) (*policy.File, error) {
	return policy.LoadFile(path, tier, splitter())
}

// policyCommandPaths is policyCommand, resolving its operands' paths only
// when paths is true (resolving follows symlinks on disk).
func (x *command) policyCommandPaths(paths bool) policy.Command {
	pc := policy.Command{Program: x.name, Line: x.disp, Env: x.l.callEnv}
	valued := known[x.name].valued
	ws := x.l.c.sc.dir
	ended := false
	for i := 1; i < len(x.args); i++ {
		a := x.args[i]
		t := a.text
		switch {
		case ended || !strings.HasPrefix(t, "-") || len(t) == 1:
			w := policy.Word{Text: t}
			if paths {
				if p, ok := x.l.abs(a); ok {
					w.Path = workspacePath(p, ws)
				}
			}
			pc.Operands = append(pc.Operands, w)
		case t == "--":
			ended = true
		case strings.HasPrefix(t, "--"):
			name, _, hasValue := strings.Cut(t, "=")
			pc.Options = append(pc.Options, name)
			if !hasValue && hasWord(valued, name) {
				i++
			}
		default:
			pc.Options = append(pc.Options, t)
			if len(t) > 2 {
				for _, c := range t[1:] {
					pc.Options = append(pc.Options, "-"+string(c))
				}
			} else if hasWord(valued, t) {
				i++
			}
		}
	}
	for i, a := range x.args[1:] {
		if h := hostOf(x.name, a.text, i == 0 || len(pc.Operands) > 0 && pc.Operands[0].Text == a.text); h != "" {
			pc.Hosts = append(pc.Hosts, h)
		}
	}
	return pc
}

// workspacePath is the absolute path p relative to the workspace ws when
// inside it ("." for ws itself), else p.
func workspacePath(p, ws string) string {
	if ws != "" && under(p, ws) {
		rel, err := filepath.Rel(ws, p)
		if err == nil {
			return rel
		}
	}
	return p
}

// remoteShells take a destination host as their first operand.
var remoteShells = map[string]bool{"ssh": true, "mosh": true, "autossh": true, "telnet": true, "nc": true, "ncat": true, "netcat": true}

// hostOf is the host a word names for program name: a URL's, a
// [user@]host:path of scp, rsync or git, the destination of ssh; "".
func hostOf(name, w string, first bool) string {
	if _, v, ok := strings.Cut(w, "="); ok && strings.HasPrefix(w, "-") {
		w = v
	}
	if i := strings.Index(w, "://"); i > 0 {
		if u, err := url.Parse(w); err == nil && u.Hostname() != "" {
			return strings.ToLower(u.Hostname())
		}
		return ""
	}
	if strings.HasPrefix(w, "-") || w == "" {
		return ""
	}
	if remoteShells[name] && first {
		_, h, ok := strings.Cut(w, "@")
		if !ok {
			h = w
		}
		return strings.ToLower(h)
	}
	switch name {
	case "scp", "rsync", "sftp", "git", "rclone":
		if isRemote(w) {
			h, _, _ := strings.Cut(w, ":")
			if _, after, ok := strings.Cut(h, "@"); ok {
				h = after
			}
			return strings.ToLower(h)
		}
	case "curl", "wget", "http", "https", "xh", "curlie", "aria2c":
		if strings.Contains(w, ".") && !strings.HasPrefix(w, "/") && !strings.HasPrefix(w, ".") && !strings.ContainsAny(w, " @") {
			h, _, _ := strings.Cut(w, "/")
			h, _, _ = strings.Cut(h, ":")
			return strings.ToLower(h)
		}
	}
	return ""
}

// applyPolicy applies the verdict of the policy rules to x, after the
// built-in judgment found x.local. It reports whether x was denied.
func (l *level) applyPolicy(x *command) (denied, allowed bool) {
	if l.c.collect {
		l.c.commands = append(l.c.commands, x.policyCommandPaths(l.c.collectPaths))
	}
	relevant, paths := l.c.policy.Relevant(x.name)
	if !relevant {
		return false, false
	}
	pc := x.policyCommandPaths(paths)
	v := l.c.policy.Decide(pc)
	for _, r := range v.Shadow {
		l.c.matched = append(l.c.matched, ruleMatch(r, pc, true))
	}
	if v.Rule == nil {
		return false, false
	}
	l.c.matched = append(l.c.matched, ruleMatch(v.Rule, pc, false))
	label := fmt.Sprintf("%s rule %q (%s)", v.Rule.Tier, v.Rule.Name, v.Rule.Reason)
	switch v.Decision {
	case policy.Deny:
		l.c.add(finding{action: ActionDeny, reason: "denied by " + label + ": " + abbreviate(x.disp), key: x.disp})
		return true, false
	case policy.Ask: // asked even where a built-in rule allows: straight to the line's findings
		x.flag(label)
		l.c.add(x.local[len(x.local)-1])
		x.local = x.local[:len(x.local)-1]
	case policy.Allow:
		return false, true
	}
	return false, false
}

func ruleMatch(r *policy.Rule, pc policy.Command, shadow bool) RuleMatch {
	return RuleMatch{Tier: r.Tier.String(), Rule: r.Name, File: r.File, Decision: r.Decision, Reason: r.Reason, Command: pc.Line, Shadow: shadow}
}

// WithPolicy adds policy files to the rules every command is judged by:
// the host's own (policy.TierEngine, whose rules may lock a decision), or
// files of any tier parsed with ParsePolicy.
func WithPolicy(files ...*policy.File) Option {
	return func(c *toolConfig) { c.policies = append(c.policies, files...) }
}

// WithUserPolicy reads the user's policy file (policy.TierUser) at path,
// again whenever it changes. A missing file has no rules; a file that does
// not load makes every command fail with its error until it is fixed.
func WithUserPolicy(path string) Option { return func(c *toolConfig) { c.userPolicy = path } }

// WithProjectPolicy uses each project's policy file (policy.ProjectFile in
// the project root of the session's directory, policy.TierProject) once
// the user trusted its content (Tool.TrustProjectPolicy), recorded in the
// JSON file at trustFile ("": for as long as the Tool). A file not trusted,
// or changed since, is not used, and the session is warned once.
func WithProjectPolicy(trustFile string) Option {
	return func(c *toolConfig) { c.projectPolicy, c.trustFile = true, trustFile }
}

// policies are the policy files a Tool judges by.
type policies struct {
	engine  []*policy.File
	user    *policyFile
	trust   *policy.Trust // nil: project files are not used
	mu      sync.Mutex
	project map[string]*policyFile // by path
}

// policyFile is a policy file read again when it changes on disk.
type policyFile struct {
	path string
	tier policy.Tier
	mu   sync.Mutex
	stat os.FileInfo
	file *policy.File
	err  error
}

// get returns the file as it is now: nil without error when missing.
func (p *policyFile) get() (*policy.File, error) {
	fi, err := os.Stat(p.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err == nil && p.stat != nil && os.SameFile(fi, p.stat) && fi.ModTime().Equal(p.stat.ModTime()) && fi.Size() == p.stat.Size() {
		return p.file, p.err
	}
	p.stat = fi
	p.file, p.err = LoadPolicy(p.path, p.tier)
	return p.file, p.err
}

func newPolicies(c toolConfig) *policies {
	ps := &policies{engine: c.policies, project: map[string]*policyFile{}}
	if c.userPolicy != "" {
		ps.user = &policyFile{path: c.userPolicy, tier: policy.TierUser}
	}
	if c.projectPolicy {
		ps.trust = policy.NewTrust(c.trustFile)
	}
	return ps
}

// projectFile is the project policy file of the project dir is in.
func (ps *policies) projectFile(dir string) *policyFile {
	p := filepath.Join(engine.ProjectRoot(dir), policy.ProjectFile)
	ps.mu.Lock()
	defer ps.mu.Unlock()
	pf, ok := ps.project[p]
	if !ok {
		pf = &policyFile{path: p, tier: policy.TierProject}
		ps.project[p] = pf
	}
	return pf
}

// set is the rules in force for a command run in dir. untrusted names a
// project file that exists but is not used (not trusted, changed since
// trusted, or not loading), with why; err is a user file that does not load.
func (ps *policies) set(dir string) (set *policy.Set, untrusted string, err error) {
	files := slices.Clone(ps.engine)
	if ps.user != nil {
		f, err := ps.user.get()
		if err != nil {
			return nil, "", fmt.Errorf("the user policy does not load: %w", err)
		}
		files = append(files, f)
	}
	if ps.trust != nil {
		pf := ps.projectFile(dir)
		f, err := pf.get()
		switch {
		case err != nil:
			untrusted = fmt.Sprintf("the project policy %s is not used: %v", pf.path, err)
		case f == nil:
		case ps.trust.Trusted(f.Path, f.SHA256):
			files = append(files, f)
		default:
			untrusted = fmt.Sprintf("the project policy %s (sha256 %s) is not used: it is not trusted, or it changed since it was trusted; read it, then trust it (Tool.TrustProjectPolicy)", pf.path, f.SHA256[:12])
		}
	}
	if len(files) == 0 {
		return nil, untrusted, nil
	}
	return policy.NewSet(files...), untrusted, nil
}

// TrustProjectPolicy trusts the policy file of the project dir is in,
// bound to its SHA-256 (a change makes it untrusted again). sha256 is the
// hash of the content the person was shown (ReviewProjectPolicy): a file
// that changed since is not trusted (policy.ErrChanged); "" trusts it as
// it is now. It returns the file's path and hash; a file that does not
// load is not trusted (the error says why). The Tool must use project
// policies (WithProjectPolicy).
func (t *Tool) TrustProjectPolicy(dir, sha256 string) (path, sha string, err error) {
	if t.policies.trust == nil {
		return "", "", fmt.Errorf("%w: trust a project policy: the bash tool does not use project policies: create it with bash.WithProjectPolicy", engine.ErrInvalidArgument)
	}
	pf := t.policies.projectFile(orCwd(dir))
	f, err := pf.get()
	switch {
	case err != nil:
		return "", "", err
	case f == nil:
		return "", "", fmt.Errorf("%w: trust a project policy: %s does not exist", engine.ErrInvalidArgument, pf.path)
	case sha256 != "" && sha256 != f.SHA256:
		return "", "", fmt.Errorf("%w: %s was shown with sha256 %s and is now %s: read it again, then trust it", policy.ErrChanged, f.Path, sha256, f.SHA256)
	}
	return f.Path, f.SHA256, t.policies.trust.Add(f.Path, f.SHA256)
}

// ReviewProjectPolicy is the policy file of the project dir is in as a
// person is shown it before trusting it: its path, hash, rules and whether
// it is trusted. nil when there is none, or the Tool does not use project
// policies. A file that does not load has only its path and the error.
func (t *Tool) ReviewProjectPolicy(dir string) *policy.Review {
	if t.policies.trust == nil {
		return nil
	}
	pf := t.policies.projectFile(orCwd(dir))
	f, err := pf.get()
	switch {
	case err != nil:
		return &policy.Review{Path: pf.path, Rules: []policy.RuleReview{}, Error: err.Error()}
	case f == nil:
		return nil
	}
	rv := policy.ReviewOf(f, t.policies.trust.Trusted(f.Path, f.SHA256))
	return &rv
}

// orCwd is dir, or the process's directory for "" (a session's, as the
// gate judges it: checkDir).
func orCwd(dir string) string {
	if dir == "" {
		dir, _ = os.Getwd()
	}
	return dir
}

// policyWarnedKey keys the project policies a session was warned about.
type policyWarnedKey struct{ t *Tool }

// policyScope sets the rules in force for sc, warning env's session (once
// per file and content) about a project file it does not use.
func (t *Tool) policyScope(sc *scope, env *engine.Env) error {
	set, untrusted, err := t.policies.set(sc.dir)
	if err != nil {
		return err
	}
	sc.policy = set
	if untrusted != "" && env != nil {
		warned := env.Local(policyWarnedKey{t}, func() any { return &sync.Map{} }).(*sync.Map)
		if _, done := warned.LoadOrStore(untrusted, true); !done {
			env.Warn(untrusted)
		}
	}
	return nil
}

// recordRules records in env's session what each policy rule decided (or
// would have, in shadow mode) and returns the enforced ones for the
// approver.
func recordRules(env *engine.Env, ms []RuleMatch) []engine.ApprovalRule {
	var out []engine.ApprovalRule
	for _, m := range ms {
		answer := engine.Answer("")
		switch m.Decision {
		case policy.Allow:
			answer = engine.AnswerApproved
		case policy.Deny:
			answer = engine.AnswerDenied
		}
		label := fmt.Sprintf("%s rule %q (%s)", m.Tier, m.Rule, m.Reason)
		if m.Shadow {
			env.Decided("Bash", m.Command, answer, "shadow", "would have decided "+string(m.Decision)+": "+label)
			continue
		}
		env.Decided("Bash", m.Command, answer, "rule", label)
		out = append(out, engine.ApprovalRule{Tier: m.Tier, Rule: m.Rule, Decision: string(m.Decision), Reason: m.Reason})
	}
	return out
}
