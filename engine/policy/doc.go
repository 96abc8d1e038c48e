// Package policy is policy as code for the danger gate: rules people can
// read, test and trust, in a declarative TOML file checked against a JSON
// Schema (schema.json) when it loads.
//
// A rule matches one simple command as the gate parsed it (Command): the
// program it runs (through wrappers such as sudo, env or timeout, and
// renames such as a copy of rm under another name), its subcommand, its
// options, the paths it names relative to the workspace, the hosts it
// reaches and the environment it sets. It decides allow, ask or deny and
// says why (its reason is shown in the confirm). Examples in the rule
// (examples.match / examples.notMatch) are command lines checked when the
// file loads: a failing example is a load error naming the rule.
//
// Rules come in tiers (Tier): the engine's configuration (the host's; a
// rule may lock its decision) over the user's file over the project's file
// (.interlock/policy.toml, used only once the user trusted its content,
// see Trust) over the gate's built-in judgment. A rule or a whole file may
// be in shadow mode: evaluated and reported as what it would have decided,
// never enforced.
//
// The shortest use, as the bash tool does it:
//
//	f, err := policy.Parse("policy.toml", data, policy.TierUser, bash.Commands)
//	set := policy.NewSet(f)
//	v := set.Decide(cmd) // v.Decision, v.Rule, v.Tier
package policy
