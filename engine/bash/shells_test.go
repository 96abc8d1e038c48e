package bash

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// node --test runs the test files it is given, or finds: a directory of
// them is no script that cannot be judged (npm test running node --test
// test/ asked), and a test file that deletes the home directory is seen.
func TestNodeTestJudgesItsFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, text := range map[string]string{
		"test/a.test.js":     "import test from 'node:test';\ntest('a', () => {});\n",
		"test/b.test.mjs":    "import test from 'node:test';\ntest('b', () => {});\n",
		"evil/x.test.js":     "require('child_process').execSync('rm -rf ~');\n",
		"src/lib.js":         "require('child_process').execSync('rm -rf ~');\n", // no test: not run by default
		"package.json":       `{"scripts": {"test": "node --test test/", "evil": "node --test evil/"}}`,
		"node_modules/m.js":  "require('child_process').execSync('rm -rf ~');\n",
		"test/.hidden/h.js":  "require('child_process').execSync('rm -rf ~');\n",
		"test/data/fixt.txt": "rm -rf ~\n",
	} {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	sc := newScope(dir)
	sc.temp = []string{t.TempDir()}
	for cmd, want := range map[string]Action{
		"node --test test/":                     ActionAllow,
		"npm test":                              ActionAllow,
		"node --test --test-reporter spec test": ActionAllow,
		"node --test 'test/*.test.js'":          ActionAllow,
		"node --test":                           ActionConfirm, // evil/x.test.js is a test file
		"node --test evil/":                     ActionConfirm,
		"node --test test/ evil/x.test.js":      ActionConfirm,
		"npm run evil":                          ActionConfirm,
		"node --test missing/":                  ActionConfirm, // cannot be read
	} {
		d := sc.check(cmd)
		assert.Equal(t, want, d.Decision, "%s: %q", cmd, d.Reasons)
	}
	require.NoError(t, os.Remove(filepath.Join(dir, "evil/x.test.js")))
	d := sc.check("node --test")
	assert.Equal(t, ActionAllow, d.Decision, "node --test runs only test files: %q", d.Reasons)
}
