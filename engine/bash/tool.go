package bash

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/bash/contain"
)

// Defaults of New.
const (
	DefaultTimeout     = 2 * time.Minute        // per command, unless the call sets timeout_ms
	DefaultGrace       = 200 * time.Millisecond // SIGTERM to SIGKILL
	DefaultOutputLimit = 64 << 10               // bytes of output kept: head and tail
)

// Tool is the Bash tool. Its calls take {"command": "...", "timeout_ms": N}.
// A command the classifier finds dangerous raises a confirm pause first; a
// deny rule refuses it without asking. Approved or harmless commands run
// with bash -c in their own process group, in the session's directory and
// environment, streaming output as progress. Create it with New; it is safe
// for concurrent use by many sessions.
type Tool struct {
	timeout   time.Duration
	run       runner
	project   *Grants
	sandbox   contain.Policy // for sessions that set none (see SetSandbox)
	env       EnvFilter
	configErr error // a bad option: every call fails with it
	probe     probeResult
	policies  *policies
}

// New returns a Bash tool.
func New(opts ...Option) *Tool {
	c := toolConfig{timeout: DefaultTimeout, grace: DefaultGrace, outputLimit: DefaultOutputLimit, shell: "bash", supervisor: defaultSupervisor()}
	for _, o := range opts {
		o(&c)
	}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	if c.grace < 0 {
		c.grace = 0
	}
	if c.outputLimit <= 0 {
		c.outputLimit = DefaultOutputLimit
	}
	k := &kernel{}
	if c.noNamespaces {
		k.refuseNamespaces()
	}
	return &Tool{
		timeout:   c.timeout,
		run:       runner{shell: c.shell, grace: c.grace, limit: c.outputLimit, supervisor: c.supervisor, kernel: k, noLandlock: c.noLandlock, started: c.startedGroup},
		project:   newGrants(ScopeProject, c.projectFile),
		sandbox:   c.sandbox,
		env:       c.env,
		configErr: c.sandbox.Validate("bash.sandbox"),
		policies:  newPolicies(c),
	}
}

// Check classifies cmd with the built-in categories and the tool's rules,
// as if run in the current directory. Remembered grants are not applied:
// they only skip the question in Run.
func (t *Tool) Check(cmd string) Decision {
	dir, _ := os.Getwd()
	sc := newScope(dir)
	sc.policyErr = t.policyScope(sc, nil)
	t.setSandbox(sc, nil)
	return check(cmd, sc)
}

// ProjectGrants are the approvals remembered with scope "project": they
// apply to every session using this Tool.
func (t *Tool) ProjectGrants() *Grants { return t.project }

// UseGrantStore keeps the project grants in the engine's store (see
// engine.GrantKeeper), in place of the file of WithProjectGrantsFile: the
// engine calls it when it opens its store. Use the Tool with one engine.
func (t *Tool) UseGrantStore(gs engine.GrantStore) error { return t.project.useStore(gs) }

// HeldGrants lists the tool's grants (engine.GrantHolder): each session's
// (of sessions that have any), then the project grants.
func (t *Tool) HeldGrants(name string, sessions []*engine.Session) []engine.Grant {
	var out []engine.Grant
	for _, s := range sessions {
		if g, ok := s.Local(sessionGrantsKey{t}, nil).(*Grants); ok {
			for _, gr := range g.List() {
				out = append(out, engine.Grant{Tool: name, Key: gr.Command, Scope: ScopeSession, Session: s.ID(), At: gr.At})
			}
		}
	}
	for _, gr := range t.project.List() {
		out = append(out, engine.Grant{Tool: name, Key: gr.Command, Scope: ScopeProject, Root: gr.Root, At: gr.At})
	}
	return out
}

// RevokeHeld forgets g (engine.GrantHolder): a session grant in s; a
// project grant of the command in every project (as ProjectGrants().Revoke).
func (t *Tool) RevokeHeld(g engine.Grant, s *engine.Session) error {
	if g.Scope == ScopeProject {
		return t.project.Revoke(g.Key)
	}
	grants, ok := s.Local(sessionGrantsKey{t}, nil).(*Grants)
	if !ok {
		return fmt.Errorf("session %s: bash session grants: %q (list them to see what each covers): %w", s.ID(), g.Key, ErrUnknownGrant)
	}
	return grants.Revoke(g.Key)
}

// sessionGrantsKey keys a Tool's session grants in the session's Local state.
type sessionGrantsKey struct{ t *Tool }

// SessionGrants are the approvals remembered with scope "session" in s for
// this Tool. They live in the session and end with it; no other session
// sees them.
func (t *Tool) SessionGrants(s *engine.Session) *Grants {
	return s.Local(sessionGrantsKey{t}, t.newSessionGrants).(*Grants)
}

