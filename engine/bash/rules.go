package bash

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Rule allows, confirms or denies every simple command that starts with
// Prefix, word by word, after normalization: the rule "git push" matches
// "/usr/bin/git push -f origin" and "sudo git push", not "git pushx". A
// deny or confirm rule also matches with options in between ("git -C repo
// push", "kubectl -n prod delete"); an allow rule only word for word. Rules
// are matched against each simple command of a line, including those inside
// bash -c strings, wrappers, xargs and find -exec.
//
// A matching deny rule wins over everything: the command is refused without
// asking. Otherwise the longest matching allow or confirm rule decides for
// that simple command (confirm on a tie); allow silences the built-in
// categories for it, confirm asks even when they see no danger. An Action
// other than allow, confirm or deny counts as confirm.
type Rule struct {
	Prefix string `json:"prefix"`
	Action Action `json:"action"`
}

// rule is a Rule split into normalized words.
type rule struct {
	prefix string
	words  []string
	action Action
}

func compileRules(rs []Rule) []rule {
	var out []rule
	for _, r := range rs {
		words := ruleWords(r.Prefix)
		if len(words) == 0 {
			continue
		}
		act := r.Action
		if act != ActionAllow && act != ActionDeny {
			act = ActionConfirm
		}
		out = append(out, rule{prefix: r.Prefix, words: words, action: act})
	}
	return out
}

// ruleWords splits a prefix the way the shell would.
func ruleWords(prefix string) []string {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(prefix), "")
	if err == nil && len(f.Stmts) == 1 {
		if call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr); ok && len(call.Args) > 0 {
			l := &level{src: prefix}
			var words []string
			for _, a := range l.words(call.Args) {
				words = append(words, a.text)
			}
			words[0] = commandBase(words[0])
			return words
		}
	}
	words := strings.Fields(prefix)
	if len(words) > 0 {
		words[0] = commandBase(words[0])
	}
	return words
}

// matchRules finds the rule that decides for one simple command.
func matchRules(rules []rule, args []arg) (act Action, prefix string, matched bool) {
	best := -1
	for _, r := range rules {
		if !r.matches(args) {
			continue
		}
		switch {
		case r.action == ActionDeny:
			if act != ActionDeny || len(r.words) > best {
				act, prefix, best = ActionDeny, r.prefix, len(r.words)
			}
		case act == ActionDeny:
		case len(r.words) > best || len(r.words) == best && r.action == ActionConfirm:
			act, prefix, best = r.action, r.prefix, len(r.words)
		}
	}
	return act, prefix, best >= 0
}

// matches reports whether the rule covers args. Allow rules match word
// for word. Deny and confirm rules also see through options before a word
// (git -C . push, kubectl -n prod delete), so that they cannot be dodged;
// an allow rule must not, or "rm build" would allow rm -rf / build.
func (r rule) matches(args []arg) bool {
	if len(args) == 0 || commandBase(args[0].text) != r.words[0] {
		return false
	}
	loose := r.action != ActionAllow
	i := 1
	for _, w := range r.words[1:] {
		afterOption := false
		for {
			if i >= len(args) {
				return false
			}
			t := args[i].text
			if t == w {
				break
			}
			switch {
			case !loose:
				return false
			case strings.HasPrefix(t, "-"):
				afterOption = !strings.Contains(t, "=")
			case afterOption: // the value of the option before it
				afterOption = false
			default:
				return false
			}
			i++
		}
		i++
	}
	return true
}
