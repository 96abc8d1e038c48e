package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// staticExports return static data: no status to report and nothing in
// them that can panic, so they need not go through the wrapper.
var staticExports = []string{"il_version", "il_status_name", "il_reason_labels"}

// cFunctions are declared in interlock.h and defined in C (free.c), not
// exported from Go: they never enter the Go runtime.
var cFunctions = []string{"il_free"}

// goExports maps every //export function of the package to its declaration.
func goExports(t *testing.T) map[string]*ast.FuncDecl {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi os.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.ParseComments)
	require.NoError(t, err)
	out := map[string]*ast.FuncDecl{}
	for _, pkg := range pkgs {
		for _, f := range pkg.Files {
			for _, d := range f.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok || fn.Doc == nil {
					continue
				}
				for _, c := range fn.Doc.List {
					if name, ok := strings.CutPrefix(c.Text, "//export "); ok {
						require.Equal(t, fn.Name.Name, strings.TrimSpace(name), "//export names its own function")
						out[fn.Name.Name] = fn
					}
				}
			}
		}
	}
	return out
}

// headerFunctions maps every function declared in interlock.h to its
// parameter count.
func headerFunctions(t *testing.T) map[string]int {
	t.Helper()
	text, err := os.ReadFile("interlock.h")
	require.NoError(t, err)
	// Declarations may wrap: join lines, drop comments.
	src := regexp.MustCompile(`(?s)/\*.*?\*/`).ReplaceAllString(string(text), "")
	decl := regexp.MustCompile(`(?m)^(?:const\s+)?\w+\s*\*?\s*(il_\w+)\s*\(([^)]*)\)\s*;`)
	out := map[string]int{}
	for _, m := range decl.FindAllStringSubmatch(src, -1) {
		params := strings.TrimSpace(m[2])
		n := 0
		if params != "" && params != "void" {
			n = strings.Count(params, ",") + 1
		}
		out[m[1]] = n
	}
	return out
}

// TestHeaderMatchesExports: interlock.h declares exactly the exported
// functions, with the same number of parameters.
func TestHeaderMatchesExports(t *testing.T) {
	t.Parallel()
	exports := goExports(t)
	header := headerFunctions(t)
	require.NotEmpty(t, header)
	for name, fn := range exports {
		n, ok := header[name]
		if !assert.True(t, ok, "%s is exported but not declared in interlock.h", name) {
			continue
		}
		params := 0
		for _, f := range fn.Type.Params.List {
			params += max(1, len(f.Names))
		}
		assert.Equal(t, n, params, "%s: parameter count in interlock.h vs Go", name)
	}
	for name := range header {
		if slices.Contains(cFunctions, name) {
			assert.NotContains(t, exports, name, "%s is defined in C", name)
			continue
		}
		assert.Contains(t, exports, name, "%s is declared in interlock.h but not exported", name)
	}
}

// TestEveryExportGoesThroughTheWrapper: each export's body is one call of
// call / callNoHandle, or starts with a deferred recoverPanic, so no panic
// can unwind into C.
func TestEveryExportGoesThroughTheWrapper(t *testing.T) {
	t.Parallel()
	for name, fn := range goExports(t) {
		if slices.Contains(staticExports, name) {
			continue
		}
		body := fn.Body.List
		require.NotEmpty(t, body, name)
		switch s := body[0].(type) {
		case *ast.ReturnStmt:
			if assert.Len(t, body, 1, "%s: only `return call(...)`", name) && assert.Len(t, s.Results, 1, name) {
				assert.Contains(t, []string{"call", "callNoHandle"}, calleeName(s.Results[0]), "%s does not return call(...) or callNoHandle(...)", name)
			}
		case *ast.DeferStmt:
			assert.Equal(t, "recoverPanic", calleeName(s.Call), "%s: first statement defers something else than recoverPanic", name)
		default:
			t.Errorf("%s: the body must be `return call(...)`, `return callNoHandle(...)` or start with `defer recoverPanic(...)`", name)
		}
	}
}

func calleeName(e ast.Expr) string {
	c, ok := e.(*ast.CallExpr)
	if !ok {
		return ""
	}
	switch f := c.Fun.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.IndexExpr: // call[K](...)
		if id, ok := f.X.(*ast.Ident); ok {
			return id.Name
		}
	}
	return ""
}