func (t *Tool) newSessionGrants() any { return newGrants(ScopeSession, "") }

// fileLogKey keys the session's FileLog in its Local state.
type fileLogKey struct{ t *Tool }

func newFileLogAny() any { return newFileLog() }

// fileCacheKey keys the session's fileCache in its Local state.
type fileCacheKey struct{ t *Tool }

// HasSideEffects reports true: a shell command may change anything, so
// resuming after one was cut off asks first.
func (t *Tool) HasSideEffects(engine.ToolCall) bool { return true }

// RunsProcesses reports true: a cut command's tree is gone, within the
// grace, when Run returns.
func (t *Tool) RunsProcesses(engine.ToolCall) bool { return true }

// AsksBeforeActing reports true: a command is judged, and asked about,
// before it runs, so after a restart a command cut at its question is
// asked again at once.
func (t *Tool) AsksBeforeActing(engine.ToolCall) bool { return true }

const maxTimeoutMS = 24 * 60 * 60 * 1000

// Args are the arguments of a Bash call.
type Args struct {
	Command   string `json:"command"`
	TimeoutMS int    `json:"timeout_ms,omitempty"` // 0: the tool's timeout
}

// Run implements engine.Tool.
func (t *Tool) Run(ctx context.Context, call engine.ToolCall, env *engine.Env) (engine.Result, error) {
	var a Args
	raw := call.Args
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return toolError(`bash: arguments must be {"command": "...", "timeout_ms": N}: %v`, err), nil
	}
	if err := validate(a.Command); err != nil {
		return toolError("bash: %v", err), nil
	}
	if a.TimeoutMS < 0 || a.TimeoutMS > maxTimeoutMS {
		return toolError("bash: timeout_ms must be between 0 and %d (24 h), got %d", maxTimeoutMS, a.TimeoutMS), nil
	}
	files := env.Local(fileLogKey{t}, newFileLogAny).(*FileLog)
	g := t.gate(a.Command, checkDir(env), files, env)
	switch {
	case g.refused != nil:
		return *g.refused, nil
	case g.ask == nil:
		return t.execute(ctx, a, env, files, g.writes)
	}
	// The engine's approver, if any, decides before a person is asked;
	// when it does not decide (ask, an error, a timeout) the person is.
	switch decision, err := env.Approve(ctx, engine.ApprovalRequest{Tool: "Bash", Command: a.Command, Reasons: g.ask.Reasons, Rules: g.rules}); {
	case decision == engine.ApprovalAllow:
		return t.execute(ctx, a, env, files, g.writes)
	case decision == engine.ApprovalDeny:
		return engine.Result{IsError: true, Output: "Command denied by the approver"}, nil
	case err != nil:
		g.ask.Reasons = append(g.ask.Reasons, err.Error())
	}
	// The command waits for the user's answer: the run parks on it (no
	// goroutine held) and the answer runs it, or denies it.
	return env.Ask(ctx, *g.ask, func(ctx context.Context, answer engine.PauseResult) (engine.Result, error) {
		if !answer.Approved() {
			out := "Command denied by user"
			if answer.Answer == engine.AnswerTimedOut {
				out = "Command not run: the confirmation timed out"
			}
			if answer.Reason != "" {
				out += ": " + answer.Reason
			}
			return engine.Result{IsError: true, Output: out}, nil
		}
		t.remember(env, g.keys, g.root, answer.Remember)
		return t.execute(ctx, a, env, files, g.writes)
	})
}

// execute runs a command the gate let through.
func (t *Tool) execute(ctx context.Context, a Args, env *engine.Env, files *FileLog, writes []fileWrite) (engine.Result, error) {
	defer files.record(writes) // a later call running what this one wrote judges what was written
	timeout := t.timeout
	if a.TimeoutMS > 0 {
		timeout = time.Duration(a.TimeoutMS) * time.Millisecond
	}
	if t.configErr != nil {
		return toolError("bash: %v: fix the tool's configuration", t.configErr), nil
	}
	ss := t.sessionSandbox(env)
	policy := ss.policy(t.sandbox)
	if sb := t.describe(policy); sb.Degraded && ss.firstWarning() {
		env.Warn("Sandbox not fully in force: " + strings.Join(sb.Warnings, "; "))
	}
	environ := append(t.env.filter(env.ProcessEnviron()), env.Environ()...)
	out, err := t.run.run(ctx, a.Command, env.Dir(), environ, timeout, policy, env.Progress)
	ss.setLast(out.report)
	if ctx.Err() != nil {
		// What it printed before the stop (within the output cap) stays
		// in its result: the model and the person see what ran.
		return engine.Result{Output: out.output}, interrupted(ctx)
	}
	if err != nil && out.report.Error != "" || errors.Is(err, contain.ErrNoSupervisor) {
		return toolError("Command not run: %v", err), nil
	}
	res := result(out, timeout, err)
	if hint := sandboxHint(out, policy); hint != "" {
		res.Output += "\n" + hint
	}
	return res, nil
}

