package policy_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine/bash"
	"github.com/interlock-dev/interlock/engine/policy"
)

// split is the gate's own parsing, judged in dir.
func split(dir string) policy.Splitter {
	return func(line string, _ bool) []policy.Command { return bash.Commands(line, dir) }
}

func parse(t *testing.T, tier policy.Tier, text string) (*policy.File, error) {
	t.Helper()
	return policy.Parse("policy.toml", []byte(text), tier, split(t.TempDir()))
}

const forcePush = `
version = 1

[[rule]]
name = "no-force-push"
decision = "deny"
reason = "force pushes rewrite history others pulled"
program = "git"
subcommand = "push"
options = ["-f", "--force", "--force-with-lease"]
examples.match = ["git push -f origin main", "sudo env GIT_TRACE=1 timeout 5 /usr/bin/git push --force", "bash -c 'git push -f'"]
examples.notMatch = ["git push origin main", "git pull -f", "echo git push -f"]
`

func TestRuleMatchesTheParsedCommand(t *testing.T) {
	t.Parallel()
	f, err := parse(t, policy.TierUser, forcePush)
	require.NoError(t, err)
	require.Len(t, f.Rules, 1)
	require.Equal(t, 4, f.Rules[0].Line)
	require.Len(t, f.SHA256, 64)
}

func TestFailingExampleIsALoadErrorNamingTheRule(t *testing.T) {
	t.Parallel()
	bad := strings.Replace(forcePush, `"git pull -f"`, `"git push --force-with-lease"`, 1)
	_, err := parse(t, policy.TierUser, bad)
	require.ErrorIs(t, err, policy.ErrInvalid)
	require.ErrorContains(t, err, `policy.toml:4: rule "no-force-push": example "git push --force-with-lease" is listed under examples.notMatch but the rule matches it`)

	bad = strings.Replace(forcePush, `"git push -f origin main"`, `"git push origin main"`, 1)
	_, err = parse(t, policy.TierUser, bad)
	require.ErrorContains(t, err, `example "git push origin main" is listed under examples.match but the rule does not match it: fix the rule or the example`)
}

func TestSchemaErrorsSayFileLineRuleAndWhat(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, text, want string }{
		{"decision", "[[rule]]\nname = \"a\"\ndecision = \"allow\"\nreason = \"r\"\nprogram = \"ls\"\n\n[[rule]]\nname = \"b\"\ndecision = \"block\"\nreason = \"r\"\nprogram = \"ls\"\n",
			`policy.toml:7: rule "b": in rule 2 at decision: value must be one of 'allow', 'ask', 'deny'`},
		{"no reason", "[[rule]]\nname = \"a\"\ndecision = \"deny\"\nprogram = \"ls\"\n", `policy.toml:1: rule "a": in rule 1: missing property 'reason'`},
		{"unknown key", "[[rule]]\nname = \"a\"\ndecision = \"deny\"\nreason = \"r\"\nprogramme = \"ls\"\n", `additional properties 'programme' not allowed`},
		{"allow everything", "[[rule]]\nname = \"a\"\ndecision = \"allow\"\nreason = \"r\"\nhosts = [\"*\"]\n", `missing property 'program'`},
		{"syntax", "[[rule]]\nname = \"a\n", `policy.toml:2: not valid TOML`},
		{"lock below engine", "[[rule]]\nname = \"a\"\ndecision = \"deny\"\nreason = \"r\"\nprogram = \"ls\"\nlock = true\n", `lock is for the engine's configuration only`},
		{"path program", "[[rule]]\nname = \"a\"\ndecision = \"deny\"\nreason = \"r\"\nprogram = \"/bin/rm\"\n", `program "/bin/rm" is a path: give its name ("rm")`},
		{"twice", "[[rule]]\nname = \"a\"\ndecision = \"deny\"\nreason = \"r\"\nprogram = \"rm\"\n[[rule]]\nname = \"a\"\ndecision = \"deny\"\nreason = \"r\"\nprogram = \"rm\"\n", `policy.toml:6: rule "a": the name is used by the rule at line 1 too`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := parse(t, policy.TierUser, tt.text)
			require.ErrorIs(t, err, policy.ErrInvalid)
			require.ErrorContains(t, err, tt.want)
		})
	}
}

