package bash

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// FuzzCheckCommand checks that the classifier never panics and fails
// closed: whatever the parser rejects is never allowed. The seed corpus is
// the labelled corpus plus testdata/fuzz/FuzzCheckCommand.
func FuzzCheckCommand(f *testing.F) {
	for _, e := range loadCorpus(f) {
		f.Add(e.command)
	}
	sc := newScope(f.TempDir())
	f.Fuzz(func(t *testing.T, cmd string) {
		d := checkUnsafe(cmd, sc) // no recover: a panic is a bug to fix
		switch d.Decision {
		case ActionAllow, ActionConfirm:
		default:
			t.Fatalf("decision %q for %q", d.Decision, cmd)
		}
		if d.Decision == ActionAllow && len(d.Reasons) != 0 {
			t.Fatalf("allow with reasons %q for %q", d.Reasons, cmd)
		}
		if d.Decision != ActionAllow || strings.TrimSpace(cmd) == "" {
			return
		}
		if validate(cmd) != nil {
			t.Fatalf("invalid input %q allowed", cmd)
		}
		if _, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), ""); err != nil {
			t.Fatalf("unparsable %q allowed (%v)", cmd, err)
		}
	})
}
