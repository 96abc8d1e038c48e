package bash

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/internal/benchmetrics"
)

// The held-out corpus (testdata/heldout/corpus.tsv, issue 31): commands written
// without reading the gate's rules or tables, each labelled dangerous (it
// must be asked about or denied) or harmless (it should run without a
// question), judged by Tool.Judge with the default sandbox in a git checkout
// with scripts/, a Makefile, package.json and gradlew, made outside the temp
// dir as a real checkout is (issue 31's measure); the rows whose "where" is
// "tmp" are judged again in a plain scratch directory in the temp dir (by
// make bench).

// heldoutRow is one command of the corpus.
type heldoutRow struct {
	line                               int
	command, expected, category, where string
	note                               string
}

// loadHeldout reads testdata/heldout/corpus.tsv: in a command, U+23CE is a newline
// and U+21E5 a tab.
func loadHeldout(t testing.TB) []heldoutRow {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "heldout", "corpus.tsv"))
	require.NoError(t, err)
	defer f.Close()
	var rows []heldoutRow
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		require.Len(t, cols, 5, "testdata/heldout/corpus.tsv:%d: want command, expected, category, where, note", n)
		command := strings.NewReplacer("⏎", "\n", "⇥", "\t").Replace(cols[0])
		r := heldoutRow{n, command, cols[1], cols[2], cols[3], cols[4]}
		require.Contains(t, []string{"dangerous", "harmless"}, r.expected, "testdata/heldout/corpus.tsv:%d", n)
		require.Contains(t, []string{"repo", "tmp"}, r.where, "testdata/heldout/corpus.tsv:%d", n)
		rows = append(rows, r)
	}
	require.NoError(t, sc.Err())
	return rows
}

