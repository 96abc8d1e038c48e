package webui_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/bash"
	"github.com/interlock-dev/interlock/engine/policy"
	"github.com/interlock-dev/interlock/engine/webui"
)

const projectPolicy = `[[rule]]
name = "no-deploy"
decision = "deny"
reason = "deploys go through CI"
program = "make"
subcommand = "deploy"
`

// policyProject is a git checkout with a project policy file, and a bash
// tool that uses project policies once trusted.
func policyProject(t *testing.T) (root, file string, tool *bash.Tool, e *engine.Engine) {
	t.Helper()
	root = t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, ".git"), 0o755))
	file = filepath.Join(root, policy.ProjectFile)
	require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
	require.NoError(t, os.WriteFile(file, []byte(projectPolicy), 0o644))
	tool = bash.New(bash.WithProjectPolicy(filepath.Join(t.TempDir(), "trust.json")))
	e = engine.New(engine.WithTool("bash", tool))
	t.Cleanup(func() { e.Close() })
	return root, file, tool, e
}

// TestTrustProjectPolicyInChromium: the page shows a session's project
// policy file that is not trusted (path, hash, its rules) with Trust and
// Not now; Not now leaves it untrusted, a changed file asks again, and
// Trust trusts the content shown.
func TestTrustProjectPolicyInChromium(t *testing.T) {
	t.Parallel() // its own engine, server and browser
	root, file, tool, e := policyProject(t)
	s, err := e.NewSession(engine.SessionOptions{ID: "proj", Dir: root, Provider: engine.NewScriptedProvider([]engine.ScriptTurn{{Text: "one"}, {Text: "two"}})})
	require.NoError(t, err)
	srv := serve(t, e, webui.WithProjectPolicies(tool))
	tb := openTab(t, startBrowser(t), srv.URL())

	first := tool.ReviewProjectPolicy(root)
	tb.waitFor(visible("policy-trust") + ` && ` + text("policy-path") + ` === ` + quoteJS(file))
	assert.Equal(t, first.SHA256, tb.eval(text("policy-sha256")))
	rules := tb.eval(text("policy-rules"))
	for _, want := range []string{"no-deploy", "deny", "deploys go through CI", "program make, subcommand deploy"} {
		assert.Contains(t, rules, want)
	}

	tb.click("#policy-not-now")
	tb.waitFor(`document.getElementById('policy-trust').hidden`)
	assert.False(t, tool.ReviewProjectPolicy(root).Trusted, "Not now trusts nothing")

	// The file changes: the page asks again, about the new content.
	require.NoError(t, os.WriteFile(file, []byte(strings.Replace(projectPolicy, `"deny"`, `"allow"`, 1)), 0o644))
	changed := tool.ReviewProjectPolicy(root)
	require.NotEqual(t, first.SHA256, changed.SHA256)
	_, err = s.Prompt(t.Context(), "go") // the session's events make the page look again
	require.NoError(t, err)
	tb.waitFor(visible("policy-trust") + ` && ` + text("policy-sha256") + ` === '` + changed.SHA256 + `'`)
	assert.Equal(t, "true", tb.eval(`document.getElementById('policy-trust-button').disabled+''`), "Trust waits: a click meant for what was there a moment ago trusts nothing")
	assert.Contains(t, tb.eval(text("policy-rules")), "allow")

	tb.answer("#policy-trust-button") // once the content has been on screen a while
	tb.waitFor(`document.getElementById('policy-trust').hidden`)
	now := tool.ReviewProjectPolicy(root)
	assert.True(t, now.Trusted)
	assert.Equal(t, changed.SHA256, now.SHA256)
}

// TestTrustProjectPolicyAPI: trust is bound to the hash the page showed:
// a file that changed since is refused (code changed) and stays untrusted;
// a session without a project file, or a server without project policies,
// has nothing to trust.
func TestTrustProjectPolicyAPI(t *testing.T) {
	t.Parallel()
	root, file, tool, e := policyProject(t)
	_, err := e.NewSession(engine.SessionOptions{ID: "proj", Dir: root})
	require.NoError(t, err)
	_, err = e.NewSession(engine.SessionOptions{ID: "none", Dir: t.TempDir()})
	require.NoError(t, err)
	c := newClient(t, serve(t, e, webui.WithProjectPolicies(tool)))

	r := c.do("GET", "/api/policy?session=proj", nil, nil)
	require.Equal(t, http.StatusOK, r.Status, r.Body)
	shown := r.Body["policy"].(map[string]any)
	assert.Equal(t, file, shown["path"])
	assert.Equal(t, false, shown["trusted"])

	require.NoError(t, os.WriteFile(file, []byte(projectPolicy+"# changed\n"), 0o644))
	r = c.do("POST", "/api/policy/trust?session=proj", map[string]string{"sha256": shown["sha256"].(string)}, nil)
	assert.Equal(t, http.StatusConflict, r.Status)
	assert.Equal(t, webui.CodePolicyChanged, r.Body["code"])
	assert.Contains(t, r.Body["error"], "read it again")
	assert.False(t, tool.ReviewProjectPolicy(root).Trusted)

	r = c.do("POST", "/api/policy/trust?session=proj", map[string]string{}, nil)
	assert.Equal(t, http.StatusBadRequest, r.Status, "the hash shown is required")

	r = c.do("GET", "/api/policy?session=none", nil, nil)
	require.Equal(t, http.StatusOK, r.Status)
	assert.Nil(t, r.Body["policy"])
	r = newClient(t, serve(t, e)).do("GET", "/api/policy?session=proj", nil, nil)
	require.Equal(t, http.StatusOK, r.Status)
	assert.Nil(t, r.Body["policy"], "a server without project policies shows none")
}

func quoteJS(s string) string { return "'" + strings.ReplaceAll(s, "'", `\'`) + "'" }
