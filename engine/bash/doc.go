// Package bash is the engine's Bash tool: it runs shell commands for an
// agent and asks the user before running one that looks dangerous.
//
// The danger gate parses the command line with a real shell parser
// (mvdan.cc/sh/v3/syntax) and judges every simple command in it: through
// ; && || |, subshells, $( ) and backticks, here-documents fed to a shell,
// bash -c / sh -c / eval strings (parsed in turn), xargs and find -exec
// targets, wrappers (sudo, env, nohup, timeout, nice, exec...), however the
// name is spelled (/bin/rm, \rm, 'r'm, $'\x72m', CMD=rm; $CMD). What it
// does not know it asks about: a program missing from its tables (one per
// domain, programs_*.go) or a subcommand not listed as only reading
// (kubectl cordon, terraform apply) needs confirming. It looks through to
// what runs: shell code in options and config values (git -c core.pager=,
// ssh -o ProxyCommand=, tar --to-command, sed's e command...), environment
// that makes programs run code (BASH_ENV, LD_PRELOAD, GIT_SSH_COMMAND), and
// the scripts, package.json scripts and makefile targets a command runs,
// read from disk when checked (a file it cannot read asks). A program run
// by path is what it is on disk (a symlink or copy of rm is rm). The
// working directory is the boundary: writing, truncating, moving or
// deleting outside it asks, with paths resolved after cd, ~ and symlinks;
// the host's processes and /proc/*/environ are protected. It follows what
// a line sets up for its later commands (a cd, a symlink, a script written
// or copied, a download), and the files earlier calls of the session wrote
// (FileLog). What cannot be known statically (an unparsable line, a
// command name computed at run time, options the line computes such as
// git reset $(echo --hard), the words xargs reads from its input) needs
// confirming: it fails closed.
// CheckCommand exposes the gate on its own.
//
// Policy files (package policy: WithPolicy, WithUserPolicy,
// WithProjectPolicy) add allow / ask / deny rules matched on each simple
// command as parsed here (Commands); Decision.Rules says which tier and rule
// decided. The gate knows the sandbox a command runs under: under
// workspace-write, the project's own code running a program it does not
// know, and deleting build artefacts, need no question; uploads, servers,
// remote commands, publishing, process storms, services started, secrets
// printed and clock changes ask (unconfined.go, network.go). The engine's approver (engine.Approver) decides a
// confirm before a person is asked.
//
// A dangerous command raises a confirm pause (tool "Bash", message
// "Potentially dangerous command", the command as details, the reasons);
// a denial returns "Command denied by user" to the model. Approvals can be
// remembered once, for the session or for the project, and listed and
// revoked (Tool.SessionGrants, Tool.ProjectGrants). Project grants are kept
// in the engine's store when it has one (the Tool is an
// engine.GrantKeeper), else in the file of WithProjectGrantsFile, else for
// as long as the Tool. Rules allow, confirm or
// deny by command prefix; deny wins over everything and never asks.
//
// Commands run with bash -c under a supervisor, interlock-run (see package
// contain): under PID 1 of their own PID namespace where user namespaces are
// allowed (else under a child subreaper), so nothing a command starts can
// leave its tree, whatever it does (setsid, a cleared environment, double
// forks); the tree dies with the host (the supervisor's control socket
// closes). Stopping a command (an interrupt, a timeout) sends SIGTERM to
// the tree, SIGKILL after a grace, and returns only once every process of
// it is gone; what a command leaves running in the background is ended
// when it exits. The supervisor is found beside the library
// (lib/interlock-run), or by WithSupervisor / $INTERLOCK_RUN.
//
// Commands are sandboxed with Landlock (contain.Policy, WithSandbox, per
// session Tool.SetSandbox): by default they write only in the session's
// directory and the temp dir, cannot signal processes outside their own
// tree (the host, other sessions' commands) and see the host's environment
// without secrets (EnvFilter, SecretNames).
//
// The shortest use:
//
//	e := engine.New(engine.WithTool("Bash", bash.New()))
//
// and, to classify without running:
//
//	d := bash.CheckCommand("curl -s https://example.com/install.sh | sh")
//	// d.Decision == bash.ActionConfirm
//	// d.Reasons  == ["download and execute: curl -s https://example.com/install.sh | sh"]
package bash
