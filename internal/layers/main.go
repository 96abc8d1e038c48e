// Command layers counts the references inside package engine that run back
// up: from a file of a lower layer to a name (a function, type, variable,
// constant, method or field) defined in a file of a higher one. Calls are
// meant to go one way: the vocabulary at the bottom, then the journal, the
// state machine (status, pauses, versions) that records each transition
// through it, the store that implements it, the run loop that drives the
// state machine, the engine that wires them, and at the top the recovery
// that rebuilds sessions from the store when the engine opens it.
//
//	go run ./internal/layers           # the count, by pair of files
//	go run ./internal/layers -v        # and every name that runs back up
//
// A reference is counted once per (file, name). Test files are left out.
// A file the table below does not place is listed and left out of the
// count: place it when you add it.
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// layers are engine's files from the bottom up. A file may call into its
// own layer and those below.
var layers = [][]string{
	// The vocabulary: errors, statuses, reasons, events and their wire
	// format, pauses, grants, snapshots, tools, providers, tasks as data;
	// the delivery of events to observers; a goroutine pool.
	{"doc.go", "errors.go", "clock_linux.go", "clock_other.go", "status.go", "runstate.go", "events.go", "wire.go",
		"feed.go", "delivery.go", "pause.go", "grant.go", "snapshot.go", "tool.go", "provider.go", "providerspec.go",
		"scripted.go", "environ.go", "sandbox.go", "task.go", "runner.go", "jsonin.go"},
	// The journal: the narrow interface the state machine records its
	// transitions through.
	{"journal.go"},
	// The state machine: a session's facts, status, versions, pauses,
	// stops, grants and what it records; a run's bookkeeping; a tool
	// call's view of its session (Env).
	{"session.go", "derive.go", "run.go", "pausing.go", "stop.go", "signal.go", "grants.go", "env.go", "record.go",
		"approver.go"},
	// Persistence: the store's journal.
	{"store.go", "durable.go"},
	// The run loop: runs, turns, tool calls, resumption, task loops, a
	// host's own loop and tools, the built-in tools.
	{"loop.go", "turn.go", "calls.go", "resume.go", "tasks.go", "hostrun.go", "hosttool.go",
		"hostline.go", "builtin.go"},
	// The engine: its options, what wires the rest together, the controls
	// over every session, the audit API beside the store, statistics.
	{"options.go", "engine.go", "controls.go", "attach.go", "stats.go", "store_audit.go", "sessionspec.go"},
	// Recovery of the sessions a dead owner left in the store, when the
	// engine opens it.
	{"recover.go"},
}

func main() {
	verbose := flag.Bool("v", false, "list every name that runs back up")
	dir := flag.String("dir", "engine", "the package's directory")
	flag.Parse()
	n, err := count(os.Stdout, *dir, *verbose)
	if err != nil {
		fmt.Fprintln(os.Stderr, "layers:", err)
		os.Exit(1)
	}
	fmt.Printf("references running back up in %s: %d\n", *dir, n)
}

// count returns the number of references running back up in dir, and
// writes them to w by pair of files.
func count(w io.Writer, dir string, verbose bool) (int, error) {
	layerOf := map[string]int{}
	for i, files := range layers {
		for _, f := range files {
			layerOf[f] = i
		}
	}
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return 0, err
	}
	fset := token.NewFileSet()
	var files []*ast.File
	var unplaced []string
	for _, p := range paths {
		name := filepath.Base(p)
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		if _, ok := layerOf[name]; !ok {
			unplaced = append(unplaced, name)
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return 0, err
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return 0, fmt.Errorf("no Go files in %s (run it from the repository's root)", dir)
	}
	// Only names of this package matter: imports are empty packages, and
	// the errors that makes are ignored.
	conf := types.Config{Importer: emptyImporter{}, Error: func(error) {}}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	pkg, _ := conf.Check(files[0].Name.Name, fset, files, info)

	type ref struct {
		from string
		obj  types.Object
	}
	seen := map[ref]bool{}
	pairs := map[[2]string][]string{}
	for id, obj := range info.Uses {
		if obj == nil || obj.Pkg() != pkg || !topLevel(pkg, obj) {
			continue
		}
		from := filepath.Base(fset.Position(id.Pos()).Filename)
		to := filepath.Base(fset.Position(obj.Pos()).Filename)
		lf, okf := layerOf[from]
		lt, okt := layerOf[to]
		if !okf || !okt || lt <= lf || seen[ref{from, obj}] {
			continue
		}
		seen[ref{from, obj}] = true
		pairs[[2]string{from, to}] = append(pairs[[2]string{from, to}], describe(obj))
	}
	keys := make([][2]string, 0, len(pairs))
	for k := range pairs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i][0]+keys[i][1] < keys[j][0]+keys[j][1] })
	for _, k := range keys {
		names := pairs[k]
		sort.Strings(names)
		fmt.Fprintf(w, "%-16s -> %-16s %3d", k[0], k[1], len(names))
		if verbose {
			fmt.Fprintf(w, "  %s", strings.Join(names, ", "))
		}
		fmt.Fprintln(w)
	}
	if len(unplaced) > 0 {
		fmt.Fprintf(w, "not placed in a layer (left out): %s\n", strings.Join(unplaced, ", "))
	}
	return len(seen), nil
}

// topLevel reports whether obj is a name of the package a file can refer
// to: declared at package level, or a method or field.
func topLevel(pkg *types.Package, obj types.Object) bool {
	switch o := obj.(type) {
	case *types.Var:
		return o.IsField() || o.Parent() == pkg.Scope()
	case *types.Func:
		return o.Signature().Recv() != nil || o.Parent() == pkg.Scope()
	}
	return obj.Parent() == pkg.Scope()
}

func describe(obj types.Object) string {
	switch o := obj.(type) {
	case *types.Func:
		if r := o.Signature().Recv(); r != nil {
			return recvName(r.Type()) + "." + o.Name()
		}
	case *types.Var:
		if o.IsField() {
			return "field " + o.Name()
		}
	}
	return obj.Name()
}

func recvName(t types.Type) string {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := t.(*types.Named); ok {
		return n.Obj().Name()
	}
	return t.String()
}

// emptyImporter gives every import as an empty, complete package.
type emptyImporter struct{}

func (emptyImporter) Import(path string) (*types.Package, error) {
	name := path[strings.LastIndex(path, "/")+1:]
	if strings.HasPrefix(name, "v") && strings.Trim(name[1:], "0123456789") == "" && strings.Contains(path, "/") {
		rest := path[:strings.LastIndex(path, "/")]
		name = rest[strings.LastIndex(rest, "/")+1:]
	}
	name = strings.TrimSuffix(strings.ReplaceAll(name, "-", ""), ".go")
	p := types.NewPackage(path, name)
	p.MarkComplete()
	return p, nil
}
