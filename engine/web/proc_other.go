//go:build !linux

package web

import "os/exec"

// killWithParent does nothing: only Linux can tie a child's life to its parent.
func killWithParent(*exec.Cmd) {}

// processesWithArg finds nothing: only Linux has /proc to look in. Chromium
// helpers exit by themselves shortly after the main process there.
func processesWithArg(func(arg []byte) bool) []int { return nil }
