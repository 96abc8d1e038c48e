package bash

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/policy"
)

const userPolicy = `version = 1

[[rule]]
name = "no-force-push"
decision = "deny"
reason = "force pushes rewrite history others pulled"
program = "git"
subcommand = "push"
options = ["-f", "--force"]
examples = { match = ["git push -f origin main"], notMatch = ["git push origin main"] }

[[rule]]
name = "ask-before-printing-the-date"
decision = "ask"
reason = "the date is secret here"
program = "date"

[[rule]]
name = "build-is-generated"
decision = "allow"
reason = "build/ is made by make"
program = "rm"
paths = ["build/**"]
examples = { match = ["rm -rf build"], notMatch = ["rm -rf build src"] }
`

// TestUserPolicyDecides: a user rule denies without asking, asks about a
// command the gate finds harmless (its reason in the confirm, with tier
// and rule), and allows what the gate would ask about.
func TestUserPolicyDecides(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "policy.toml")
	writeFile(t, file, userPolicy)
	h := newHarness(t, New(tracked(nil), WithUserPolicy(file)))

	res := h.session("git push -f origin main").run()
	assert.True(t, res.IsError)
	assert.Equal(t, `Command denied by rule: denied by user rule "no-force-push" (force pushes rewrite history others pulled): git push -f origin main`, res.Text)

	p, res := h.session("date").answered(engine.AnswerApproved)
	assert.Equal(t, []string{`user rule "ask-before-printing-the-date" (the date is secret here): date`}, p.Reasons)
	assert.False(t, res.IsError)

	a := h.session("mkdir -p build && touch build/x && rm -rf build && echo gone")
	res = a.run()
	assert.Contains(t, res.Text, "gone")
	d := h.tool.judgeIn(a.dir, "rm -rf build src") // not all operands in build/: the gate's own judgment
	assert.Equal(t, ActionConfirm, d.Decision)
}

// TestBrokenUserPolicyRefuses: a user file that stops loading (here an
// example its rule no longer matches) refuses every command with the
// error, naming the file, line and rule, until it is fixed.
func TestBrokenUserPolicyRefuses(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "policy.toml")
	writeFile(t, file, strings.Replace(userPolicy, `notMatch = ["git push origin main"]`, `notMatch = ["git push --force x"]`, 1))
	h := newHarness(t, New(tracked(nil), WithUserPolicy(file)))
	res := h.session("echo hi").run()
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text, `Command not run: the user policy does not load: invalid policy: `+file+`:3: rule "no-force-push": example "git push --force x" is listed under examples.notMatch but the rule matches it`)

	writeFile(t, file, userPolicy) // fixed: read again
	assert.Contains(t, h.session("echo hi").run().Text, "hi")
}

const projectPolicy = `[[rule]]
name = "gradle-builds"
decision = "allow"
reason = "our build"
program = "gradlew"
examples.match = ["./gradlew build"]

[[rule]]
name = "no-deploy"
decision = "deny"
reason = "deploys go through CI"
program = "make"
subcommand = "deploy"
`

// TestProjectPolicyTrustedByHash: a project's file is used only after the
// user trusted it; a change makes it untrusted (warned) until trusted again.
func TestProjectPolicyTrustedByHash(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, ".git"), 0o755))
	writeFile(t, filepath.Join(root, "Makefile"), "deploy:\n\techo deploying\n")
	pfile := filepath.Join(root, policy.ProjectFile)
	writeFile(t, pfile, projectPolicy)
	trust := filepath.Join(t.TempDir(), "trust.json")
	tool := New(tracked(nil), WithProjectPolicy(trust))
	h := newHarness(t, tool)
	inRoot := func(o *engine.SessionOptions) { o.Dir = root }

	a := h.session("make deploy", inRoot)
	res := a.run() // not trusted: the gate alone decides (make deploy runs echo)
	assert.Contains(t, res.Text, "deploying")
	warned := false
	for _, ev := range drain(a) {
		warned = warned || ev.Type == engine.EventWarning && strings.Contains(ev.Text, "the project policy "+pfile) && strings.Contains(ev.Text, "not trusted")
	}
	assert.True(t, warned, "the session is told the project policy is not used")

	rv := tool.ReviewProjectPolicy(root) // what a person is shown before trusting it
	require.NotNil(t, rv)
	assert.Equal(t, policy.Review{Path: pfile, SHA256: rv.SHA256, Rules: []policy.RuleReview{
		{Name: "gradle-builds", Decision: policy.Allow, Reason: "our build", Matches: "program gradlew"},
		{Name: "no-deploy", Decision: policy.Deny, Reason: "deploys go through CI", Matches: "program make, subcommand deploy"},
	}}, *rv)
	_, _, err := tool.TrustProjectPolicy(root, strings.Repeat("0", 64)) // not what was shown
	require.ErrorIs(t, err, policy.ErrChanged)
	assert.False(t, tool.ReviewProjectPolicy(root).Trusted)
	path, sha, err := tool.TrustProjectPolicy(root, rv.SHA256)
	require.NoError(t, err)
	assert.True(t, tool.ReviewProjectPolicy(root).Trusted)
	assert.Equal(t, pfile, path)
	assert.Len(t, sha, 64)
	res = h.session("make deploy", inRoot).run()
	assert.Equal(t, `Command denied by rule: denied by project rule "no-deploy" (deploys go through CI): make deploy`, res.Text)

	// Trust is kept in the file: a new Tool trusts it too.
	assert.Equal(t, ActionDeny, New(WithProjectPolicy(trust)).judgeIn(root, "make deploy").Decision)

	writeFile(t, pfile, strings.Replace(projectPolicy, `decision = "deny"`, `decision = "allow"`, 1)+"# changed\n")
	a = h.session("make deploy", inRoot)
	assert.Contains(t, a.run().Text, "deploying") // the changed file is not used
	d := tool.judgeIn(root, "make deploy")
	assert.Empty(t, d.Rules)
	changed := tool.ReviewProjectPolicy(root) // asks again: another hash, not trusted
	assert.False(t, changed.Trusted)
	assert.NotEqual(t, sha, changed.SHA256)
	assert.Equal(t, policy.Allow, changed.Rules[1].Decision)

	writeFile(t, pfile, "[[rule]]\nname = 1\n")
	assert.Contains(t, tool.ReviewProjectPolicy(root).Error, "invalid policy: "+pfile)
	assert.Nil(t, New(tracked(nil)).ReviewProjectPolicy(root), "no project policies: nothing to review")
}

