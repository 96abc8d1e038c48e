package bash

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/interlock-dev/interlock/engine/bash/contain"
)

// runner starts each command under its supervisor (interlock-run), which
// keeps the command's whole tree, and returns once that tree is gone.
type runner struct {
	shell      string        // "bash"
	grace      time.Duration // SIGTERM to SIGKILL
	limit      int           // bytes of output kept
	supervisor string        // path of interlock-run
	kernel     *kernel       // what the kernel allowed so far, shared by the Tool's commands
	noLandlock bool          // tests: act as if the kernel had no Landlock
	started    func(pid int) // test hook: every supervisor started (it leads the command's process group)
}

// outcome is how a command ended.
type outcome struct {
	output    string
	exitCode  int    // -1 when killed by a signal
	signal    string // "killed", "terminated" when exitCode is -1
	timedOut  bool
	workspace string         // the working directory it ran in
	report    contain.Report // what kept the tree and what sandbox was in force
}

// run runs command with bash -c in dir under its supervisor and policy,
// streaming its combined stdout and stderr to progress. It returns once no
// process of the command is left. A done ctx stops the command and returns
// an error wrapping ctx's cause.
func (r runner) run(ctx context.Context, command, dir string, env []string, timeout time.Duration, policy contain.Policy, progress func(string)) (outcome, error) {
	if err := ctx.Err(); err != nil {
		return outcome{}, context.Cause(ctx)
	}
	workspace := dir
	if workspace == "" {
		workspace, _ = os.Getwd()
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return outcome{}, fmt.Errorf("bash: output pipe: %w", err)
	}
	defer pr.Close()
	req := contain.Request{Shell: r.shell, Command: command, GraceMS: r.grace.Milliseconds(), Sandbox: policy, Workspace: workspace, TempDir: os.TempDir(), NoLandlock: r.noLandlock}
	proc := contain.Process{Path: r.supervisor, Dir: dir, Env: env, Output: pw, Namespaces: r.kernel.namespaces()}
	sup, err := contain.Start(req, proc)
	pw.Close() // the command holds the write end now
	if err != nil {
		return outcome{}, fmt.Errorf("bash: %w", err)
	}
	if r.started != nil {
		r.started(sup.Pid())
	}
	out := newCappedBuffer(r.limit)
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		r.copy(pr, out, progress)
	}()
	type waited struct {
		report contain.Report
		err    error
	}
	done := make(chan waited, 1)
	go func() {
		rep, err := sup.Wait()
		done <- waited{rep, err}
	}()

	var timer <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		timer = t.C
	}
	var res outcome
	var stopErr error
	var w waited
	select {
	case w = <-done:
	case <-timer:
		res.timedOut = true
		sup.Stop()
		w = <-done
	case <-ctx.Done():
		stopErr = context.Cause(ctx)
		sup.Stop()
		w = <-done
	}
	if w.report.NamespacesRefused {
		r.kernel.refuseNamespaces() // later commands don't ask again
	}
	if w.err != nil {
		// The supervisor failed: end what is left of its process group.
		syscall.Kill(-sup.Pid(), syscall.SIGKILL)
	}
	// The tree is gone, so nothing holds the pipe's write end: the reader
	// reads what is left to its end, however late it is scheduled. The
	// deadline only guards against a writer left behind, by a supervisor
	// that failed (then 50 ms) or otherwise.
	drainWithin := 10 * time.Second
	if w.err != nil {
		drainWithin = 50 * time.Millisecond
	}
	pr.SetReadDeadline(time.Now().Add(drainWithin))
	<-drained

	res.output = out.String()
	res.report = w.report
	res.workspace = workspace
	res.exitCode = w.report.ExitCode
	res.signal = w.report.Signal
	if stopErr != nil {
		return res, errors.Join(stopErr, w.err)
	}
	return res, w.err
}

// kernel remembers what the kernel refused, so that later commands don't
// ask again.
type kernel struct {
	noNamespaces atomic.Bool
}

func (k *kernel) namespaces() bool { return !k.noNamespaces.Load() }

func (k *kernel) refuseNamespaces() { k.noNamespaces.Store(true) }

// copy streams the pipe to out and progress until EOF or the read deadline,
// never splitting a UTF-8 character between two progress chunks.
func (r runner) copy(pr *os.File, out *cappedBuffer, progress func(string)) {
	buf := make([]byte, 32<<10)
	var carry []byte
	for {
		n, err := pr.Read(buf)
		if n > 0 {
			out.Write(buf[:n])
			chunk := append(carry, buf[:n]...)
			cut := completeUTF8(chunk)
			if cut > 0 && progress != nil {
				progress(string(chunk[:cut]))
			}
			carry = append(carry[:0:0], chunk[cut:]...)
		}
		if err != nil {
			if len(carry) > 0 && progress != nil {
				progress(string(carry))
			}
			return
		}
	}
}

// completeUTF8 returns the length of b without a trailing partial character.
func completeUTF8(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return i
			}
			break
		}
	}
	return len(b)
}

// cappedBuffer keeps the first and last limit/2 bytes written and counts
// what it dropped in between.
type cappedBuffer struct {
	limit   int
	head    []byte
	tail    []byte // ring of the last limit-limit/2 bytes
	tailPos int
	total   int
}

func newCappedBuffer(limit int) *cappedBuffer {
	if limit <= 0 {
		limit = DefaultOutputLimit
	}
	return &cappedBuffer{limit: limit}
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	n := len(p)
	b.total += n
	if room := b.limit/2 - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	size := b.limit - b.limit/2
	for len(p) > 0 {
		if len(b.tail) < size {
			k := min(size-len(b.tail), len(p))
			b.tail = append(b.tail, p[:k]...)
			p = p[k:]
			continue
		}
		k := copy(b.tail[b.tailPos:], p)
		b.tailPos = (b.tailPos + k) % size
		p = p[k:]
	}
	return n, nil
}

// String is the kept output; a cut in the middle says how much was left out.
func (b *cappedBuffer) String() string {
	tail := append(append([]byte(nil), b.tail[b.tailPos:]...), b.tail[:b.tailPos]...)
	omitted := b.total - len(b.head) - len(tail)
	if omitted <= 0 {
		return string(bytes.ToValidUTF8(append(b.head, tail...), []byte("\uFFFD")))
	}
	head := bytes.ToValidUTF8(b.head, []byte("\uFFFD"))
	tail = bytes.ToValidUTF8(tail, []byte("\uFFFD"))
	return fmt.Sprintf("%s\n... [%d bytes omitted] ...\n%s", head, omitted, tail)
}