// heldoutFiles is the checkout every row is judged in (with heldoutScratch).
var heldoutFiles = map[string]string{
	"Makefile": ".PHONY: build test lint clean fmt run wipe release\n" +
		"build:\n\tmkdir -p build\n\tgo build -o build/app ./cmd/app\n" +
		"test:\n\tgo test ./...\n" +
		"lint:\n\tgo vet ./...\n" +
		"clean:\n\trm -rf build dist coverage.out\n" +
		"fmt:\n\tgofmt -w .\n" +
		"run: build\n\t./build/app --port 8080\n" +
		"wipe:\n\trm -rf $(HOME)/\n" +
		"release:\n\tgit push --force origin main\n",
	"package.json": `{
  "name": "app",
  "version": "1.2.3",
  "private": true,
  "type": "module",
  "scripts": {
    "build": "tsc -p tsconfig.json",
    "test": "node --test test/",
    "lint": "eslint src",
    "typecheck": "tsc --noEmit",
    "format": "prettier --write src",
    "clean": "rm -rf dist coverage",
    "dev": "vite --host 127.0.0.1",
    "reset": "rm -rf ~/.npm ~/.config",
    "deploy": "scp -r dist deploy@prod.example.com:/srv/www"
  },
  "devDependencies": {"typescript": "^5.6.0", "eslint": "^9.0.0", "prettier": "^3.3.0", "vite": "^5.4.0", "vitest": "^2.1.0"}
}
`,
	"gradlew": "#!/bin/sh\n# Gradle start up script for POSIX\n" +
		"APP_HOME=$(cd \"$(dirname \"$0\")\" && pwd -P)\n" +
		"CLASSPATH=$APP_HOME/gradle/wrapper/gradle-wrapper.jar\n" +
		"exec java -classpath \"$CLASSPATH\" org.gradle.wrapper.GradleWrapperMain \"$@\"\n",
	"gradle/wrapper/gradle-wrapper.properties": "distributionUrl=https\\://services.gradle.org/distributions/gradle-8.10-bin.zip\n",
	"build.gradle":          "plugins { id 'java' }\n",
	"scripts/build.sh":      "#!/usr/bin/env bash\nset -euo pipefail\nmkdir -p build\ngo build -o build/app ./cmd/app\n",
	"scripts/test.sh":       "#!/bin/sh\nset -e\ngo test ./...\nnpm test\n",
	"scripts/lint.sh":       "#!/bin/sh\ngofmt -l . && go vet ./...\n",
	"scripts/clean.sh":      "#!/bin/sh\nrm -rf build dist node_modules/.cache\n",
	"scripts/setup.sh":      "#!/bin/sh\nset -e\nnpm ci\ngo mod download\n",
	"scripts/deploy.sh":     "#!/bin/sh\nset -e\nrsync -az --delete dist/ deploy@prod.example.com:/srv/www/\nssh deploy@prod.example.com 'systemctl restart app'\n",
	"scripts/wipe.sh":       "#!/bin/sh\nrm -rf \"$HOME\"/*\n",
	"scripts/gen.py":        "import json\nprint(json.dumps({\"ok\": True}))\n",
	"scripts/check.js":      "import { readFileSync } from 'node:fs';\nJSON.parse(readFileSync('package.json', 'utf8'));\n",
	"cmd/app/main.go":       "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"app\") }\n",
	"go.mod":                "module example.com/app\n\ngo 1.23\n",
	"go.sum":                "",
	"Cargo.toml":            "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
	"pyproject.toml":        "[project]\nname = \"app\"\nversion = \"0.1.0\"\n",
	"requirements.txt":      "requests==2.32.3\n",
	"tsconfig.json":         "{\"compilerOptions\": {\"outDir\": \"dist\", \"strict\": true}}\n",
	"src/index.ts":          "export const main = () => 1; // TODO\n",
	"src/config.json":       "{\"port\": 8080}\n",
	"test/app.test.js":      "import test from 'node:test';\ntest('app', () => {});\n",
	"README.md":             "# app\n",
	".gitignore":            "build/\ndist/\nnode_modules/\n",
	".env.example":          "PORT=8080\n",
	".nvmrc":                "22\n",
	"docker-compose.yml":    "services:\n  api:\n    build: .\n",
	"data.json":             "{\"a\": 1}\n",
	"data.csv":              "id,name\n1,a\n",
	"notes.txt":             "note\n",
	"words.txt":             "b\na\n",
	"files.txt":             "README.md\n",
	"a.txt":                 "a\n",
	"b.txt":                 "b\n",
	"fix.patch":             "",
	"fix.diff":              "",
	"logs/app.log":          "started\n",
	"build/app":             "#!/bin/sh\necho app 1.2.3\n",
	"build/app.old":         "#!/bin/sh\necho app 1.2.2\n",
	"dist/index.js":         "export const main = () => 1;\n",
	"dist/index.js.map":     "{}\n",
	"coverage.out":          "mode: set\n",
	"node_modules/.bin/tsc": "#!/usr/bin/env node\nconsole.log('Version 5.6.3');\n",
	".venv/bin/activate":    "VIRTUAL_ENV=\"$PWD/.venv\"\nexport VIRTUAL_ENV\nPATH=\"$VIRTUAL_ENV/bin:$PATH\"\nexport PATH\n",
	".venv/bin/pip":         "#!/bin/sh\nexec python3 -m pip \"$@\"\n",
	"src/templates/a.html":  "<p></p>\n",
}

// heldoutScratch is the plain directory the "tmp" rows are judged in again.
var heldoutScratch = map[string]string{
	"notes.txt":    "note\n",
	"data.json":    "{\"a\": 1}\n",
	"logs/app.log": "started\n",
	"build/out.o":  "",
	"a.out":        "",
	"src/main.c":   "int main(void) { return 0; }\n",
}

// writeTree writes files (path -> content) under dir; scripts are executable.
func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		mode := os.FileMode(0o644)
		if strings.HasPrefix(content, "#!") {
			mode = 0o755
		}
		require.NoError(t, os.WriteFile(p, []byte(content), mode))
	}
}

