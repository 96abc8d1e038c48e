package bash

// Databases and data stores: statements that drop, truncate or wipe data,
// given inline, in files or on stdin.

// isDatabaseClient reports database command-line clients.

import (
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

func isDatabaseClient(name string) bool {
	switch name {
	case "psql", "mysql", "mariadb", "sqlite3", "sqlite", "sqlcmd", "mongo", "mongosh", "redis-cli",
		"clickhouse-client", "cqlsh", "duckdb", "cockroach", "dropdb", "dropuser", "mysqladmin":
		return true
	}
	return false
}

// database judges SQL, Redis and MongoDB clients by the statements they
// are given (-c, -e, --eval, operands, here-documents).
func (x *command) database() {
	o := parseOpts(x.args, "-c -e -q -Q -d -h -p -P -U -u -D -f -o -v -F -R -T -L -S -a -n -r -i -s "+
		"--command --execute --query --eval --dbname --host --port --username --user --database --file --set "+
		"--variable --output --pset --log-file --socket -cmd --pass --cert --key --cacert")
	var texts []string
	for _, v := range o.all("-c", "-e", "-q", "-Q", "--command", "--execute", "--query", "--eval", "-cmd") {
		if v.subst {
			x.flag(catDatabase)
			return
		}
		texts = append(texts, v.text)
	}
	switch x.name {
	case "sqlite3", "sqlite", "duckdb":
		for _, op := range o.operands[min(1, len(o.operands)):] {
			texts = append(texts, op.text)
		}
	case "redis-cli":
		var words []string
		for _, op := range o.operands {
			words = append(words, op.text)
		}
		texts = append(texts, strings.Join(words, " "))
	case "dropdb", "dropuser":
		x.flag(catDatabase)
		return
	case "mysqladmin":
		if hasOperand(x.args, "drop") || hasOperand(x.args, "shutdown") {
			x.flag(catDatabase)
			return
		}
	}
	if text, ok := x.l.stdinText(x.redirs); ok {
		texts = append(texts, text)
	}
	files := o.all("-f", "--file")
	if x.name == "sqlite3" || x.name == "sqlite" || x.name == "duckdb" || x.name == "mongosh" || x.name == "mongo" {
		files = nil // -f is no script file there
	}
	for _, r := range x.redirs {
		if r.Op == syntax.RdrIn && r.Word != nil && (r.N == nil || r.N.Value == "0") {
			files = append(files, x.l.word(r.Word))
		}
	}
	for _, op := range o.operands {
		if (x.name == "mongosh" || x.name == "mongo") && (strings.HasSuffix(op.text, ".js") || strings.HasSuffix(op.text, ".mongodb")) {
			files = append(files, op)
		}
	}
	for _, t := range texts { // sqlite3 DB ".read FILE"
		for _, m := range sqliteRead.FindAllStringSubmatch(t, -1) {
			files = append(files, arg{text: strings.Trim(m[1], `'"`), static: true})
		}
	}
	for _, f := range files {
		fileTexts, problem := x.l.scriptTexts(f)
		if problem != "" {
			x.flagScript(problem)
			return
		}
		texts = append(texts, fileTexts...)
	}
	for _, t := range texts {
		x.clientCommands(t)
		if dangerousSQL(t) {
			x.flag(catDatabase)
			return
		}
	}
}

// The commands of database clients that run shell code (sqlite3 .shell,
// psql \!, mysql system, output piped to a program) or write a file
// (.output FILE, \o FILE, tee FILE).
var (
	dbShell  = regexp.MustCompile(`(?m)^\s*(?:\.shell|\.system|\\!|\\system|system|pager|\\P)\s+(.+)$|(?m)^\s*(?:\.output|\.once|\\o|\\out|\\g|\\gx)\s*\|\s*(.+)$|(?i)\bprogram\s+'([^']*)'`)
	dbOutput = regexp.MustCompile(`(?m)^\s*(?:\.output|\.once|\.save|\.backup|\\o|\\out|\\w|\\write|tee|\\T)\s+([^|\s]\S*)`)
	dbLoad   = regexp.MustCompile(`(?im)^\s*\.load\b|load_extension\s*\(`)
)

// clientCommands judges the client commands in text.
func (x *command) clientCommands(text string) {
	for _, m := range dbShell.FindAllStringSubmatch(text, -1) {
		x.shellCode(m[1] + m[2] + m[3])
	}
	for _, m := range dbOutput.FindAllStringSubmatch(text, -1) {
		x.writes([]arg{{text: strings.Trim(m[1], `'"`), static: true}})
	}
	if dbLoad.MatchString(text) {
		x.flag(catOptionCode) // a shared library runs in the client
	}
}

// dangerousSQL reports statements that drop, truncate or wipe data:
// DROP ..., TRUNCATE, DELETE or UPDATE without WHERE, ALTER TABLE ... DROP,
// Redis FLUSHALL/FLUSHDB, MongoDB dropDatabase()/drop()/deleteMany({}).
func dangerousSQL(s string) bool {
	low := strings.ToLower(s)
	compact := strings.Join(strings.Fields(low), "")
	for _, m := range []string{"dropdatabase(", ".drop()", "deletemany({})", ".remove({})", "flushall", "flushdb",
		"configset", "config set", "shutdown", "replicaof", "slaveof", "debugsegfault", "scriptflush", "functionflush",
		"aclsetuser", "acldeluser", "dropuser(", "dropallusers", "dropindexes", "renamecollection"} {
		if strings.Contains(compact, m) {
			return true
		}
	}
	for _, stmt := range strings.Split(low, ";") {
		st := " " + strings.Join(strings.Fields(stmt), " ") + " "
		switch {
		case strings.Contains(st, " drop table "), strings.Contains(st, " drop database "), strings.Contains(st, " drop schema "),
			strings.Contains(st, " drop user "), strings.Contains(st, " drop role "), strings.Contains(st, " drop view "),
			strings.Contains(st, " drop index "), strings.Contains(st, " drop keyspace "), strings.Contains(st, " drop collection "),
			strings.HasPrefix(st, " truncate "):
			if strings.HasPrefix(st, " drop ") || strings.HasPrefix(st, " truncate ") || strings.HasPrefix(st, " alter ") ||
				strings.Contains(st, " if exists ") || !strings.ContainsAny(st, "'\"") {
				return true
			}
		case strings.HasPrefix(st, " delete from ") || strings.HasPrefix(st, " update ") && strings.Contains(st, " set "):
			if !strings.Contains(st, " where ") {
				return true
			}
		case strings.HasPrefix(st, " alter table ") && strings.Contains(st, " drop "):
			return true
		case strings.HasPrefix(st, " shutdown "), strings.HasPrefix(st, " grant "), strings.HasPrefix(st, " revoke "),
			strings.HasPrefix(st, " alter user "), strings.HasPrefix(st, " alter role "), strings.HasPrefix(st, " create user "),
			strings.HasPrefix(st, " create role "), strings.HasPrefix(st, " set password "), strings.HasPrefix(st, " rename table "):
			return true
		}
	}
	return false
}

// sqliteRead matches sqlite's .read command and its file.
var sqliteRead = regexp.MustCompile(`(?m)^\s*\.read\s+(\S+)`)
