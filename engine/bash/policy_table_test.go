package bash

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// checkout makes a real git checkout of a small project: scripts, a
// Makefile, package.json and gradlew, each with harmless targets and some
// that deploy, serve, upload or delete outside.
func checkout(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"Makefile": ".PHONY: build test lint clean deploy serve\nbuild:\n\tgo build -o build/app ./cmd/app\ntest: build\n\tgo test ./...\n" +
			"lint:\n\tgofmt -l .\n\tgo vet ./...\nclean:\n\trm -rf build dist\n" +
			"deploy: build\n\tscp -r build deploy@prod.example.com:/srv/app\nserve:\n\tpython3 -m http.server 8000\n",
		"package.json": `{"name": "demo", "private": true, "scripts": {"build": "tsc -p .", "test": "vitest run", "lint": "eslint .",
 "dev": "vite", "clean": "rimraf dist", "release": "npm publish", "upload": "curl -T dist/app.tgz https://files.example.com/"}}`,
		"gradlew":              "#!/bin/sh\nexec java -classpath gradle/wrapper/gradle-wrapper.jar org.gradle.wrapper.GradleWrapperMain \"$@\"\n",
		"build.gradle":         "plugins { id 'java' }\n",
		"scripts/test.sh":      "#!/bin/sh\nset -e\ngo test ./...\n",
		"scripts/build.sh":     "#!/bin/sh\nset -e\nmkdir -p build\ngo build -o build/app ./cmd/app\n",
		"scripts/bootstrap.sh": "#!/bin/sh\nset -e\nprojgen init --quiet\n./bin/mytool setup\n",
		"scripts/deploy.sh":    "#!/bin/sh\nrsync -a build/ deploy@prod.example.com:/srv/app\n",
		"scripts/nuke.sh":      "#!/bin/sh\nrm -rf ~/victim\n",
		"tools/gen.py":         "print('generated')\n",
		"bin/mytool":           "#!/bin/sh\nprojgen \"$@\"\n",
		"build/out/app":        "#!/bin/sh\nselftest-runner --all\n",
		"src/main.go":          "package main\n\nfunc main() {}\n",
		"src/util.go":          "package main\n",
		"test/app.test.js":     "import test from 'node:test';\ntest('app', () => {});\n",
		"README.md":            "# demo\n",
		".gitignore":           "build/\ndist/\nnode_modules/\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, ".sh") || name == "gradlew" || strings.HasPrefix(name, "bin/") || name == "build/out/app" {
			mode = 0o755
		}
		require.NoError(t, os.WriteFile(p, []byte(text), mode))
	}
	for _, args := range [][]string{{"init", "-q"}, {"remote", "add", "origin", "https://github.com/acme/demo.git"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
	}
	return dir
}

type tableRow struct{ label, where, command string }

func loadTable(t testing.TB) []tableRow {
	t.Helper()
	f, err := os.Open("testdata/policy/table.tsv")
	require.NoError(t, err)
	defer f.Close()
	var rows []tableRow
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.SplitN(line, "\t", 3)
		require.Len(t, parts, 3, "testdata/policy/table.tsv: %q", line)
		rows = append(rows, tableRow{parts[0], parts[1], parts[2]})
	}
	require.NoError(t, sc.Err())
	return rows
}

// tableScopes are the two places rows are judged: the checkout and an
// empty directory, each with a temp dir of its own (so that the fixture's
// neighbours are outside) and the given sandbox.
func tableScopes(t testing.TB, repo string, sb sandboxView) map[string]*scope {
	t.Helper()
	out := map[string]*scope{}
	for where, dir := range map[string]string{"repo": repo, "tmp": t.TempDir()} {
		sc := newScope(dir)
		sc.temp = []string{t.TempDir()}
		sc.sandbox = sb
		out[where] = sc
	}
	return out
}

// TestPolicyTable judges 459 commands of our own (half of them from a real
// git checkout): every dangerous one is stopped with the sandbox on and
// off; with the default sandbox (workspace-write, network allowed) at
// most 3% of the harmless ones ask.
func TestPolicyTable(t *testing.T) {
	t.Parallel()
	rows := loadTable(t)
	require.GreaterOrEqual(t, len(rows), 400)
	repo := checkout(t)
	for _, mode := range []struct {
		name string
		sb   sandboxView
	}{{"sandbox off", sandboxView{}}, {"workspace-write", sandboxView{confined: true}}} {
		scopes := tableScopes(t, repo, mode.sb)
		var dangerous, caught, harmless, prompted int
		for _, r := range rows {
			d := scopes[r.where].check(r.command)
			stopped := d.Decision != ActionAllow
			if r.label == "dangerous" {
				dangerous++
				if stopped {
					caught++
				} else {
					t.Errorf("%s: dangerous command allowed (%s): %s", mode.name, r.where, r.command)
				}
				continue
			}
			harmless++
			if stopped {
				prompted++
				t.Logf("%s: harmless command asks (%s): %s: %q", mode.name, r.where, r.command, d.Reasons)
			}
		}
		rate := 100 * float64(prompted) / float64(harmless)
		t.Logf("%s: dangerous caught %d/%d (%.1f%%), harmless prompting %d/%d (%.1f%%)", mode.name, caught, dangerous,
			100*float64(caught)/float64(dangerous), prompted, harmless, rate)
		if mode.sb.confined {
			require.LessOrEqual(t, rate, 3.0, "%s: harmless commands that ask", mode.name)
		}
	}
}
