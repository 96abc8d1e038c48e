package bash

import (
	"path"
	"strings"
)

// EnvFilter says which of the host's environment variables commands see;
// the session's own env is always passed. A name is dropped when it matches
// Exclude or, unless Exclude is set, SecretNames; Include wins over both.
// Patterns are shell globs on the name ("AWS_*"); a pattern without glob
// characters matches a name that contains it ("TOKEN" matches GITHUB_TOKEN).
type EnvFilter struct {
	Include []string `json:"include,omitempty"`
	Exclude []string `json:"exclude,omitempty"`
}

// SecretNames are the patterns of variables commands don't see by default:
// names containing KEY, SECRET, TOKEN, PASSWORD, PASSWD, CREDENTIAL,
// PRIVATE, AUTH_, COOKIE or SESSION, and the connection strings and
// passwords of common tools that carry secrets under other names.
var SecretNames = []string{
	"KEY", "SECRET", "TOKEN", "PASSWORD", "PASSWD", "CREDENTIAL", "PRIVATE", "AUTH_", "COOKIE", "SESSION",
	"DATABASE_URL", "REDIS_URL", "MONGODB_URI", "MYSQL_PWD", "SENTRY_DSN", "*_DSN", "NETRC",
}

// filter returns the entries of environ ("NAME=value") the filter keeps.
func (f EnvFilter) filter(environ []string) []string {
	exclude := f.Exclude
	if exclude == nil {
		exclude = SecretNames
	}
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if matchesAny(f.Include, name) || !matchesAny(exclude, name) {
			out = append(out, kv)
		}
	}
	return out
}

// matchesAny reports whether name matches one of patterns, ignoring case.
func matchesAny(patterns []string, name string) bool {
	upper := strings.ToUpper(name)
	for _, p := range patterns {
		p = strings.ToUpper(p)
		if strings.ContainsAny(p, "*?[") {
			if ok, _ := path.Match(p, upper); ok {
				return true
			}
		} else if strings.Contains(upper, p) {
			return true
		}
	}
	return false
}
