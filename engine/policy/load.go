package policy

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Schema is the JSON Schema every policy file is checked against when it
// loads (schema.json in this package).
//
//go:embed schema.json
var Schema []byte

var compiledSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(Schema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("policy.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("policy.json")
})

// Splitter turns a command line into its simple commands as the gate
// judges them (bash.Commands): Parse uses it to check rules' examples.
// paths says whether the words' Path is needed (resolving it reads the
// disk): only for a rule that matches paths.
type Splitter func(line string, paths bool) []Command

// File is a loaded policy file.
type File struct {
	Path   string // as given to Parse
	Tier   Tier
	Shadow bool // the whole file is evaluated without being enforced
	Rules  []*Rule
	SHA256 string // of the content parsed, hex
}

// Rule is one compiled rule of a file.
type Rule struct {
	Name     string
	Decision Decision
	Reason   string
	Lock     bool
	Shadow   bool
	File     string // the file it is in
	Line     int    // where its [[rule]] starts
	Tier     Tier

	matches  string // what it matches, as written (Describe)
	programs []string
	subs     [][]string
	options  []string
	paths    []*glob
	hosts    []*glob
	env      []envMatch
}

type envMatch struct {
	name  string
	value *glob // nil: any value
}

// fileRule is a rule as written.
type fileRule struct {
	Name       string
	Decision   Decision
	Reason     string
	Program    any // a string or a list of them
	Subcommand any // a string or a list of them
	Options    []string
	Paths      []string
	Hosts      []string
	Env        []string
	Lock       bool
	Shadow     bool
	Examples   struct{ Match, NotMatch []string }
}

// fileDoc is a file as written.
type fileDoc struct {
	Shadow bool
	Rule   []fileRule
}

// LoadFile reads and parses the policy file at path (see Parse).
func LoadFile(path string, tier Tier, split Splitter) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: read policy file %s: %w (fix the path or create the file)", ErrInvalid, path, err)
	}
	return Parse(path, data, tier, split)
}

// Parse parses a policy file's content: TOML, checked against Schema,
// every rule compiled and its examples checked with split (nil: not
// checked). Errors wrap ErrInvalid and say the file, the line and rule,
// what is wrong and what to do.
func Parse(path string, data []byte, tier Tier, split Splitter) (*File, error) {
	var raw map[string]any
	if _, err := toml.Decode(string(data), &raw); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fileError(path, pe.Position.Line, "", "not valid TOML: "+pe.Message+" (fix the syntax)")
		}
		return nil, fileError(path, 0, "", "not valid TOML: "+err.Error())
	}
	return parseDoc(path, toJSONValue(raw), ruleLines(data), hashHex(data), tier, split)
}

// ParseJSON parses a policy given as JSON in the same format (a host's
// configuration: the engine config's bash.policy), named name in errors.
// The document is checked against Schema like a file.
func ParseJSON(name string, data []byte, tier Tier, split Splitter) (*File, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fileError(name, 0, "", "not valid JSON: "+err.Error())
	}
	return parseDoc(name, doc, nil, hashHex(data), tier, split)
}

// parseDoc checks a decoded policy document against Schema and compiles
// its rules. lines are the lines of its rules, when known.
func parseDoc(path string, v any, lines []int, sha string, tier Tier, split Splitter) (*File, error) {
	sch, err := compiledSchema()
	if err != nil {
		return nil, fmt.Errorf("policy: the built-in schema does not compile: %w", err)
	}
	if err := sch.Validate(v); err != nil {
		doc, _ := v.(map[string]any)
		return nil, schemaError(path, doc, lines, err)
	}
	fd := docOf(v.(map[string]any))
	f := &File{Path: path, Tier: tier, Shadow: fd.Shadow, SHA256: sha}
	seen := map[string]int{}
	for i, fr := range fd.Rule {
		line := 0
		if i < len(lines) {
			line = lines[i]
		}
		if prev, ok := seen[fr.Name]; ok {
			return nil, fileError(path, line, fr.Name, fmt.Sprintf("the name is used by the rule at line %d too: give each rule its own name", prev))
		}
		seen[fr.Name] = line
		r, err := compile(fr, path, line, tier)
		if err != nil {
			return nil, err
		}
		r.Shadow = r.Shadow || fd.Shadow
		if err := r.checkExamples(fr, split); err != nil {
			return nil, err
		}
		f.Rules = append(f.Rules, r)
	}
	return f, nil
}

