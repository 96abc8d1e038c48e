package bash

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine/policy"
	"github.com/interlock-dev/interlock/internal/benchmetrics"
)

// rules200 is a policy file of 200 rules using every field, each with a
// matching and a non-matching example (checked when it loads).
func rules200() []byte {
	var b strings.Builder
	b.WriteString("version = 1\n")
	decisions := []string{"ask", "deny", "allow"}
	for i := range 200 {
		d := decisions[i%3]
		fmt.Fprintf(&b, "\n[[rule]]\nname = \"r%d\"\ndecision = %q\nreason = \"rule %d of the benchmark\"\n", i, d, i)
		switch i % 5 {
		case 0:
			fmt.Fprintf(&b, "program = \"tool%d\"\nexamples = { match = [\"sudo tool%d run\"], notMatch = [\"tool%dx run\"] }\n", i, i, i)
		case 1:
			fmt.Fprintf(&b, "program = \"git\"\nsubcommand = \"sub%d\"\noptions = [\"--opt%d\", \"-z\"]\nexamples = { match = [\"git sub%d --opt%d\"], notMatch = [\"git sub%d\"] }\n", i, i, i, i, i)
		case 2:
			fmt.Fprintf(&b, "program = \"rm\"\npaths = [\"gen%d/**\", \"*.tmp%d\"]\nexamples = { match = [\"rm -rf gen%d\"], notMatch = [\"rm -rf other%d\"] }\n", i, i, i, i)
		case 3:
			fmt.Fprintf(&b, "program = \"curl\"\nhosts = [\"*.h%d.example.com\"]\nexamples = { match = [\"curl https://a.h%d.example.com/x\"], notMatch = [\"curl https://example.com\"] }\n", i, i)
		case 4:
			fmt.Fprintf(&b, "program = \"deploy%d\"\nenv = [\"STAGE=prod*\"]\nexamples = { match = [\"STAGE=production deploy%d\"], notMatch = [\"STAGE=dev deploy%d\"] }\n", i, i, i)
		}
	}
	return []byte(b.String())
}

// policyMetrics measures the gate with a 200-rule policy loaded: each
// command of the corpus timed alone (its fastest of 5 rounds, after a
// warm-up), p99 over the commands; and loading the 200-rule file (schema,
// compile, 400 examples judged), median of 20 loads.
func policyMetrics(t *testing.T, metrics benchmetrics.Set) {
	data := rules200()
	f, err := ParsePolicy("bench.toml", data, policy.TierUser)
	require.NoError(t, err)
	require.Len(t, f.Rules, 200)
	corpus := loadCorpus(t)
	perCommand := func(set *policy.Set) []time.Duration {
		sc := corpusScope(t)
		sc.policy = set
		per := make([]time.Duration, len(corpus))
		for round := range 6 {
			for i, e := range corpus {
				start := time.Now()
				sc.check(e.command)
				d := time.Since(start)
				if round == 1 || round > 1 && d < per[i] {
					per[i] = d
				}
			}
		}
		return per
	}
	without, with := perCommand(nil), perCommand(policy.NewSet(f))
	metrics["classifier_p99_us"] = benchmetrics.Micros(benchmetrics.Percentile(without, 99)) // the same measure without rules
	metrics["classifier_policy_p99_us"] = benchmetrics.Micros(benchmetrics.Percentile(with, 99))
	metrics["classifier_policy_p50_us"] = benchmetrics.Micros(benchmetrics.Percentile(with, 50))
	loads := make([]time.Duration, 0, 20)
	for range 21 {
		start := time.Now()
		_, err := ParsePolicy("bench.toml", data, policy.TierUser)
		require.NoError(t, err)
		loads = append(loads, time.Since(start))
	}
	metrics["policy_load_200_rules_ms"] = benchmetrics.Millis(benchmetrics.Percentile(slices.Clone(loads[1:]), 50))
}