// gateResult is what the gate decided about a command: refused (the
// result the model sees), let through, or to ask about (ask: the confirm
// pause; keys and root: what an approval remembers).
type gateResult struct {
	writes  []fileWrite
	refused *engine.Result
	ask     *engine.PauseRequest
	keys    []string
	root    string
	rules   []engine.ApprovalRule // the policy rules that decided, for the approver
}

// gate decides whether the command may run, and what to ask when the
// user has to decide.
func (t *Tool) gate(command, dir string, files *FileLog, env *engine.Env) gateResult {
	sc := newScope(dir)
	sc.files = files
	sc.cache = env.Local(fileCacheKey{t}, newFileCacheAny).(*fileCache)
	if err := t.policyScope(sc, env); err != nil {
		return gateResult{refused: &engine.Result{IsError: true, Output: fmt.Sprintf("Command not run: %v", err)}}
	}
	t.setSandbox(sc, env)
	d := check(command, sc)
	rules := recordRules(env, d.Rules)
	switch d.Decision {
	case ActionAllow:
		return gateResult{writes: d.writes}
	case ActionDeny:
		return gateResult{refused: &engine.Result{IsError: true, Output: "Command denied by rule: " + strings.Join(d.Reasons, "; ")}}
	}
	root := engine.ProjectRoot(sc.dir)
	reasons, keys := t.unapproved(d, env, root)
	if len(reasons) == 0 {
		return gateResult{writes: d.writes} // every finding was approved before
	}
	req := &engine.PauseRequest{
		Kind:    engine.PauseConfirm,
		Tool:    "Bash",
		Message: "Potentially dangerous command",
		Details: command,
		Reasons: reasons,
	}
	offerRemember(req, keys)
	return gateResult{writes: d.writes, keys: keys, root: root, ask: req, rules: rules}
}

// offerRemember makes req offer what an approval of findings keyed keys
// can be remembered with, and say what it would remember: this tool keeps
// the grants itself (remember), the engine only shows them.
func offerRemember(req *engine.PauseRequest, keys []string) {
	req.RememberScopes = rememberScopes(keys)
	req.ToolRemembers = true
	req.RememberKey = ""
	if req.RememberScopes != nil {
		req.RememberKey = strings.Join(uniqueKeys(keys), "; ")
	}
}