// docOf reads the file's values, checked by the schema, into their types
// (one TOML decode: the schema has seen the same values).
func docOf(m map[string]any) fileDoc {
	str := func(m map[string]any, k string) string { v, _ := m[k].(string); return v }
	list := func(m map[string]any, k string) []string {
		if m[k] == nil {
			return nil
		}
		return stringsOf(m[k])
	}
	fd := fileDoc{}
	fd.Shadow, _ = m["shadow"].(bool)
	rules, _ := m["rule"].([]any)
	for _, r := range rules {
		rm, _ := r.(map[string]any)
		fr := fileRule{Name: str(rm, "name"), Decision: Decision(str(rm, "decision")), Reason: str(rm, "reason"),
			Program: rm["program"], Subcommand: rm["subcommand"], Options: list(rm, "options"), Paths: list(rm, "paths"),
			Hosts: list(rm, "hosts"), Env: list(rm, "env")}
		fr.Lock, _ = rm["lock"].(bool)
		fr.Shadow, _ = rm["shadow"].(bool)
		if ex, ok := rm["examples"].(map[string]any); ok {
			fr.Examples.Match, fr.Examples.NotMatch = list(ex, "match"), list(ex, "notMatch")
		}
		fd.Rule = append(fd.Rule, fr)
	}
	return fd
}

// ruleLines finds the line of each [[rule]] header, in order.
func ruleLines(data []byte) []int {
	var out []int
	for i, l := range strings.Split(string(data), "\n") {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "[[") && strings.Trim(strings.TrimSuffix(strings.TrimPrefix(strings.SplitN(t, "#", 2)[0], "[["), "]]"), " \t]") == "rule" {
			out = append(out, i+1)
		}
	}
	return out
}

// schemaError turns the schema's deepest complaints into one message per
// place: "policy.toml:12: rule "x": at decision: value must be one of ...".
func schemaError(path string, raw map[string]any, lines []int, err error) error {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return fileError(path, 0, "", err.Error())
	}
	p := message.NewPrinter(language.English)
	var msgs []string
	line, name, named := 0, "", false
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		loc := e.InstanceLocation
		where := "at the top level"
		if len(loc) >= 2 && loc[0] == "rule" {
			var i int
			fmt.Sscan(loc[1], &i)
			if !named { // the first rule in error names the place
				named = true
				if i < len(lines) {
					line = lines[i]
				}
				if rs, ok := raw["rule"].([]any); ok && i < len(rs) {
					if m, ok := rs[i].(map[string]any); ok {
						name, _ = m["name"].(string)
					}
				}
			}
			where = fmt.Sprintf("in rule %d", i+1)
			if len(loc) > 2 {
				where += " at " + strings.Join(loc[2:], ".")
			}
		} else if len(loc) > 0 {
			where = "at " + strings.Join(loc, ".")
		}
		msg := where + ": " + e.ErrorKind.LocalizedString(p)
		if !slices.Contains(msgs, msg) {
			msgs = append(msgs, msg)
		}
	}
	walk(ve)
	return fileError(path, line, name, strings.Join(msgs, "; ")+" (see the schema in docs/policy.md and fix the file)")
}

// toJSONValue converts decoded TOML into the values a JSON Schema validates.
func toJSONValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = toJSONValue(e)
		}
		return out
	case []map[string]any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = toJSONValue(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = toJSONValue(e)
		}
		return out
	}
	return v
}

