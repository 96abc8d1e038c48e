package engine

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tsInterfaces returns the property names of every interface declared in
// a TypeScript declaration file, by interface name (its own properties,
// not those it extends).
func tsInterfaces(t *testing.T, path string) map[string]map[string]bool {
	t.Helper()
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	text := regexp.MustCompile(`(?s)/\*.*?\*/|//[^\n]*`).ReplaceAllString(string(src), "")
	out := map[string]map[string]bool{}
	for _, m := range regexp.MustCompile(`interface (\w+)[^{]*\{`).FindAllStringSubmatchIndex(text, -1) {
		name := text[m[2]:m[3]]
		props := map[string]bool{}
		depth := 1
		start := m[1]
		for i := start; i < len(text) && depth > 0; i++ {
			switch text[i] {
			case '{', '(', '[', '<':
				if depth == 1 {
					addTSProps(props, text[start:i])
				}
				depth++
			case '}', ')', ']', '>':
				depth--
				if depth == 1 {
					start = i + 1
				}
				if depth == 0 {
					addTSProps(props, text[start:i])
				}
			}
		}
		out[name] = props
	}
	return out
}

var tsProp = regexp.MustCompile(`(?:^|[;,{\s])(?:readonly\s+)?(\w+)\??\s*:`)

func addTSProps(props map[string]bool, s string) {
	for _, m := range tsProp.FindAllStringSubmatch(s, -1) {
		props[m[1]] = true
	}
}

// wireNames returns the wire (camelCase) names of typ's JSON fields.
func wireNames(typ reflect.Type) []string {
	var names []string
	for f := range typ.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		names = append(names, string(appendCamelKey(nil, []byte(name))))
	}
	return names
}

// Every field the wire format carries is declared in node/index.d.ts, the
// types JavaScript and TypeScript programs see: a field added in Go fails
// here until the type has it.
func TestWireFieldsAreDeclaredInIndexDTS(t *testing.T) {
	t.Parallel()
	ifaces := tsInterfaces(t, "../node/index.d.ts")
	// Event's fields are spread over the event interfaces, one per type.
	// (A run's result is not here: node/lib/results.js gives JS its own
	// RunResult, with an outcome and the error as one object.)
	events := map[string]bool{}
	for name, props := range ifaces {
		if name == "EventBase" || strings.HasSuffix(name, "Event") && !strings.HasPrefix(name, "On") && name != "TaskLoopEvent" {
			for p := range props {
				events[p] = true
			}
		}
	}
	types := []struct {
		typ   reflect.Type
		props map[string]bool
		ts    string
	}{
		{reflect.TypeFor[Event](), events, "EventBase and the *Event interfaces"},
		{reflect.TypeFor[Pause](), ifaces["PauseInfo"], "PauseInfo"},
		{reflect.TypeFor[Interruption](), ifaces["Interruption"], "Interruption"},
		{reflect.TypeFor[Stopping](), ifaces["Stopping"], "Stopping"},
		{reflect.TypeFor[Grant](), ifaces["Grant"], "Grant"},
		{reflect.TypeFor[Snapshot](), ifaces["SessionSnapshot"], "SessionSnapshot"},
		{reflect.TypeFor[Eligibility](), ifaces["Eligibility"], "Eligibility"},
		{reflect.TypeFor[Usage](), ifaces["Tokens"], "Tokens"},
		{reflect.TypeFor[Sandbox](), ifaces["SandboxInfo"], "SandboxInfo"},
		{reflect.TypeFor[TaskEvent](), ifaces["TaskLoopEvent"], "TaskLoopEvent"},
	}
	for _, tt := range types {
		require.NotEmpty(t, tt.props, "node/index.d.ts declares %s", tt.ts)
		for _, name := range wireNames(tt.typ) {
			assert.True(t, tt.props[name], "%s.%s is on the wire as %q: declare it in node/index.d.ts's %s", tt.typ.Name(), name, name, tt.ts)
		}
	}
}
