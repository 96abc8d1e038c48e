package bash

// Development: compilers, build systems, test runners, linters and
// formatters. They run the project's own code, which is what a developer
// asks an agent to do; migration and database tools ask unless the
// subcommand only reads.
var devPrograms = mergeTables(table(plain,
	"make", "gmake", "cmake", "ctest", "cpack", "ninja", "meson", "bazel", "bazelisk", "buck", "buck2", "pants", "scons",
	"gcc", "g++", "cc", "c++", "clang", "clang++", "clang-format", "clang-tidy", "ld", "lld", "as", "nm", "objdump",
	"readelf", "strip", "ldd", "gdb", "lldb", "pkg-config", "autoconf", "automake", "autoreconf", "libtool", "m4",
	"javac", "java", "jar", "mvn", "mvnw", "gradle", "gradlew", "ant", "sbt", "kotlinc", "scalac", "lein", "clj", "clojure",
	"tsc", "eslint", "prettier", "biome", "oxlint", "vite", "vitest", "jest", "mocha", "ava", "tap", "playwright", "cypress",
	"webpack", "rollup", "esbuild", "swc", "parcel", "turbo", "nx", "lerna", "next", "nuxt", "astro", "svelte-kit",
	"ng", "vue-cli-service", "storybook", "tailwindcss", "postcss", "sass", "lessc", "stylelint", "markdownlint",
	"pytest", "py.test", "tox", "nox", "black", "ruff", "mypy", "pyright", "pylint", "flake8", "isort", "bandit",
	"coverage", "pre-commit", "sphinx-build", "mkdocs", "jupyter", "ipython", "pydoc", "pyflakes", "autopep8", "yapf",
	"gofmt", "goimports", "golangci-lint", "staticcheck", "govulncheck", "dlv", "gopls", "air", "templ", "buf", "protoc",
	"rustfmt", "clippy-driver", "cargo-clippy", "wasm-pack", "trunk",
	"rspec", "rubocop", "rails-server", "standardrb", "irb", "erb", "phpunit", "phpstan", "psalm", "php-cs-fixer", "pest",
	"swiftc", "swiftlint", "xcodebuild", "xcrun", "pod", "carthage", "flutter-analyze",
	"ghc", "stack", "cabal", "zig", "nim", "crystal", "dune", "opam", "elm", "gleam", "v", "odin",
	"shellcheck", "shfmt", "hadolint", "yamllint", "jsonlint", "actionlint", "editorconfig-checker", "typos", "codespell",
	"cloc", "tokei", "scc", "ctags", "cscope", "hyperfine", "perf", "valgrind", "heaptrack", "pprof", "flamegraph",
	"htop", "top", "btop", "glances", "ps", "pgrep", "pidof", "pstree", "free", "vmstat", "iostat", "mpstat", "sar",
	"nvidia-smi", "lscpu", "lspci", "lsusb", "dmesg", "journalctl", "systemctl", "service", "crontab",
	"docker-credential-helper", "act", "circleci", "just", "task", "mage", "earthly", "tilt-ci",
	"uvicorn", "gunicorn", "hypercorn", "daphne", "celery", "streamlit", "flask", "nodemon", "ts-node-dev", "tsc-watch",
	"serve", "http-server", "live-server", "json-server", "wait-on", "husky", "lint-staged", "commitlint",
	"graphql-codegen", "sqlc", "oapi-codegen", "mockgen", "stringer", "wire", "gotestsum", "golines", "gofumpt", "revive",
	"errcheck", "ineffassign", "gosec", "hugo", "jekyll", "gatsby", "eleventy", "docusaurus", "lighthouse", "k6",
	"locust", "expo", "electron", "concurrently", "npm-run-all", "npm-run-all2", "run-s", "run-p",
), map[string]spec{
	"python3":       plain,
	"python":        plain,
	"swift":         {quiet: []string{"build", "test", "run", "package", "--version", "format"}},
	"deno":          {quiet: []string{"test", "fmt", "lint", "check", "run", "task", "info", "doc", "bench", "compile", "bundle", "cache", "eval", "repl", "--version", "init", "add", "install", "coverage", "serve"}},
	"flutter":       {quiet: []string{"run", "test", "build", "pub get", "pub add", "analyze", "doctor", "devices", "clean", "create", "format", "--version"}},
	"dart":          {quiet: []string{"run", "test", "pub get", "pub add", "analyze", "format", "compile", "fix", "create", "--version"}},
	"rails":         {quiet: []string{"server", "s", "console", "c", "generate", "g", "routes", "test", "t", "new", "runner", "assets:precompile", "credentials:show", "db:migrate:status", "about", "stats", "notes", "zeitwerk:check", "-v", "--version"}, cat: catMigration},
	"rake":          {quiet: []string{"test", "spec", "build", "default", "routes", "-T", "--tasks", "assets:precompile", "lint", "rubocop", "db:migrate:status", "stats", "notes", "about"}, cat: catMigration},
	"php":           plain,
	"alembic":       {quiet: []string{"current", "history", "heads", "branches", "show", "check", "revision"}, cat: catMigration},
	"prisma":        {quiet: []string{"generate", "format", "validate", "studio", "migrate status", "migrate diff", "migrate dev --create-only", "init", "version", "-v", "db pull"}, cat: catMigration},
	"knex":          {quiet: []string{"migrate:status", "migrate:list", "migrate:make", "seed:make", "init", "migrate:currentVersion"}, cat: catMigration},
	"sequelize":     {quiet: []string{"migration:generate", "model:generate", "seed:generate", "db:migrate:status", "init", "help"}, cat: catMigration},
	"sequelize-cli": {quiet: []string{"migration:generate", "model:generate", "seed:generate", "db:migrate:status", "init", "help"}, cat: catMigration},
	"typeorm":       {quiet: []string{"migration:show", "migration:create", "migration:generate", "entity:create", "query", "version", "schema:log"}, cat: catMigration},
	"flyway":        {quiet: []string{"info", "validate", "version", "-v"}, cat: catMigration},
	"liquibase":     {quiet: []string{"status", "history", "validate", "diff", "version", "--version", "updateSQL", "update-sql", "generateChangeLog"}, cat: catMigration},
	"diesel":        {quiet: []string{"migration generate", "migration list", "migration pending", "print-schema", "setup", "--version"}, cat: catMigration},
	"sqlx":          {quiet: []string{"migrate info", "migrate add", "prepare", "--version"}, cat: catMigration},
	"goose":         {quiet: []string{"status", "version", "create", "validate", "fix"}, cat: catMigration},
	"migrate":       {valued: "-path -database -source -lock-timeout", quiet: []string{"version", "create", "-version", "help"}, cat: catMigration},
	"dbmate":        {quiet: []string{"status", "new", "n", "dump", "wait", "--help", "help"}, cat: catMigration},
	"atlas":         {quiet: []string{"schema inspect", "schema diff", "migrate status", "migrate diff", "migrate lint", "migrate validate", "migrate hash", "version"}, cat: catMigration},
	"sqitch":        {quiet: []string{"status", "log", "plan", "verify", "add", "help"}, cat: catMigration},
	"ecto":          {quiet: []string{}, cat: catMigration},
})

// scriptCommands are framework scripts run by an interpreter whose first
// operand is a subcommand (python manage.py migrate, php artisan
// migrate:fresh): a subcommand not listed as quiet asks.
var scriptCommands = map[string]spec{
	"manage.py": {quiet: []string{"runserver", "test", "shell", "check", "makemigrations", "showmigrations", "sqlmigrate",
		"collectstatic", "startapp", "dbshell", "createsuperuser", "help", "version", "inspectdb", "diffsettings",
		"dumpdata", "shell_plus", "show_urls", "validate_templates", "compilemessages", "makemessages", "findstatic"}, cat: catMigration},
	"artisan": {quiet: []string{"serve", "test", "route:list", "tinker", "list", "about", "config:cache", "config:clear",
		"cache:clear", "view:clear", "migrate:status", "optimize", "queue:work", "schedule:list", "env"}, prefixes: []string{"make:"}, cat: catMigration},
}
