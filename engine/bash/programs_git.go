package bash

// Version control. git's dangerous subcommands and options are judged in
// git.go; a subcommand not listed here (an alias, a plugin) asks, since
// an alias can run any shell code.
var gitPrograms = map[string]spec{
	"git": {
		valued: "-C -c --git-dir --work-tree --namespace --config-env --exec-path --super-prefix",
		quiet: []string{
			"status", "diff", "log", "show", "blame", "annotate", "branch", "checkout", "switch", "add", "commit",
			"push", "pull", "fetch", "clone", "init", "stash", "rebase", "merge", "cherry-pick", "revert", "tag",
			"remote", "rev-parse", "rev-list", "grep", "shortlog", "describe", "worktree", "config", "ls-files",
			"ls-tree", "ls-remote", "submodule", "bisect", "reflog", "restore", "reset", "clean", "mv", "rm",
			"cat-file", "show-ref", "symbolic-ref", "for-each-ref", "name-rev", "merge-base", "range-diff",
			"format-patch", "am", "apply", "archive", "bundle", "gc", "fsck", "prune", "count-objects", "help",
			"version", "var", "whatchanged", "notes", "sparse-checkout", "lfs", "maintenance", "difftool",
			"mergetool", "citool", "gui", "gitk", "request-pull", "send-email", "update-index", "update-ref",
			"write-tree", "read-tree", "commit-tree", "hash-object", "check-ignore", "check-attr", "column",
			"credential", "filter-branch", "filter-repo", "replace", "rerere", "blame", "instaweb", "verify-commit",
			"verify-tag", "show-branch", "cherry", "diff-tree", "diff-index", "diff-files", "multi-pack-index",
			"pack-refs", "repack", "fast-export", "fast-import", "interpret-trailers", "mailinfo", "stripspace",
			"switch", "backfill", "range-diff", "history",
		},
		cat: catSubUnknown,
	},
	"gh": {
		valued: "-R --repo",
		quiet: []string{
			"pr list", "pr view", "pr create", "pr checkout", "pr diff", "pr status", "pr checks", "pr comment",
			"pr review", "pr edit", "pr ready", "issue list", "issue view", "issue create", "issue comment",
			"issue status", "run list", "run view", "run watch", "run rerun", "run download", "repo view", "repo clone",
			"repo list", "release list", "release view", "release download", "workflow list", "workflow view",
			"auth status", "api", "browse", "status", "search", "gist list", "gist view", "label list", "cache list",
			"codespace list", "help", "version", "config get", "config list", "extension list",
		},
		cat: catPublish,
	},
	"glab":    {quiet: []string{"mr list", "mr view", "mr create", "mr checkout", "issue list", "issue view", "ci status", "ci view", "repo clone", "repo view", "auth status"}, cat: catPublish},
	"hg":      {quiet: []string{"status", "diff", "log", "show", "annotate", "blame", "pull", "update", "commit", "add", "branch", "branches", "summary", "heads", "identify", "id", "clone", "push", "incoming", "outgoing", "grep", "files", "root", "help"}},
	"svn":     {quiet: []string{"status", "st", "diff", "log", "info", "update", "up", "checkout", "co", "commit", "ci", "add", "blame", "cat", "list", "ls", "help"}},
	"tig":     plain,
	"lazygit": plain,
	"git-lfs": {quiet: []string{"install", "track", "ls-files", "pull", "fetch", "push", "status", "env", "version"}},
}