// judgeIn is Check in dir.
func (t *Tool) judgeIn(dir, cmd string) Decision {
	sc := newScope(dir)
	sc.policyErr = t.policyScope(sc, nil)
	return check(cmd, sc)
}

// ruleFile is one engine rule named name: its decision, reason "r" and
// the TOML lines of its fields.
func ruleFile(t *testing.T, name, decision, fields string) *policy.File {
	t.Helper()
	f, err := ParsePolicy("engine", []byte("[[rule]]\nname = \""+name+"\"\ndecision = \""+decision+"\"\nreason = \"r\"\n"+fields+"\n"), policy.TierEngine)
	require.NoError(t, err)
	return f
}

// enginePolicy is WithPolicy of ruleFile.
func enginePolicy(t *testing.T, name, decision, fields string) Option {
	return WithPolicy(ruleFile(t, name, decision, fields))
}

// TestShadowPolicy: a file in shadow mode decides nothing; what it would
// have decided is in the decision's Rules.
func TestShadowPolicy(t *testing.T) {
	t.Parallel()
	f, err := ParsePolicy("team.toml", []byte("shadow = true\n"+userPolicy), policy.TierUser)
	require.NoError(t, err)
	tool := New(WithPolicy(f))
	dir := t.TempDir()
	d := tool.judgeIn(dir, "git push -f origin main")
	assert.Equal(t, New().judgeIn(dir, "git push -f origin main").Decision, d.Decision) // the gate's own: it asks
	assert.NotEqual(t, ActionDeny, d.Decision)
	require.Len(t, d.Rules, 1)
	assert.Equal(t, RuleMatch{Tier: "user", Rule: "no-force-push", File: "team.toml", Decision: policy.Deny, Reason: "force pushes rewrite history others pulled", Command: "git push -f origin main", Shadow: true}, d.Rules[0])
}

// TestEngineLockHoldsOverLowerTiers: the host locks an allow; the user's
// deny of the same command does not change it.
func TestEngineLockHoldsOverLowerTiers(t *testing.T) {
	t.Parallel()
	eng, err := ParsePolicy("host", []byte("[[rule]]\nname = \"tests\"\ndecision = \"allow\"\nreason = \"CI runs them\"\nprogram = \"npm\"\nsubcommand = \"test\"\nlock = true\n"), policy.TierEngine)
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "policy.toml")
	writeFile(t, file, "[[rule]]\nname = \"no-npm\"\ndecision = \"deny\"\nreason = \"r\"\nprogram = \"npm\"\n")
	tool := New(WithPolicy(eng), WithUserPolicy(file))
	dir := t.TempDir()
	assert.Equal(t, ActionAllow, tool.judgeIn(dir, "npm test").Decision)
	assert.Equal(t, ActionDeny, tool.judgeIn(dir, "npm publish").Decision)
	assert.Equal(t, []RuleMatch{{Tier: "engine", Rule: "tests", File: "host", Decision: policy.Allow, Reason: "CI runs them", Command: "npm test"}}, tool.judgeIn(dir, "npm test").Rules)
}
