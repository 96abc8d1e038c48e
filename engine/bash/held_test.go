package bash

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
)

// The engine lists the bash tool's grants with its own and takes them
// back through it: the next such command asks again.
func TestEngineListsAndRevokesTheBashToolsGrants(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tool := New(tracked(nil))
	e := newGateEngine(t, tool)
	sh, quiet := newShell(t, e, dir), newShell(t, e, dir)
	quiet.run("echo hi") // a session without grants lists none
	sh.ask("rm -f a.txt", engine.AnswerApproved, engine.Remember(ScopeSession))
	sh.ask("rm -f b.txt", engine.AnswerApproved, engine.Remember(ScopeProject))

	grants, err := e.Grants(t.Context())
	require.NoError(t, err)
	require.Len(t, grants, 2)
	assert.Equal(t, engine.Grant{Tool: "Bash", Key: "rm -f a.txt (in " + dir + ")", Scope: "session", Session: sh.s.ID(), At: grants[0].At}, grants[0])
	assert.Equal(t, engine.Grant{Tool: "Bash", Key: "rm -f b.txt (in " + dir + ")", Scope: "project", Root: dir, At: grants[1].At}, grants[1])

	for _, g := range grants {
		require.NoError(t, e.RevokeGrant(t.Context(), g))
	}
	grants, err = e.Grants(t.Context())
	require.NoError(t, err)
	assert.Empty(t, grants)
	sh.ask("rm -f a.txt", engine.AnswerDenied)
	sh.ask("rm -f b.txt", engine.AnswerDenied)

	err = e.RevokeGrant(t.Context(), engine.Grant{Tool: "Bash", Key: "rm -f a.txt (in " + dir + ")", Scope: "session", Session: quiet.s.ID()})
	assert.ErrorIs(t, err, engine.ErrUnknownGrant)
	assert.ErrorContains(t, err, "rm -f a.txt")
}
