package policy

import "slices"

// Set is the rules of every tier in force for a command, highest tier
// first. The zero Set decides nothing (the gate's built-in judgment).
type Set struct {
	files []*File
}

// NewSet orders files by tier, highest first (files of one tier keep the
// order given). nil files are skipped.
func NewSet(files ...*File) *Set {
	s := &Set{}
	for _, f := range files {
		if f != nil {
			s.files = append(s.files, f)
		}
	}
	slices.SortStableFunc(s.files, func(a, b *File) int { return int(b.Tier) - int(a.Tier) })
	return s
}

// Files are the set's files, highest tier first.
func (s *Set) Files() []*File {
	if s == nil {
		return nil
	}
	return s.files
}

// Verdict is what the rules decide for one simple command.
type Verdict struct {
	// Decision is "" when no enforced rule matched: the gate's built-in
	// judgment decides.
	Decision Decision
	Rule     *Rule // the rule that decided, nil with no Decision
	// Shadow are the shadow rules that matched: what they would have
	// decided, not enforced.
	Shadow []*Rule
}

// Decide finds the decision of the rules for c. Within a tier the most
// restrictive matching rule decides (the first in file order on a tie).
// The highest tier with a matching rule decides; a lower tier may make
// the decision stricter (allow to ask, ask to deny) unless that rule is
// locked. Shadow rules never decide; they are listed.
func (s *Set) Decide(c Command) Verdict {
	var v Verdict
	if s == nil {
		return v
	}
	locked := false
	for _, f := range s.files {
		for _, r := range f.Rules {
			if !r.Matches(c) {
				continue
			}
			switch {
			case r.Shadow:
				v.Shadow = append(v.Shadow, r)
			case v.Rule == nil:
				v.Rule, v.Decision, locked = r, r.Decision, r.Lock
			case r.Tier == v.Rule.Tier: // the tier's decision: its strictest rule's, locked if any locks
				locked = locked || r.Lock
				if r.Decision.stricter(v.Decision) {
					v.Rule, v.Decision = r, r.Decision
				}
			case !locked && r.Decision.stricter(v.Decision):
				v.Rule, v.Decision = r, r.Decision
			}
		}
	}
	return v
}
