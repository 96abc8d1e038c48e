package policy

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestGlobLiteralsNeverTurnDownAMatch checks that a glob's prefix and
// suffix (compared before its regexp runs) reject only words its regexp
// rejects: the shortcut must not change what a rule matches.
func TestGlobLiteralsNeverTurnDownAMatch(t *testing.T) {
	t.Parallel()
	globs := []string{"gen/**", "*.tmp", "**/b", "a/**/b", "a/**b", "a/**", "**", "*", "?x", "x?", "Makefile",
		"build/*.o", "dist", "*.example.com", "prod*", "a*b*c", "/etc/**", "~/x/*"}
	words := []string{"", "gen", "gen/", "gen/x", "gen/x/y", "genx", "x/gen", "a.tmp", "d/a.tmp", ".tmp", "tmp", "b", "x/b",
		"a/b", "a/x/b", "a/x/y/b", "ab", "axb", "a/xb", "a", "a/", "xx", "x", "yx", "xy", "Makefile", "makefile", "x/Makefile",
		"build/a.o", "build/x/a.o", "dist", "dist/", "a.example.com", "example.com", "production", "prod", "abc", "aXbYc",
		"/etc", "/etc/passwd", "~/x/y", "ſ", "a/ſ/b"}
	matched := 0
	for _, g := range globs {
		for _, path := range []bool{true, false} {
			c, err := compileGlob(g, path)
			require.NoError(t, err)
			for _, w := range words {
				want := c.re.MatchString(w)
				require.Equal(t, want, c.match(w), "glob %q (path %v, %s, prefix %q, suffix %q) on %q", g, path, c.re, c.prefix, c.suffix, w)
				if want {
					matched++
				}
			}
		}
	}
	require.Greater(t, matched, 50)
	c, err := compileGlob("*.tmp", true)
	require.NoError(t, err)
	require.Equal(t, ".tmp", c.suffix) // the shortcut is there
	c, err = compileGlob("gen/**", true)
	require.NoError(t, err)
	require.Equal(t, "gen", c.prefix)
}
