package bash

// Databases and data stores: clients are judged by the statements they are
// given (system.go, database); dumps only read. Restores and admin tools
// that replace or drop data ask.
var databasePrograms = mergeTables(table(plain,
	"psql", "mysql", "mariadb", "sqlite3", "sqlite", "sqlcmd", "mongo", "mongosh", "redis-cli", "valkey-cli",
	"clickhouse-client", "clickhouse", "cqlsh", "duckdb", "cockroach", "pgcli", "mycli", "litecli", "usql", "dropdb", "dropuser",
	"mysqladmin", "pg_dump", "pg_dumpall", "mysqldump", "mongodump", "mongoexport", "pg_isready", "pg_config", "pg_ctl",
	"createdb", "createuser", "initdb", "sqlfluff", "pgbench",
), map[string]spec{
	"influx":         {quiet: []string{"query", "bucket list", "org list", "auth list", "ping", "version", "config ls", "v1 shell", "export"}, cat: catDatabase},
	"pg_restore":     {quiet: []string{}, cat: catDatabase},
	"mongorestore":   {quiet: []string{}, cat: catDatabase},
	"mongoimport":    {quiet: []string{}, cat: catDatabase},
	"pg_dropcluster": {quiet: []string{}, cat: catDatabase},
	"etcdctl":        {quiet: []string{"get", "member list", "endpoint health", "endpoint status", "version", "watch", "check perf", "alarm list", "user list", "role list"}, cat: catDatabase},
})