// TestMatching checks each field of a rule on the parsed command, judged
// in a workspace: wrappers and renames, paths relative to it, hosts, env.
func TestMatching(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "build"), 0o755))
	for _, tt := range []struct {
		name, rule string
		match      []string
		notMatch   []string
	}{
		{"program through wrappers", `decision = "deny"
program = "rm"`, []string{"sudo rm x", "nice -n 5 nohup rm x", `\rm x`, "'r'm x", "/bin/rm x", "CMD=rm; $CMD x", "find . -name x -exec rm {} +", "echo x | xargs rm", "bash -c 'rm x'"}, []string{"echo rm", "ls rm", "grm x"}},
		{"subcommand words", `decision = "ask"
program = "terraform"
subcommand = ["state rm", "destroy"]`, []string{"terraform state rm aws_instance.x", "terraform -chdir=infra destroy"}, []string{"terraform state list", "terraform plan"}},
		{"allow paths in the workspace", `decision = "allow"
program = "rm"
paths = ["build/**", "*.o"]`, []string{"rm -rf build", "rm -rf build/x ./main.o", "cd build && rm -f ../a.o"}, []string{"rm -rf build /etc", "rm -rf .", "rm -f $X", "rm -rf build/../src", "rm -f sub/a.o", "rm -rf"}},
		{"deny paths: an unknown one may be any", `decision = "deny"
program = "rm"
paths = [".git/**"]`, []string{"rm -rf .git", "rm -f .git/config src/x", "rm -rf $DIR"}, []string{"rm -rf src", "rm -rf /tmp/.git"}},
		{"absolute paths", `decision = "deny"
program = ["cp", "mv", "tee"]
paths = ["/etc/**"]`, []string{"cp x /etc/hosts", "cd /etc && mv a b"}, []string{"cp x y"}},
		{"hosts", `decision = "ask"
hosts = ["*.prod.example.com", "prod.example.com"]`, []string{"curl https://api.prod.example.com/x", "ssh deploy@prod.example.com uptime", "scp a prod.example.com:/tmp/", "wget -O- --header=x https://PROD.example.com"}, []string{"curl https://example.com", "ssh dev.example.com"}},
		{"allow hosts: all must match", `decision = "allow"
program = "curl"
hosts = ["example.com"]`, []string{"curl -s https://example.com/a"}, []string{"curl https://example.com https://evil.test", "curl -s ./x"}},
		{"env", `decision = "ask"
program = ["aws", "terraform"]
env = ["AWS_PROFILE=prod*"]`, []string{"AWS_PROFILE=production aws s3 ls", "env AWS_PROFILE=prod terraform plan", "sudo AWS_PROFILE=prod aws s3 ls"}, []string{"AWS_PROFILE=dev aws s3 ls", "aws s3 ls"}},
		{"options, short clusters split", `decision = "ask"
program = "git"
subcommand = "clean"
options = ["-x", "-d"]`, []string{"git clean -fdx", "git clean -n -d"}, []string{"git clean -f"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			text := "[[rule]]\nname = \"r\"\nreason = \"because\"\n" + tt.rule + "\n"
			f, err := policy.Parse("p.toml", []byte(text), policy.TierUser, split(ws))
			require.NoError(t, err)
			set := policy.NewSet(f)
			matches := func(line string) bool {
				for _, c := range bash.Commands(line, ws) {
					if set.Decide(c).Rule != nil {
						return true
					}
				}
				return false
			}
			for _, l := range tt.match {
				require.True(t, matches(l), "should match: %s (%+v)", l, bash.Commands(l, ws))
			}
			for _, l := range tt.notMatch {
				require.False(t, matches(l), "should not match: %s (%+v)", l, bash.Commands(l, ws))
			}
		})
	}
}

