package main

import (
	"io"
	"testing"
)

// maxBackRefs bounds the references running back up in package engine:
// 182 when the count began (a5cee33), 51 after the split by concern. A
// change that needs more should move the name to its layer, or say why.
const maxBackRefs = 60

func TestEngineReferencesRunningBackUpStayFew(t *testing.T) {
	n, err := count(io.Discard, "../../engine", false)
	if err != nil {
		t.Fatal(err)
	}
	if n > maxBackRefs {
		t.Fatalf("%d references run back up in engine (at most %d): see `go run ./internal/layers -v` and the table of layers at the top of internal/layers/main.go", n, maxBackRefs)
	}
}
