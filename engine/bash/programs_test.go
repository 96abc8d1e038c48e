package bash

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/interlock-dev/interlock/engine/policy"
)

// TestProgramTablesDisjoint: each program is described once, in its domain.
func TestProgramTablesDisjoint(t *testing.T) {
	t.Parallel()
	tables := map[string]map[string]spec{
		"files": filePrograms, "text": textPrograms, "shells": shellPrograms, "git": gitPrograms,
		"network": networkPrograms, "packages": packagePrograms, "dev": devPrograms, "cloud": cloudPrograms,
		"databases": databasePrograms, "system": systemPrograms,
	}
	where := map[string]string{}
	for domain, table := range tables {
		for name := range table {
			if other, ok := where[name]; ok {
				t.Errorf("%s is in the %s and the %s tables", name, other, domain)
			}
			where[name] = domain
		}
	}
	assert.Len(t, known, len(where))
}

// TestSubcommands: a known CLI's read-only subcommands are quiet, the rest
// asks; an unknown program asks; a rule can allow it.
func TestSubcommands(t *testing.T) {
	t.Parallel()
	sc := newScope(t.TempDir())
	tests := []struct {
		cmd  string
		want Action
	}{
		{"kubectl get pods -n prod", ActionAllow},
		{"kubectl -n prod cordon node1", ActionConfirm},
		{"terraform plan", ActionAllow},
		{"terraform -chdir=infra apply", ActionConfirm},
		{"aws ec2 describe-instances", ActionAllow},
		{"aws ec2 stop-instances --instance-ids i-1", ActionConfirm},
		{"gh pr list", ActionAllow},
		{"gh repo delete x --yes", ActionConfirm},
		{"git status", ActionAllow},
		{"git frobnicate", ActionConfirm},
		{"frobnicate --all", ActionConfirm},
		{"ip addr show", ActionAllow},
		{"ip addr add 10.0.0.1/24 dev eth0", ActionConfirm},
		{"curl -X DELETE http://localhost:8080/x", ActionAllow},
		{"curl -X DELETE https://api.example.com/x", ActionConfirm},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			t.Parallel()
			d := sc.check(tt.cmd)
			assert.Equal(t, tt.want, d.Decision, "%q", d.Reasons)
		})
	}
	ruled := newScope(t.TempDir())
	ruled.policy = policy.NewSet(ruleFile(t, "frob", "allow", `program = "frobnicate"`))
	assert.Equal(t, ActionAllow, ruled.check("frobnicate --all").Decision)
	assert.Equal(t, []string{"program not known (a rule can allow it): frobnicate --all"}, sc.check("frobnicate --all").Reasons)
}
