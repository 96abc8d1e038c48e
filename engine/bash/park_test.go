package bash

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
)

// toolGoroutines counts the goroutines with a frame of the Bash tool on
// their stack.
func toolGoroutines() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Count(string(buf[:n]), "engine/bash.(*Tool).")
		}
		buf = make([]byte, 2*len(buf))
	}
}

// Runs waiting for the user's answer about a dangerous command hold no
// goroutine; the answer runs the command (or denies it) on a fresh one.
// Not parallel: no other test's command may be in the tool meanwhile.
func TestRunsWaitingForAnAnswerHoldNoGoroutine(t *testing.T) {
	h := newHarness(t, New(tracked(nil)))
	const n = 20
	agents := make([]*agent, n)
	outs := make([]<-chan engine.Outcome, n)
	for i := range agents {
		agents[i] = h.session("rm -rf victim")
		require.NoError(t, os.MkdirAll(filepath.Join(agents[i].dir, "victim", "sub"), 0o755))
		outs[i] = agents[i].start()
	}
	for _, a := range agents {
		a.waitFor(engine.EventPaused, nil)
	}
	// The runs' goroutines return right after raising the question.
	deadline := time.Now().Add(10 * time.Second)
	for toolGoroutines() > 0 && time.Now().Before(deadline) {
		runtime.Gosched()
	}
	require.Zero(t, toolGoroutines(), "goroutines in the Bash tool while %d runs wait for an answer", n)
	for i, a := range agents {
		require.NoError(t, a.s.Confirm("", i%2 == 0))
	}
	for i, a := range agents {
		require.NoError(t, a.finish(outs[i]).Err)
		_, err := os.Stat(filepath.Join(a.dir, "victim"))
		if i%2 == 0 {
			assert.True(t, os.IsNotExist(err), "approved: the command ran")
			assert.Equal(t, "[exit code 0]", a.toolResult().Text)
		} else {
			assert.NoError(t, err, "denied: the command did not run")
			assert.Equal(t, "Command denied by user", a.toolResult().Text)
		}
	}
}