// heldoutDirs makes the checkout and the scratch directory. The checkout is
// made in the user's cache directory, not the temp dir: a workspace inside
// the temp dir is judged as strictly as without a sandbox (its neighbours
// are as writable as it is), and real checkouts are not there.
func heldoutDirs(t testing.TB) (repo, scratch string) {
	t.Helper()
	base := ""
	if cache, err := os.UserCacheDir(); err == nil && os.MkdirAll(cache, 0o755) == nil {
		if d, err := os.MkdirTemp(cache, "interlock-heldout-"); err == nil {
			base = d
			t.Cleanup(func() { os.RemoveAll(d) })
		}
	}
	if base == "" {
		t.Log("no user cache directory: the checkout is made in the temp dir, where the gate is stricter")
		base = t.TempDir()
	}
	repo = filepath.Join(base, "app")
	writeTree(t, repo, heldoutFiles)
	writeTree(t, repo, heldoutScratch)
	for _, args := range [][]string{
		{"init", "-q"},
		{"remote", "add", "origin", "https://github.com/acme/app.git"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %s in %s: %s", strings.Join(args, " "), repo, out)
	}
	scratch = filepath.Join(t.TempDir(), "work")
	writeTree(t, scratch, heldoutScratch)
	return repo, scratch
}

// heldoutVerdict is one row's decision.
type heldoutVerdict struct {
	row heldoutRow
	got Decision
}

// judgeHeldout judges the corpus with Tool.Judge in sessions of a real
// engine with the default sandbox: every row in the checkout (the issue's
// measure), and the "tmp" rows again in the scratch directory.
func judgeHeldout(t testing.TB) (inRepo, inTmp []heldoutVerdict) {
	inRepo, inTmp, _ = judgeHeldoutConfined(t, true)
	return inRepo, inTmp
}

// judgeHeldoutConfined is judgeHeldout, and whether the checkout's
// commands are confined by the sandbox (Landlock in force, the checkout
// outside the temp dir): without, the gate is as strict as with the
// sandbox off, by design. The temp dir's pass is made only when withTmp.
func judgeHeldoutConfined(t testing.TB, withTmp bool) (inRepo, inTmp []heldoutVerdict, confined bool) {
	t.Helper()
	rows := loadHeldout(t)
	repo, scratch := heldoutDirs(t)
	tool := New()
	e := engine.New(engine.WithTool("Bash", tool))
	t.Cleanup(func() { e.Close() })
	judge := func(dir string, rows []heldoutRow) []heldoutVerdict {
		s, err := e.NewSession(engine.SessionOptions{Dir: dir})
		require.NoError(t, err)
		vs := make([]heldoutVerdict, 0, len(rows))
		for _, r := range rows {
			vs = append(vs, heldoutVerdict{r, tool.Judge(s.Env(), strings.ReplaceAll(r.command, "{ws}", dir))})
		}
		return vs
	}
	var tmpRows []heldoutRow
	for _, r := range rows {
		if r.where == "tmp" {
			tmpRows = append(tmpRows, r)
		}
	}
	s, err := e.NewSession(engine.SessionOptions{Dir: repo})
	require.NoError(t, err)
	sb := tool.Sandbox(s)
	inTemp := strings.HasPrefix(repo, filepath.Clean(os.TempDir())+"/")
	confined = strings.HasPrefix(sb.Filesystem, "landlock") && !inTemp
	if !confined {
		t.Logf("the checkout is not confined (filesystem %q, in the temp dir: %v): the gate is strict there", sb.Filesystem, inTemp)
	}
	if withTmp {
		inTmp = judge(scratch, tmpRows)
	}
	return judge(repo, rows), inTmp, confined
}

// heldoutRates are the dangerous rows asked about or denied and the
// harmless rows that would prompt, in percent, with the misses of each.
func heldoutRates(vs []heldoutVerdict) (caught, prompting float64, missed, prompted []string) {
	var dangerous, harmless int
	for _, v := range vs {
		stops := v.got.Decision != ActionAllow
		desc := fmt.Sprintf("corpus.tsv:%d [%s/%s] %s -> %s %q", v.row.line, v.row.category, v.row.where,
			strings.ReplaceAll(v.row.command, "\n", "⏎"), v.got.Decision, v.got.Reasons)
		switch v.row.expected {
		case "dangerous":
			dangerous++
			if !stops {
				missed = append(missed, desc)
			}
		case "harmless":
			harmless++
			if stops {
				prompted = append(prompted, desc)
			}
		}
	}
	caught = 100 * float64(dangerous-len(missed)) / float64(dangerous)
	prompting = 100 * float64(len(prompted)) / float64(harmless)
	return caught, prompting, missed, prompted
}

// TestHeldout judges the held-out corpus: every command gets a decision
// the gate knows, with reasons when it stops, and in the checkout the
// issue's targets hold: at least 99% of the dangerous commands stop, at
// most 3% of the harmless ones ask (where the sandbox confines the
// checkout, as it does on Linux with Landlock). The rates are also bench metrics
// (heldoutMetrics); -v lists the misses.
func TestHeldout(t *testing.T) {
	t.Parallel()
	rows := loadHeldout(t)
	require.GreaterOrEqual(t, len(rows), 400)
	// The temp dir's pass is left to make bench (heldoutMetrics): it
	// would add a third to the time of this test.
	inRepo, _, confined := judgeHeldoutConfined(t, false)
	require.Len(t, inRepo, len(rows))
	tmpRows := 0
	for _, r := range rows {
		if r.where == "tmp" {
			tmpRows++
		}
	}
	require.GreaterOrEqual(t, tmpRows, 100)
	for _, v := range inRepo {
		require.Contains(t, []Action{ActionAllow, ActionConfirm, ActionDeny}, v.got.Decision,
			"corpus.tsv:%d: %s", v.row.line, v.row.command)
		if v.got.Decision != ActionAllow {
			require.NotEmpty(t, v.got.Reasons, "corpus.tsv:%d: %s is %s without a reason", v.row.line, v.row.command, v.got.Decision)
		}
	}
	caught, prompting := logHeldout(t, "checkout", inRepo)
	assert.GreaterOrEqual(t, caught, 99.0, "dangerous commands asked about or denied in the checkout, %")
	if confined { // without the sandbox the gate asks about more, by design
		assert.LessOrEqual(t, prompting, 3.0, "harmless commands that prompt in the checkout, %")
	}
}

// logHeldout logs the rates of vs and their misses.
func logHeldout(t testing.TB, where string, vs []heldoutVerdict) (caught, prompting float64) {
	caught, prompting, missed, prompted := heldoutRates(vs)
	t.Logf("in the %s, %d commands: dangerous caught %.1f%% (%d missed), harmless prompting %.1f%% (%d)",
		where, len(vs), caught, len(missed), prompting, len(prompted))
	for _, m := range missed {
		t.Logf("%s missed: %s", where, m)
	}
	for _, p := range prompted {
		t.Logf("%s prompted: %s", where, p)
	}
	return caught, prompting
}

// heldoutMetrics are the held-out rates for make bench (TestMetrics): in
// the checkout (the targets), and in the temp dir.
func heldoutMetrics(t testing.TB) benchmetrics.Set {
	inRepo, inTmp := judgeHeldout(t)
	caught, prompting := logHeldout(t, "checkout", inRepo)
	tmpCaught, tmpPrompting := logHeldout(t, "temp dir", inTmp)
	pct := func(v float64) benchmetrics.Metric {
		return benchmetrics.Metric{Value: math.Round(v*100) / 100, Unit: "%"}
	}
	return benchmetrics.Set{
		"policy_heldout_dangerous_caught_pct":        pct(caught),
		"policy_heldout_harmless_prompt_pct":         pct(prompting),
		"policy_heldout_tmpdir_dangerous_caught_pct": pct(tmpCaught),
		"policy_heldout_tmpdir_harmless_prompt_pct":  pct(tmpPrompting),
	}
}
