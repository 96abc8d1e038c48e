package policy

import "slices"

// Set is the rules of every tier in force for a command, highest tier
// first. The zero Set decides nothing (the gate's built-in judgment).
type Set struct {
	files []*File
	// rules are every rule, in the order Decide weighs them (highest tier
	// first, file order within); byProgram lists, per program a rule
	// names, the rules that may match it (its own and those naming none),
	// and anyProgram those naming none.
	rules      []*Rule
	byProgram  map[string][]*Rule
	anyProgram []*Rule
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
	s.byProgram = map[string][]*Rule{}
	for _, f := range s.files {
		s.rules = append(s.rules, f.Rules...)
	}
	for _, r := range s.rules {
		if len(r.programs) == 0 {
			s.anyProgram = append(s.anyProgram, r)
		}
		for _, p := range r.programs {
			s.byProgram[p] = nil
		}
	}
	for p := range s.byProgram {
		for _, r := range s.rules {
			if len(r.programs) == 0 || slices.Contains(r.programs, p) {
				s.byProgram[p] = append(s.byProgram[p], r)
			}
		}
	}
	return s
}

// candidates are the rules that may match a command of program, in order.
func (s *Set) candidates(program string) []*Rule {
	if rs, ok := s.byProgram[program]; ok {
		return rs
	}
	return s.anyProgram
}

// Relevant reports whether any rule may match a command of program, and
// whether one of those looks at paths (Command.Operands' Path): the gate
// resolves paths only then.
func (s *Set) Relevant(program string) (relevant, paths bool) {
	if s == nil {
		return false, false
	}
	rs := s.candidates(program)
	for _, r := range rs {
		if len(r.paths) > 0 {
			return true, true
		}
	}
	return len(rs) > 0, false
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
	for _, r := range s.candidates(c.Program) {
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
	return v
}