func rule(t *testing.T, tier policy.Tier, name, decision string, extra string) *policy.File {
	t.Helper()
	f, err := policy.Parse(tier.String()+".toml", []byte("[[rule]]\nname = \""+name+"\"\ndecision = \""+decision+"\"\nreason = \"r\"\nprogram = \"git\"\n"+extra), tier, nil)
	require.NoError(t, err)
	return f
}

// TestTiers: the highest tier with a rule decides; a lower tier may only
// make it stricter, and not past a lock; shadow rules never decide.
func TestTiers(t *testing.T) {
	t.Parallel()
	git := policy.Command{Program: "git", Operands: []policy.Word{{Text: "push"}}}
	for _, tt := range []struct {
		name  string
		files []*policy.File
		want  policy.Decision
		rule  string
	}{
		{"user over project", []*policy.File{rule(t, policy.TierProject, "p", "allow", ""), rule(t, policy.TierUser, "u", "ask", "")}, policy.Ask, "u"},
		{"project cannot loosen the user's ask", []*policy.File{rule(t, policy.TierUser, "u", "ask", ""), rule(t, policy.TierProject, "p", "allow", "")}, policy.Ask, "u"},
		{"project may tighten the engine's allow", []*policy.File{rule(t, policy.TierEngine, "e", "allow", ""), rule(t, policy.TierProject, "p", "deny", "")}, policy.Deny, "p"},
		{"a locked allow stays", []*policy.File{rule(t, policy.TierEngine, "e", "allow", "lock = true"), rule(t, policy.TierUser, "u", "deny", "")}, policy.Allow, "e"},
		{"a locked ask stays", []*policy.File{rule(t, policy.TierEngine, "e", "ask", "lock = true"), rule(t, policy.TierUser, "u", "deny", ""), rule(t, policy.TierProject, "p", "allow", "")}, policy.Ask, "e"},
		{"within a tier the strictest", []*policy.File{rule(t, policy.TierUser, "a", "allow", "[[rule]]\nname = \"b\"\ndecision = \"deny\"\nreason = \"r\"\nprogram = \"git\"\n")}, policy.Deny, "b"},
		{"shadow never decides", []*policy.File{rule(t, policy.TierUser, "s", "deny", "shadow = true")}, "", ""},
		{"none", nil, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v := policy.NewSet(tt.files...).Decide(git)
			require.Equal(t, tt.want, v.Decision)
			if tt.rule != "" {
				require.Equal(t, tt.rule, v.Rule.Name)
			}
		})
	}
	v := policy.NewSet(rule(t, policy.TierUser, "s", "deny", "shadow = true"), rule(t, policy.TierProject, "p", "ask", "")).Decide(git)
	require.Equal(t, policy.Ask, v.Decision)
	require.Len(t, v.Shadow, 1)
	require.Equal(t, "s", v.Shadow[0].Name)
}

func TestLoadFileMissing(t *testing.T) {
	t.Parallel()
	_, err := policy.LoadFile(filepath.Join(t.TempDir(), "none.toml"), policy.TierUser, nil)
	require.True(t, errors.Is(err, policy.ErrInvalid))
	require.ErrorContains(t, err, "none.toml")
}

// The TOML blocks of docs/policy.md are policy files that load, their
// examples checked (the docs' snippet test leaves toml to this one).
func TestDocsPolicyFilesLoad(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/policy.md")
	require.NoError(t, err)
	blocks := strings.Split(string(doc), "```toml\n")[1:]
	require.NotEmpty(t, blocks)
	for i, b := range blocks {
		text, _, ok := strings.Cut(b, "```")
		require.True(t, ok, "block %d is not closed", i+1)
		_, err := parse(t, policy.TierUser, text)
		require.NoError(t, err, "docs/policy.md, toml block %d", i+1)
	}
}