// uniqueKeys returns keys without repeats, in order (a command may repeat
// an action).
func uniqueKeys(keys []string) []string {
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// unapproved returns the findings of d that no approval remembered for
// env's session or for the project at root covers: their reasons, and the
// keys an approval of them remembers.
func (t *Tool) unapproved(d Decision, env *engine.Env, root string) (reasons, keys []string) {
	session := env.Local(sessionGrantsKey{t}, t.newSessionGrants).(*Grants)
	for _, f := range d.findings {
		if session.has(f.key, "") || t.project.has(f.key, root) {
			continue
		}
		reason := f.reason
		if f.key == "" {
			reason += " (an approval cannot be remembered: " + f.why + ")"
		}
		reasons = append(reasons, reason)
		keys = append(keys, f.key)
	}
	return reasons, keys
}

// remember stores an approval of keys with the scope the user chose
// ("session", "project"; anything else is not remembered).
func (t *Tool) remember(env *engine.Env, keys []string, root, scope string) {
	var grants *Grants
	grantRoot := ""
	switch scope {
	case ScopeSession:
		grants = env.Local(sessionGrantsKey{t}, t.newSessionGrants).(*Grants)
	case ScopeProject:
		grants, grantRoot = t.project, root
	}
	if grants == nil {
		return
	}
	now := time.Now()
	if err := grants.add(keys, grantRoot, env.SessionID(), now); err != nil {
		env.Progress(fmt.Sprintf("[approval not remembered: %v]\n", err))
		return
	}
	for _, k := range uniqueKeys(keys) {
		env.GrantAdded(t, k, scope, grantRoot, now)
	}
}

// checkDir is where a command of env's session runs: the session's
// working directory, else the process's.
func checkDir(env *engine.Env) string {
	if dir := env.Dir(); dir != "" {
		return dir
	}
	dir, _ := os.Getwd()
	return dir
}

// sessionScope is where env's session judges a command: its directory and
// the files its earlier calls wrote.
func (t *Tool) sessionScope(env *engine.Env) *scope {
	sc := newScope(checkDir(env))
	sc.files = env.Local(fileLogKey{t}, newFileLogAny).(*FileLog)
	sc.cache = env.Local(fileCacheKey{t}, newFileCacheAny).(*fileCache)
	sc.policyErr = t.policyScope(sc, env)
	t.setSandbox(sc, env)
	return sc
}

// Judge decides command as Run would decide it in env's session, without
// running or asking anything: the tool's rules, the session's working
// directory and the files earlier calls wrote, and the approvals
// remembered for the session and the project. A confirm whose findings
// were all approved before is allow; otherwise Reasons are the findings
// still to ask about. A host's own agent loop uses it (with Confirm) to
// gate its commands exactly like the Bash tool.
func (t *Tool) Judge(env *engine.Env, command string) Decision {
	sc := t.sessionScope(env)
	d := check(command, sc)
	if d.Decision != ActionConfirm {
		return d
	}
	reasons, _ := t.unapproved(d, env, engine.ProjectRoot(sc.dir))
	if len(reasons) == 0 {
		return Decision{Decision: ActionAllow, Reasons: []string{}, writes: d.writes}
	}
	d.Reasons = reasons
	return d
}

// Confirm raises req, a confirm pause about command, in env's session, and
// remembers an approval the way Run's confirm does: with the scope the
// user chose (PauseResult.Remember "session" or "project"), covering the
// findings Judge still asks about. An empty Message of req is filled in
// as Run fills it; the pause shows the command as Details and the gate's
// Reasons, so a req with others is refused (ErrInvalidArgument): what the
// user approves, and may remember, is the command, not a description of
// it. A command a deny rule refuses is denied without asking (fail
// closed). It does not run the command.
func (t *Tool) Confirm(ctx context.Context, env *engine.Env, command string, req engine.PauseRequest) (engine.PauseResult, error) {
	if (req.Details != "" && req.Details != command) || len(req.Reasons) > 0 {
		return engine.PauseResult{}, fmt.Errorf("%w: the confirm of command %q shows the command and the gate's reasons, not details %q or reasons %q: leave them out (describe it in the message)", engine.ErrInvalidArgument, command, req.Details, req.Reasons)
	}
	sc := t.sessionScope(env)
	d := check(command, sc)
	if d.Decision == ActionDeny {
		return engine.PauseResult{Answer: engine.AnswerDenied, Reason: "Command denied by rule: " + strings.Join(d.Reasons, "; ")}, nil
	}
	root := engine.ProjectRoot(sc.dir)
	reasons, keys := t.unapproved(d, env, root)
	req.Kind = engine.PauseConfirm
	if req.Message == "" {
		req.Message = "Potentially dangerous command"
	}
	req.Details, req.Reasons = command, reasons
	offerRemember(&req, keys)
	answer, err := env.Pause(ctx, req)
	if err != nil || !answer.Approved() {
		return answer, err
	}
	t.remember(env, keys, root, answer.Remember)
	return answer, nil
}

// result is what the model sees of a finished command.
func result(o outcome, timeout time.Duration, runErr error) engine.Result {
	var b strings.Builder
	b.WriteString(o.output)
	if o.output != "" && !strings.HasSuffix(o.output, "\n") {
		b.WriteByte('\n')
	}
	isErr := true
	switch {
	case runErr != nil && o.output == "" && o.exitCode == 0 && !o.timedOut:
		b.WriteString(runErr.Error())
		return engine.Result{IsError: true, Output: b.String()}
	case o.timedOut:
		fmt.Fprintf(&b, "[timed out after %s; the command and its children were killed]", timeout)
	case o.exitCode == -1:
		fmt.Fprintf(&b, "[killed by signal: %s]", o.signal)
	default:
		fmt.Fprintf(&b, "[exit code %d]", o.exitCode)
		isErr = o.exitCode != 0
	}
	if runErr != nil {
		fmt.Fprintf(&b, "\n[%v]", runErr)
	}
	return engine.Result{IsError: isErr, Output: b.String()}
}

func toolError(format string, a ...any) engine.Result {
	return engine.Result{IsError: true, Output: fmt.Sprintf(format, a...)}
}

// interrupted is the error returned when ctx ended the call: it wraps
// engine.ErrInterrupted and keeps the reason the engine put in the cause.
func interrupted(ctx context.Context) error {
	cause := context.Cause(ctx)
	if errors.Is(cause, engine.ErrInterrupted) {
		return fmt.Errorf("bash: %w", cause)
	}
	return fmt.Errorf("bash: %w: %w", engine.ErrInterrupted, cause)
}
