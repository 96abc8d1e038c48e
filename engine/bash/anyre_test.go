package bash

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAnyOfMatchesTheWholePattern: the split patterns match exactly what
// the whole expression matches, on every command and file of the test
// data, and on text beyond ASCII whose case folds (ſ is s, K is K).
func TestAnyOfMatchesTheWholePattern(t *testing.T) {
	t.Parallel()
	texts := []string{"", "ſystem(1)", "SYSTEM(", "os.KILL", "WRITE", "wrıte", "ſpit(x)", "K_Files.x", "open (", "qx{ls}", "a|b", "`id`", "%x[ls]",
		"~/.ſsh/id", "cat ~/.SSH/config", "$github_token", "${ApI_KeY}", "ID_RSA.pub", "/ETC/SHADOW", ".KUBE/config"}
	require.NoError(t, filepath.WalkDir("testdata", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil || len(data) > 1<<20 {
			return nil
		}
		texts = append(texts, string(data))
		for l := range strings.SplitSeq(string(data), "\n") {
			texts = append(texts, l, strings.ToUpper(l))
		}
		return nil
	}))
	for name, a := range map[string]anyOf{"inlineDanger": inlineDanger, "inlineDangerMore": inlineDangerMore,
		"inlineWrites": inlineWrites, "inlineDangerSpans": inlineDangerSpans, "inlineFileWrite": inlineFileWrite,
		"inlineNet": inlineNet, "inlineChange": inlineChange, "inlineReads": inlineReads, "secretMention": secretMention} {
		require.Greater(t, len(a.alts), 1, name)
		for _, s := range texts {
			if a.whole.MatchString(s) != a.MatchString(s) {
				t.Fatalf("%s: the whole pattern says %v on %q", name, a.whole.MatchString(s), s)
			}
		}
	}
	require.Equal(t, []string{`a`, `[|]`, `(b|c)`, `\|`, `[]|]`}, topAlternatives(`a|[|]|(b|c)|\||[]|]`))
}