// stringsOf reads a string-or-list field the schema checked.
func stringsOf(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func compile(fr fileRule, path string, line int, tier Tier) (*Rule, error) {
	r := &Rule{Name: fr.Name, Decision: fr.Decision, Reason: fr.Reason, Lock: fr.Lock, Shadow: fr.Shadow,
		File: path, Line: line, Tier: tier, options: fr.Options, matches: describe(fr)}
	bad := func(what string) error { return fileError(path, line, fr.Name, what) }
	if r.Lock && tier != TierEngine {
		return nil, bad("lock is for the engine's configuration only: remove it (a " + tier.String() + " rule cannot lock)")
	}
	for _, p := range stringsOf(fr.Program) {
		if strings.Contains(p, "/") {
			return nil, bad(fmt.Sprintf("program %q is a path: give its name (%q); the gate matches what runs, however it is spelled", p, filepath.Base(p)))
		}
		r.programs = append(r.programs, p)
	}
	for _, s := range stringsOf(fr.Subcommand) {
		r.subs = append(r.subs, strings.Fields(s))
	}
	for _, o := range fr.Options {
		if !strings.HasPrefix(o, "-") {
			return nil, bad(fmt.Sprintf("option %q does not start with -: options are written as given (-f, --force)", o))
		}
	}
	home, _ := os.UserHomeDir()
	for _, g := range fr.Paths {
		if strings.HasPrefix(g, "~/") && home != "" {
			g = home + g[1:]
		}
		re, err := compileGlob(strings.TrimPrefix(filepath.Clean(g), "./"), true)
		if err != nil {
			return nil, bad(fmt.Sprintf("path glob %q: %v", g, err))
		}
		r.paths = append(r.paths, re)
	}
	for _, h := range fr.Hosts {
		re, err := compileGlob(strings.ToLower(h), false)
		if err != nil {
			return nil, bad(fmt.Sprintf("host glob %q: %v", h, err))
		}
		r.hosts = append(r.hosts, re)
	}
	for _, e := range fr.Env {
		name, val, hasVal := strings.Cut(e, "=")
		m := envMatch{name: name}
		if hasVal {
			re, err := compileGlob(val, false)
			if err != nil {
				return nil, bad(fmt.Sprintf("env %q: %v", e, err))
			}
			m.value = re
		}
		r.env = append(r.env, m)
	}
	return r, nil
}

// checkExamples runs the rule's examples through split: each match line
// must have a simple command the rule matches, each notMatch line none.
func (r *Rule) checkExamples(fr fileRule, split Splitter) error {
	if split == nil {
		return nil
	}
	for _, ex := range fr.Examples.Match {
		if !r.matchesLine(split(ex, len(r.paths) > 0)) {
			return fileError(r.File, r.Line, r.Name, fmt.Sprintf("example %q is listed under examples.match but the rule does not match it: fix the rule or the example", ex))
		}
	}
	for _, ex := range fr.Examples.NotMatch {
		if r.matchesLine(split(ex, len(r.paths) > 0)) {
			return fileError(r.File, r.Line, r.Name, fmt.Sprintf("example %q is listed under examples.notMatch but the rule matches it: fix the rule or the example", ex))
		}
	}
	return nil
}

func (r *Rule) matchesLine(cmds []Command) bool {
	for _, c := range cmds {
		if r.Matches(c) {
			return true
		}
	}
	return false
}

// describe says what a rule matches, as written: "program git, subcommand
// push, options -f | --force".
func describe(fr fileRule) string {
	var parts []string
	for _, f := range []struct {
		name string
		vals []string
	}{{"program", stringsOf(fr.Program)}, {"subcommand", stringsOf(fr.Subcommand)}, {"options", fr.Options},
		{"paths", fr.Paths}, {"hosts", fr.Hosts}, {"env", fr.Env}} {
		if len(f.vals) > 0 {
			parts = append(parts, f.name+" "+strings.Join(f.vals, " | "))
		}
	}
	return strings.Join(parts, ", ")
}
