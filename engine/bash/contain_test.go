package bash

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/bash/contain"
)

// escapes are commands that try to outlive their command: each process that
// should die writes its host pid (the ppid of its cut) to the file $P.
var escapes = []struct {
	name, script string
}{
	{"setsid", `setsid sh -c 'cut -d" " -f4 /proc/self/stat >> $P; exec sleep 30' &`},
	{"setsid with a cleared environment", `env -i P=$P setsid sh -c 'cut -d" " -f4 /proc/self/stat >> $P; exec sleep 30' &`},
	{"exec -c, double fork", `(exec -c sh -c '(cut -d" " -f4 /proc/self/stat >> '$P'; exec sleep 30) & ' &)`},
	{"nohup daemon with closed output", `nohup setsid sh -c 'exec >/dev/null 2>&1 </dev/null; unset P2; cut -d" " -f4 /proc/self/stat >> $P; exec sleep 30' >/dev/null 2>&1 &`},
	{"new process group", `perl -e 'setpgrp(0,0); exec @ARGV' sh -c 'cut -d" " -f4 /proc/self/stat >> $P; exec sleep 30' &`},
	{"detached fork loop", `setsid sh -c 'cut -d" " -f4 /proc/self/stat >> $P; while :; do sleep 1 & done' >/dev/null 2>&1 &`},
	// The supervisor is the shell's parent (PID 1 in a PID namespace): the
	// sandbox must keep it out of the command's reach, or its death (no
	// report, and as a subreaper the setsid child reparented away) or its
	// SIGTERM (taken for the host's death) would end supervision.
	// Stopped processes do not die of SIGTERM: every process of the tree
	// but the shell (kill -1 spares its caller; the sandbox keeps it to
	// the command's own processes) is stopped when the tree is ended.
	{"stops its whole tree", `setsid sh -c 'cut -d" " -f4 /proc/self/stat >> $P; exec sleep 30' & until [ -s $P ]; do sleep 0.01; done; kill -STOP -1`},
	// Without a PID namespace every chmod waits for the supervisor.
	{"floods its supervisor with chmods", `for i in 1 2 3; do setsid sh -c 'cut -d" " -f4 /proc/self/stat >> $P; exec perl -e "chmod 0644, \$ENV{P} while 1"' & done`},
	{"kills its supervisor", `setsid sh -c 'cut -d" " -f4 /proc/self/stat >> $P; exec sleep 30' & until [ -s $P ]; do sleep 0.01; done; kill -KILL $PPID; kill -TERM $PPID`},
}

// TestContainedNothingSurvives: whatever a command does to leave its
// process group, session or environment, nothing of it is left after an
// interrupt, a normal exit or a timeout, with the tree kept by a PID
// namespace and by a subreaper.
func TestContainedNothingSurvives(t *testing.T) {
	t.Parallel()
	for _, ns := range []bool{true, false} {
		for _, end := range []string{"interrupt", "exit", "timeout"} {
			for _, esc := range escapes {
				t.Run(fmt.Sprintf("namespaces=%v/%s/%s", ns, end, esc.name), func(t *testing.T) {
					t.Parallel()
					pidFile := filepath.Join(t.TempDir(), "pids")
					require.NoError(t, os.WriteFile(pidFile, nil, 0o644))
					r := testRunner(50*time.Millisecond, 0)
					if !ns {
						r.kernel.refuseNamespaces()
					}
					tail := "echo started"
					timeout := time.Minute
					switch end {
					case "interrupt":
						tail += "; sleep 30"
					case "timeout":
						tail += "; sleep 30"
						timeout = 1500 * time.Millisecond
					}
					cmd := fmt.Sprintf("export P=%s; %s\nuntil [ -s $P ]; do sleep 0.01; done; %s", pidFile, esc.script, tail)
					progress := newProgressLog("started")
					ctx, cancel := context.WithCancelCause(t.Context())
					defer cancel(nil)
					if end == "interrupt" {
						go func() {
							select {
							case <-progress.seen:
								cancel(errors.New("test stop"))
							case <-ctx.Done():
							}
						}()
					}
					o, err := r.run(ctx, cmd, "", os.Environ(), timeout, contain.Policy{}, progress.add)
					if end == "interrupt" {
						require.ErrorContains(t, err, "test stop")
					} else {
						require.NoError(t, err, "output %q", o.output)
					}
					assert.Equal(t, end == "timeout", o.timedOut)
					assert.Contains(t, o.output, "started")
					want := contain.TreeSubreaper
					if ns {
						want = contain.TreePIDNamespace
					}
					assert.Equal(t, want, o.report.Tree)
					requireAllDead(t, pidFile)
				})
			}
		}
	}
}

// requireAllDead checks that no process listed in pidFile runs, and that
// no process is left in their process groups.
func requireAllDead(t *testing.T, pidFile string) {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	fields := strings.Fields(string(b))
	require.NotEmpty(t, fields, "no escaped process recorded its pid")
	for _, f := range fields {
		pid, err := strconv.Atoi(f)
		require.NoError(t, err)
		_, pgid, _ := readStat(pid)
		if alive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("process %d outlived its command", pid)
		}
		if pgid > 0 {
			live, _ := liveMembers(pgid)
			// The supervisor leads the command's group and exits just after
			// its report: requireGroupGone checks it.
			live = slices.DeleteFunc(live, isSupervisor)
			for _, p := range live {
				syscall.Kill(p, syscall.SIGKILL)
			}
			assert.Empty(t, live, "processes left in group %d", pgid)
		}
	}
}

// TestSupervisorMissing: without a usable supervisor nothing starts, and
// the result names the path and how to build it.
func TestSupervisorMissing(t *testing.T) {
	t.Parallel()
	notExec := filepath.Join(t.TempDir(), "interlock-run")
	require.NoError(t, os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644))
	for name, path := range map[string]string{"missing": "/nonexistent/interlock-run", "not executable": notExec} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			marker := filepath.Join(t.TempDir(), "ran")
			h := newHarness(t, New(WithSupervisor(path)))
			res := h.session("touch " + marker).run()
			assert.True(t, res.IsError)
			assert.Contains(t, res.Text, path)
			assert.Contains(t, res.Text, "make build")
			assert.NoFileExists(t, marker, "nothing may run without the supervisor")
		})
	}
}

// TestSandbox attacks the workspace-write sandbox from an approved
// command: writes outside the working directory and signals to the host
// or another session's command fail; writes inside work.
func TestSandbox(t *testing.T) {
	t.Parallel()
	for _, ns := range []bool{true, false} {
		t.Run(fmt.Sprintf("namespaces=%v", ns), func(t *testing.T) {
			t.Parallel()
			opts := []Option{tracked(nil), enginePolicy(t, "rm-kill", "allow", `program = ["rm", "kill"]`), WithSandbox(contain.Policy{})}
			if !ns {
				opts = append(opts, withoutNamespaces())
			}
			tool := New(opts...)
			// The temp dir is writable by policy: protect a directory outside it.
			protected := protectedDir(t)
			require.NoError(t, os.WriteFile(filepath.Join(protected, "file"), []byte("keep"), 0o644))
			h := newHarness(t, tool)

			res := h.session("rm -rf " + protected).run()
			refused := "Permission denied" // Landlock
			if ns {
				refused = "Read-only file system" // the mount, checked first
			}
			assert.Contains(t, res.Text, refused)
			assert.FileExists(t, filepath.Join(protected, "file"), "rm -rf outside the working directory must fail")
			assert.Contains(t, res.Text, fmt.Sprintf(`[blocked by the sandbox: writing "%s/file": bash.sandbox.mode "workspace-write" allows writes only in`, protected), "the result names the path and the rule")
			assert.Contains(t, res.Text, "add the path (or a parent directory) to bash.sandbox.writable", "and how to allow it")

			a := h.session("echo made > inside && cat inside")
			res = a.run()
			assert.False(t, res.IsError, res.Text)
			assert.Contains(t, res.Text, "made")
			assert.FileExists(t, filepath.Join(a.dir, "inside"))

			res = h.session(fmt.Sprintf("kill -STOP %d; echo exit=$?", os.Getpid())).run()
			assert.NotContains(t, res.Text, "exit=0", "signalling the host must fail")
			state, _, _ := readStat(os.Getpid())
			assert.NotEqual(t, byte('T'), state, "the host was stopped")

			// Another session's command, started by the same tool.
			other := h.session("echo started; cut -d' ' -f4 /proc/self/stat; sleep 30")
			otherOut := other.start()
			pid := waitForLine(t, other, 2)
			res = h.session(fmt.Sprintf("kill -KILL %d; echo exit=$?", pid)).run()
			assert.NotContains(t, res.Text, "exit=0", "signalling another session's command must fail")
			assert.True(t, alive(pid), "the other session's command was killed")
			// Nor can it read the other's secrets or memory (ptrace's check).
			// (Through the runner: the gate would ask first.)
			r := testRunner(DefaultGrace, 0)
			if !ns {
				r.kernel.refuseNamespaces()
			}
			o, err := r.run(t.Context(), fmt.Sprintf("cat /proc/%[1]d/environ > /dev/null && echo read its environment; readlink /proc/%[1]d/fd/1 && echo read its descriptors", pid), "", os.Environ(), time.Minute, contain.Policy{}, nil)
			require.NoError(t, err)
			assert.NotContains(t, o.output, "read its", "another session's command is out of ptrace's reach")
			assert.Contains(t, o.output, "Permission denied")
			// Nor its own supervisor's memory: with namespaces, PID 1 and
			// the outer process share one, whose reader or writer would
			// take supervision over (without, the outer one is the host).
			// Opened for reading: the read-only mounts would refuse a
			// writer before ptrace's check.
			o, err = r.run(t.Context(), `read -r _ _ _ sup _ < /proc/self/stat; read -r _ _ _ outer _ < /proc/$sup/stat; for p in $sup $outer; do (exec 3</proc/$p/mem) && echo opened the memory of $p; done`, "", os.Environ(), time.Minute, contain.Policy{}, nil)
			require.NoError(t, err)
			assert.NotContains(t, o.output, "opened the memory", "the supervisor is out of ptrace's reach")
			assert.Equal(t, 2, strings.Count(o.output, "Permission denied"), o.output)
			require.NoError(t, other.s.Interrupt(engine.ReasonUserStop))
			other.finish(otherOut)
		})
	}
}

// TestHostDescriptorsNotInherited: a descriptor the host holds without
// close-on-exec (a log its own parent opened for it) does not reach the
// command, which could write through it where the sandbox forbids.
func TestHostDescriptorsNotInherited(t *testing.T) {
	t.Parallel()
	log := filepath.Join(protectedDir(t), "host.log")
	fd, err := syscall.Open(log, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_APPEND, 0o644) // no O_CLOEXEC
	require.NoError(t, err)
	defer syscall.Close(fd)
	cmd := fmt.Sprintf("echo written 2>/dev/null >&%d; ls /proc/self/fd", fd)
	o, err := testRunner(DefaultGrace, 0).run(t.Context(), cmd, "", os.Environ(), time.Minute, contain.Policy{}, nil)
	require.NoError(t, err)
	assert.Empty(t, readFile(t, log), "the command wrote through the host's descriptor")
	assert.Equal(t, []string{"0", "1", "2", "3"}, strings.Fields(o.output), "the command's descriptors (3: ls's own): %q", o.output)
}

// TestSandboxFileMetadata: Landlock does not cover a file's mode, owner,
// times or extended attributes; in a PID namespace read-only mounts refuse
// changing them outside the writable paths, and without one the supervisor
// makes those changes for the command inside them only (a seccomp filter
// hands them over). Outside, by path, by a read-only descriptor, through a
// symlink in the workspace, by the i386 ABI, io_uring, or racing the check
// (the path flipped in memory, a symlink swapped): refused, as is a root
// host's chmod of /dev/null (writable for its data only). Inside: made.
func TestSandboxFileMetadata(t *testing.T) {
	t.Parallel()
	attack := filepath.Join(t.TempDir(), "metadata")
	out, err := exec.Command("cc", "-O2", "-static", "-no-pie", "-pthread", "-o", attack, "testdata/escape/metadata.c").CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, ns := range []bool{true, false} {
		t.Run(fmt.Sprintf("namespaces=%v", ns), func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(protectedDir(t), "file")
			require.NoError(t, os.WriteFile(file, []byte("keep"), 0o644))
			before, err := os.Stat(file)
			require.NoError(t, err)
			py := `import os, sys
for name, change in [("setxattr", lambda f: os.setxattr(f, "user.x", b"1")), ("chown", lambda f: os.chown(f, os.getuid(), os.getgid())),
        ("fchmod", lambda f: os.fchmod(os.open(f, os.O_RDONLY), 0o600)), ("futimens", lambda f: os.utime(os.open(f, os.O_RDONLY), (0, 0))),
        ("chmod /proc/self/fd", lambda f: os.chmod("/proc/self/fd/%d" % os.open(f, os.O_PATH), 0o600))]:
    try:
        change(sys.argv[1]); print(name, "made")
    except OSError as e:
        print(name, "refused:", e.strerror)`
			cmd := fmt.Sprintf(`chmod 600 %[1]s; touch -d 2001-01-01 %[1]s; ln -s %[1]s link && chmod 600 link; python3 -c '%[2]s' %[1]s; %[3]s %[1]s
chmod 666 /dev/null && echo changed /dev/null
echo x > inside && chmod 700 inside && touch -d 2001-01-01 inside && python3 -c '%[2]s' inside`, file, py, attack)
			r := testRunner(DefaultGrace, 0)
			if !ns {
				r.kernel.refuseNamespaces()
			}
			o, err := r.run(t.Context(), cmd, t.TempDir(), os.Environ(), time.Minute, contain.Policy{}, nil)
			require.NoError(t, err)
			if ns {
				assert.True(t, o.report.Sandbox.ReadOnlyMounts, "%+v", o.report)
				assert.Contains(t, o.output, "Read-only file system")
			} else {
				assert.True(t, o.report.Sandbox.MetadataChecked, "%+v", o.report)
				assert.Contains(t, o.output, "Operation not permitted")
			}
			for _, way := range []string{"int 0x80", "path flipped in memory", "symlink swapped"} {
				if way == "int 0x80" && runtime.GOARCH != "amd64" {
					continue
				}
				assert.Contains(t, o.output, way+": refused\n")
			}
			if !ns { // the mounts refuse io_uring's changes too
				assert.Contains(t, o.output, "io_uring: Function not implemented")
			}
			assert.NotContains(t, o.output, "changed")
			assert.Equal(t, 5, strings.Count(o.output, " refused: "), "setxattr, chown, fchmod, futimens and chmod of /proc/self/fd/N (the C library's lchmod) outside: %s", o.output)
			assert.Equal(t, 5, strings.Count(o.output, " made\n"), "and inside: %s", o.output)
			after, err := os.Stat(file)
			require.NoError(t, err)
			assert.Equal(t, before.Mode(), after.Mode(), "chmod outside the writable paths")
			assert.Equal(t, before.ModTime(), after.ModTime(), "touch outside the writable paths")
			_, err = unix.Getxattr(file, "user.x", nil)
			assert.ErrorIs(t, err, unix.ENODATA, "an attribute set outside the writable paths")
			inside, err := os.Stat(filepath.Join(o.workspace, "inside"))
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o600), inside.Mode().Perm(), "fchmod inside (after chmod 700)")
			assert.Equal(t, int64(0), inside.ModTime().Unix(), "futimens inside (after touch -d)")
		})
	}
}

// TestSandboxRootCapabilities: a command of a host run as root makes no
// device node in its workspace (a disk's block device would let it write
// anywhere) and reads no host /proc/PID/environ (the host's secrets), with
// or without a user namespace around it.
func TestSandboxRootCapabilities(t *testing.T) {
	t.Parallel()
	for _, ns := range []bool{true, false} {
		t.Run(fmt.Sprintf("namespaces=%v", ns), func(t *testing.T) {
			t.Parallel()
			r := testRunner(DefaultGrace, 0)
			if !ns {
				r.kernel.refuseNamespaces()
			}
			cmd := fmt.Sprintf("mknod null c 1 3 && echo made a device; cat /proc/%d/environ > /dev/null && echo read the host environment; true", os.Getpid())
			o, err := r.run(t.Context(), cmd, t.TempDir(), os.Environ(), time.Minute, contain.Policy{}, nil)
			require.NoError(t, err)
			assert.NotContains(t, o.output, "made a device")
			assert.NotContains(t, o.output, "read the host environment")
			assert.Contains(t, o.output, "Operation not permitted")
			assert.Contains(t, o.output, "Permission denied")
		})
	}
}

// TestInterruptTouchesOnlyItsSession: Esc in one session while another
// runs the same program ends the first one's tree only.
func TestInterruptTouchesOnlyItsSession(t *testing.T) {
	t.Parallel()
	groups := make(chan int, 2)
	h := newHarness(t, New(tracked(func(pgid int) { groups <- pgid })))
	cmd := "sh -c 'sleep 30 & echo started; sleep 30; wait'"
	var pgids []int
	var outs []<-chan engine.Outcome
	sessions := []*agent{h.session(cmd), h.session(cmd)}
	for _, a := range sessions {
		outs = append(outs, a.start())
		a.waitFor(engine.EventToolProgress, func(ev engine.Event) bool { return strings.Contains(ev.Text, "started") })
		pgids = append(pgids, <-groups)
	}
	require.NoError(t, sessions[0].s.Interrupt(engine.ReasonUserStop))
	sessions[0].waitFor(engine.EventInterrupted, nil)
	requireGroupGone(t, pgids[0])
	live, err := liveMembers(pgids[1])
	require.NoError(t, err)
	assert.GreaterOrEqual(t, len(live), 3, "the other session's supervisor, sh and its sleeps run: %v", live)
	assert.Equal(t, engine.StatusRunning, sessions[1].s.Status())
	require.NoError(t, sessions[1].s.Interrupt(engine.ReasonUserStop))
	for i, a := range sessions {
		require.ErrorIs(t, a.finish(outs[i]).Err, engine.ErrInterrupted)
	}
	requireGroupGone(t, pgids[1])
}

// protectedDir is a directory outside every writable root of the default
// policy (not under the temp dir), removed after the test.
func protectedDir(t *testing.T) string {
	t.Helper()
	base := "/var/tmp"
	if strings.HasPrefix(base, os.TempDir()) {
		t.Skip("no directory outside the temp dir to protect")
	}
	dir, err := os.MkdirTemp(base, "interlock-protected-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// waitForLine waits until the session's progress has n lines and returns
// the n-th as a number.
func waitForLine(t *testing.T, a *agent, n int) int {
	t.Helper()
	var text strings.Builder
	for {
		lines := strings.Split(text.String(), "\n")
		if len(lines) > n {
			pid, err := strconv.Atoi(strings.TrimSpace(lines[n-1]))
			require.NoError(t, err, "progress %q", text.String())
			return pid
		}
		ev := a.waitFor(engine.EventToolProgress, nil)
		text.WriteString(ev.Text)
	}
}

// TestSecretsNotPassed: variables that look like secrets are not in a
// command's environment unless included; the session's own env is.
func TestSecretsNotPassed(t *testing.T) {
	t.Setenv("INTERLOCK_TEST_API_KEY", "sk-secret")
	t.Setenv("INTERLOCK_TEST_GITHUB_TOKEN", "ghp-secret")
	t.Setenv("INTERLOCK_TEST_PLAIN", "visible")
	h := newHarness(t, New(tracked(nil)))
	res := h.session("env", func(o *engine.SessionOptions) { o.Environ = []string{"SESSION_TOKEN=given"} }).run()
	assert.NotContains(t, res.Text, "sk-secret")
	assert.NotContains(t, res.Text, "ghp-secret")
	assert.Contains(t, res.Text, "INTERLOCK_TEST_PLAIN=visible")
	assert.Contains(t, res.Text, "SESSION_TOKEN=given", "the session's env is passed as given")

	h = newHarness(t, New(tracked(nil), WithEnvFilter(EnvFilter{Include: []string{"INTERLOCK_TEST_API_KEY"}})))
	res = h.session("env").run()
	assert.Contains(t, res.Text, "INTERLOCK_TEST_API_KEY=sk-secret")
	assert.NotContains(t, res.Text, "ghp-secret")
}

// TestEnvironmentFromTheEngine: commands inherit the environment where the
// engine reads it (engine.WithEnvironment: the C library's in the Node
// addon), not the Go runtime's copy, and the secret filter still applies.
func TestEnvironmentFromTheEngine(t *testing.T) {
	t.Setenv("INTERLOCK_TEST_GO_COPY", "stale")
	environ := func() []string {
		return []string{"PATH=" + os.Getenv("PATH"), "INTERLOCK_TEST_HOST=now", "INTERLOCK_TEST_HOST_TOKEN=secret-now"}
	}
	h := newHarness(t, New(tracked(nil)), engine.WithEnvironment(engine.Environment{Environ: environ}))
	res := h.session("env").run()
	assert.Contains(t, res.Text, "INTERLOCK_TEST_HOST=now")
	assert.NotContains(t, res.Text, "secret-now", "a secret-looking name is filtered")
	assert.NotContains(t, res.Text, "INTERLOCK_TEST_GO_COPY", "the Go runtime's copy is not read")
}

func TestEnvFilter(t *testing.T) {
	t.Parallel()
	env := []string{"PATH=/bin", "PWD=/x", "OPENAI_API_KEY=a", "AWS_SECRET_ACCESS_KEY=b", "DATABASE_URL=c", "SENTRY_DSN=d", "HOME=/h", "GIT_AUTHOR_NAME=n"}
	tests := []struct {
		name string
		f    EnvFilter
		want []string
	}{
		{"default drops secrets", EnvFilter{}, []string{"PATH=/bin", "PWD=/x", "HOME=/h", "GIT_AUTHOR_NAME=n"}},
		{"include wins", EnvFilter{Include: []string{"OPENAI_API_KEY"}}, []string{"PATH=/bin", "PWD=/x", "OPENAI_API_KEY=a", "HOME=/h", "GIT_AUTHOR_NAME=n"}},
		{"own exclude list", EnvFilter{Exclude: []string{"HOME", "GIT_*"}}, []string{"PATH=/bin", "PWD=/x", "OPENAI_API_KEY=a", "AWS_SECRET_ACCESS_KEY=b", "DATABASE_URL=c", "SENTRY_DSN=d"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.f.filter(env))
		})
	}
}

func TestPolicyValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		p       contain.Policy
		errHas  string
		wantErr bool
	}{
		{"zero", contain.Policy{}, "", false},
		{"unknown mode", contain.Policy{Mode: "strict"}, `bash.sandbox.mode is "strict"`, true},
		{"unknown network", contain.Policy{Network: "maybe"}, `bash.sandbox.network is "maybe"`, true},
		{"relative writable", contain.Policy{Writable: []string{"build"}}, `bash.sandbox.writable[0] is "build": use an absolute path`, true},
		{"missing writable", contain.Policy{Writable: []string{"/nonexistent/x"}}, `bash.sandbox.writable[0] is "/nonexistent/x"`, true},
		{"missing readable", contain.Policy{Readable: []string{"/", "/nonexistent/y"}}, `bash.sandbox.readable[1]`, true},
		{"too many writable", contain.Policy{Writable: slices.Repeat([]string{"/tmp"}, contain.MaxPolicyPaths+1)}, `bash.sandbox.writable has 201 paths; at most 200`, true},
		{"negative max processes", contain.Policy{MaxProcesses: -1}, `bash.sandbox.maxProcesses is -1: use 1 to 4194304 (0 means 4096)`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.p.Validate("bash.sandbox")
			if !tt.wantErr {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, contain.ErrInvalidPolicy)
			assert.ErrorContains(t, err, tt.errHas)
		})
	}
}

// withoutLandlock makes the tool and its supervisors act as if the kernel
// had no Landlock.
func withoutLandlock() Option { return func(c *toolConfig) { c.noLandlock = true } }

// TestSandboxReported: what is in force is in the snapshot and the engine's
// info; when it is degraded (sandbox off, no Landlock, no namespaces) the
// snapshot says what is missing and one warning event per session says so.
func TestSandboxReported(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		opts       []Option
		degraded   bool
		filesystem string
		signals    string
		tree       string
		warnHas    []string
	}{
		{"full", nil, false, "and read-only mounts", "scoped", contain.TreePIDNamespace, nil},
		{"config off", []Option{WithSandbox(contain.Policy{Mode: contain.ModeOff})}, true, "off", "not scoped", contain.TreePIDNamespace, []string{`bash.sandbox.mode is "off"`}},
		{"no namespaces", []Option{withoutNamespaces()}, true, "and metadata checked by the supervisor", "scoped", contain.TreeSubreaper, []string{"no unprivileged user namespaces"}},
		{"no landlock, no namespaces", []Option{withoutLandlock(), withoutNamespaces()}, true, "none (no Landlock)", "not scoped", contain.TreeSubreaper, []string{"no Landlock", "can write anywhere", "no unprivileged user namespaces"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, New(append([]Option{tracked(nil)}, tt.opts...)...))
			info := h.eng.Info()
			require.Len(t, info.Sandbox, 1)
			assert.Equal(t, "Bash", info.Sandbox[0].Tool)

			a := h.session("echo one")
			snap := a.s.Snapshot().Sandbox
			require.NotNil(t, snap, "the snapshot has a sandbox section")
			assert.Equal(t, tt.degraded, snap.Degraded, "%+v", snap)
			assert.Contains(t, snap.Filesystem, tt.filesystem)
			assert.Equal(t, tt.signals, snap.Signals)
			assert.Equal(t, tt.tree, snap.Tree)
			for _, w := range tt.warnHas {
				assert.Contains(t, strings.Join(snap.Warnings, "\n"), w)
			}
			assert.Equal(t, *snap, info.Sandbox[0], "a session without its own policy has the engine's")

			// Two commands in one session: one warning at most.
			args, err := json.Marshal(Args{Command: "echo two"})
			require.NoError(t, err)
			two := h.session("", func(o *engine.SessionOptions) {
				o.Provider = engine.NewScriptedProvider([]engine.ScriptTurn{
					{ToolCalls: []engine.ScriptCall{{Name: "Bash", Args: args}}},
					{ToolCalls: []engine.ScriptCall{{Name: "Bash", Args: args}}},
					{Text: "done"},
				})
			})
			out := two.start()
			warnings := 0
			for {
				ev, err := two.sub.Next(t.Context())
				require.NoError(t, err)
				if ev.Type == engine.EventWarning {
					warnings++
					assert.Contains(t, ev.Text, "Sandbox not fully in force")
					for _, w := range tt.warnHas {
						assert.Contains(t, ev.Text, w)
					}
				}
				if ev.Type.Terminal() {
					break
				}
			}
			require.NoError(t, two.finish(out).Err)
			if tt.degraded {
				assert.Equal(t, 1, warnings, "one warning event per session")
			} else {
				assert.Zero(t, warnings)
			}
		})
	}
}

// TestSandboxRequired: with required: true and no Landlock, no command
// runs, and the result says why.
func TestSandboxRequired(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), "ran")
	h := newHarness(t, New(tracked(nil), withoutLandlock(), WithSandbox(contain.Policy{Required: true})))
	res := h.session("touch " + marker).run()
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text, "Command not run")
	assert.Contains(t, res.Text, "sandbox required")
	assert.NoFileExists(t, marker)
}

// TestSandboxPerSession: a session's own policy replaces the tool's, and
// invalid ones are refused with the field named.
func TestSandboxPerSession(t *testing.T) {
	t.Parallel()
	tool := New(tracked(nil))
	h := newHarness(t, tool)
	a := h.session("echo x > file")
	require.ErrorIs(t, tool.SetSandbox(a.s, contain.Policy{Mode: "strict"}), contain.ErrInvalidPolicy)
	require.NoError(t, tool.SetSandbox(a.s, contain.Policy{Mode: contain.ModeReadOnly}))
	assert.Equal(t, "read-only", a.s.Snapshot().Sandbox.Mode)
	res := a.run()
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text, fmt.Sprintf(`[blocked by the sandbox: writing %q: bash.sandbox.mode is "read-only"`, filepath.Join(a.dir, "file")))
	assert.NoFileExists(t, filepath.Join(a.dir, "file"))
	assert.Equal(t, "workspace-write", h.eng.Info().Sandbox[0].Mode, "other sessions keep the tool's policy")
}

// TestSandboxHint: a failure is put on the sandbox only when the policy
// forbids what the output names and the user could do it without the
// sandbox; ordinary failures get no hint.
func TestSandboxHint(t *testing.T) {
	t.Parallel()
	workspace := t.TempDir()
	protected := protectedDir(t)
	require.NoError(t, os.WriteFile(filepath.Join(protected, "file"), nil, 0o644))
	readable := t.TempDir()
	enforced := contain.Report{Sandbox: contain.Enforced{Filesystem: true, Signals: true, Network: "deny (namespace)"}}
	dead := exec.Command("true")
	require.NoError(t, dead.Run())
	tests := []struct {
		name   string
		output string
		exit   int
		policy contain.Policy
		report contain.Report
		want   []string // all in the hint; none: no hint
	}{
		{"rm outside the workspace", "rm: cannot remove '" + protected + "/file': Permission denied", 1, contain.Policy{}, enforced,
			[]string{`writing "` + protected + `/file"`, `bash.sandbox.mode "workspace-write" allows writes only in ` + workspace, "bash.sandbox.writable"}},
		{"GNU quotes", "mkdir: cannot create directory ‘" + protected + "/d’: Permission denied", 1, contain.Policy{}, enforced, []string{`writing "` + protected + `/d"`}},
		{"python", "PermissionError: [Errno 13] Permission denied: '" + protected + "/x.txt'", 1, contain.Policy{}, enforced, []string{`writing "` + protected + `/x.txt"`}},
		{"redirect in read-only mode", "bash: line 1: out.txt: Permission denied", 1, contain.Policy{Mode: contain.ModeReadOnly}, enforced,
			[]string{`writing "` + filepath.Join(workspace, "out.txt") + `"`, `bash.sandbox.mode is "read-only"`}},
		{"denied inside the workspace is not the sandbox", "bash: line 1: out.txt: Permission denied", 1, contain.Policy{}, enforced, nil},
		{"writable extra path is not the sandbox", "touch: cannot touch '" + protected + "/f': Permission denied", 1, contain.Policy{Writable: []string{protected}}, enforced, nil},
		{"success gets no hint", "rm: cannot remove '" + protected + "/file': Permission denied", 0, contain.Policy{}, enforced, nil},
		{"no Landlock in force: not the sandbox", "rm: cannot remove '" + protected + "/file': Permission denied", 1, contain.Policy{}, contain.Report{}, nil},
		{"a read outside readable", "cat: " + protected + "/file: Permission denied", 1, contain.Policy{Readable: []string{readable}}, enforced,
			[]string{`reading "` + protected + `/file"`, "bash.sandbox.readable limits reads to " + readable}},
		{"signal to the host", fmt.Sprintf("bash: line 1: kill: (%d) - Operation not permitted", os.Getpid()), 1, contain.Policy{}, enforced,
			[]string{fmt.Sprintf("signalling process %d: the sandbox scopes signals", os.Getpid())}},
		{"signal to a process that is gone", fmt.Sprintf("bash: line 1: kill: (%d) - Operation not permitted", dead.Process.Pid), 1, contain.Policy{}, enforced, nil},
		{"network denied", "curl: (6) Could not resolve host: example.com", 6, contain.Policy{Network: contain.NetworkDeny}, enforced, []string{`network access: bash.sandbox.network is "deny"`}},
		{"other failure", "make: *** No rule to make target 'x'.  Stop.", 2, contain.Policy{}, enforced, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hint := sandboxHint(outcome{output: tt.output, exitCode: tt.exit, workspace: workspace, report: tt.report}, tt.policy)
			if tt.want == nil {
				assert.Empty(t, hint)
				return
			}
			assert.True(t, strings.HasPrefix(hint, "[blocked by the sandbox: "), hint)
			for _, w := range tt.want {
				assert.Contains(t, hint, w)
			}
		})
	}
}

// TestSupervisorByHand: interlock-run started without the tool's control
// socket or with bad arguments says what is wrong and runs nothing.
func TestSupervisorByHand(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), "ran")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no control socket", []string{"--", "bash", "touch " + marker}, "no control socket on fd 3"},
		{"unknown argument", []string{"--color", "--", "bash", "touch " + marker}, "unknown or incomplete argument --color"},
		{"no command", []string{"--mode", "off"}, "usage: interlock-run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, err := exec.Command(defaultSupervisor(), tt.args...).CombinedOutput()
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit)
			assert.Equal(t, 2, exit.ExitCode())
			assert.Contains(t, string(out), tt.want)
			assert.NoFileExists(t, marker)
		})
	}
}

// TestCommandSignalsReset: a command starts with no signal ignored or
// blocked, even when its host ignores SIGPIPE (Node does, and ignored
// signals survive exec): `yes | head` must end by SIGPIPE, not by errors.
// GNU make starts its children with 32 and 33 ignored too, which glibc's
// signal() can't reset (set here by the system call: Go leaves them alone).
func TestCommandSignalsReset(t *testing.T) {
	signal.Ignore(syscall.SIGPIPE)
	defer signal.Reset(syscall.SIGPIPE)
	for _, sig := range []uintptr{32, 33} {
		var old, ign [4]uint64 // the kernel's sigaction: handler, flags, restorer, mask
		ign[0] = 1             // SIG_IGN
		_, _, errno := syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, sig, uintptr(unsafe.Pointer(&ign)), uintptr(unsafe.Pointer(&old)), 8, 0, 0)
		require.Zero(t, errno, "ignore signal %d", sig)
		defer syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, sig, uintptr(unsafe.Pointer(&old)), 0, 8, 0, 0)
	}
	o, err := testRunner(DefaultGrace, 0).run(t.Context(), "grep -E '^Sig(Ign|Blk)' /proc/self/status", "", os.Environ(), time.Minute, contain.Policy{}, nil)
	require.NoError(t, err)
	assert.Contains(t, o.output, "SigBlk:\t0000000000000000")
	assert.Contains(t, o.output, "SigIgn:\t0000000000000000")
}

// TestNetworkDeny: with network "deny" a command cannot connect to a
// server the host runs, over TCP (a network namespace, or Landlock's TCP
// rules without namespaces) or over a named unix socket (docker.sock-style:
// the file system's sockets are in no network namespace and Landlock does
// not cover connecting to them; a seccomp filter refuses the socket),
// however it makes the socket (the family's upper half set, the i386 ABI,
// a datagram pair, io_uring), nor send UDP (which Landlock does not cover
// without a namespace); with "allow" it can. An abstract unix socket of the
// host's is out of reach either way (Landlock's scope).
func TestNetworkDeny(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	unixLn, err := net.Listen("unix", filepath.Join(t.TempDir(), "host.sock"))
	require.NoError(t, err)
	t.Cleanup(func() { unixLn.Close() })
	// Abstract sockets are scoped to the command by Landlock (ABI 6) even
	// when the network is allowed.
	abstractLn, err := net.Listen("unix", fmt.Sprintf("@interlock-test-%d-%d", os.Getpid(), time.Now().UnixNano()))
	require.NoError(t, err)
	t.Cleanup(func() { abstractLn.Close() })
	for _, l := range []net.Listener{ln, unixLn, abstractLn} {
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				c.Write([]byte("host secret\n"))
				c.Close()
			}
		}()
	}
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { udp.Close() })
	sockets := filepath.Join(t.TempDir(), "sockets")
	out, err := exec.Command("cc", "-O2", "-o", sockets, "testdata/escape/sockets.c").CombinedOutput()
	require.NoError(t, err, "%s", out)
	connect := fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo connected; %s %s %d %s", ln.Addr().(*net.TCPAddr).Port, sockets, unixLn.Addr(), udp.LocalAddr().(*net.UDPAddr).Port, abstractLn.Addr())
	for _, ns := range []bool{true, false} {
		for _, network := range []contain.Network{contain.NetworkAllow, contain.NetworkDeny} {
			t.Run(fmt.Sprintf("namespaces=%v/%s", ns, network), func(t *testing.T) {
				r := testRunner(DefaultGrace, 0)
				if !ns {
					r.kernel.refuseNamespaces()
				}
				o, err := r.run(t.Context(), connect, "", os.Environ(), time.Minute, contain.Policy{Network: network}, nil)
				require.NoError(t, err)
				// A datagram sent on loopback is queued before sendto returns.
				rc, err := udp.(*net.UDPConn).SyscallConn()
				require.NoError(t, err)
				n := 0
				require.NoError(t, rc.Read(func(fd uintptr) bool {
					n, _, _ = unix.Recvfrom(int(fd), make([]byte, 64), unix.MSG_DONTWAIT)
					return true
				}))
				assert.Equal(t, network == contain.NetworkAllow, n > 0, "the host's UDP server got a datagram")
				if network == contain.NetworkAllow {
					assert.Equal(t, 0, o.exitCode, o.output)
					assert.Contains(t, o.output, "connected")
					assert.Contains(t, o.output, "socket: host secret", "the attack connects when the network is allowed")
					assert.Contains(t, o.output, "abstract: refused (connect: ", "abstract sockets outside the command are scoped away")
					return
				}
				assert.NotContains(t, o.output, "connected")
				assert.NotContains(t, o.output, "secret")
				for _, way := range []string{"socket", "socket, family's upper half set", "int 0x80", "datagram socketpair"} {
					if way == "int 0x80" && runtime.GOARCH != "amd64" {
						continue
					}
					assert.Contains(t, o.output, way+": refused (", "%s", o.output)
				}
				assert.Contains(t, o.output, "stream socketpair: made", "pipes to child processes (Node's, libuv's) still work")
				assert.Contains(t, o.output, "udp: refused (")
				assert.Contains(t, o.output, "sctp: refused")
				assert.Contains(t, o.output, "io_uring: Function not implemented")
				want := "deny (namespace, other sockets refused)"
				if !ns {
					want = "deny (tcp, other sockets refused)"
				}
				assert.Equal(t, want, o.report.Sandbox.Network)
			})
		}
	}
}

// TestSupervisorKilled: the supervisor itself killed by SIGKILL (the OOM
// killer, a user): in a PID namespace its PID 1 dies with it
// (PDEATHSIG), and with PID 1 the kernel kills the whole namespace: nothing
// of the command survives, and the tool reports the supervisor's failure.
func TestSupervisorKilled(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pids")
	require.NoError(t, os.WriteFile(pidFile, nil, 0o644))
	r := testRunner(DefaultGrace, 0)
	supervisors := make(chan int, 1)
	r.started = func(pid int) { startedGroups.add(pid); supervisors <- pid }
	progress := newProgressLog("started")
	cmd := fmt.Sprintf("export P=%s; %s\nuntil [ -s $P ]; do sleep 0.01; done; echo started; sleep 30", pidFile, escapes[0].script)
	go func() {
		pid := <-supervisors
		<-progress.seen
		syscall.Kill(pid, syscall.SIGKILL)
	}()
	o, err := r.run(t.Context(), cmd, "", os.Environ(), time.Minute, contain.Policy{}, progress.add)
	require.ErrorIs(t, err, contain.ErrNoSupervisor, "output %q", o.output)
	assert.ErrorContains(t, err, "exited without a report")
	deadline := time.Now().Add(5 * time.Second)
	for _, f := range strings.Fields(readFile(t, pidFile)) {
		pid, err := strconv.Atoi(f)
		require.NoError(t, err)
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond) // the kernel's kill of the namespace is asynchronous to us
		}
		if alive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("process %d outlived its killed supervisor", pid)
		}
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	require.NoError(t, err)
	return string(b)
}

// TestLargestCommand: a command of MaxCommandBytes reaches the shell whole
// through the supervisor's arguments.
func TestLargestCommand(t *testing.T) {
	t.Parallel()
	prefix, suffix := ": ", "; echo ok"
	cmd := prefix + strings.Repeat("x", MaxCommandBytes-len(prefix)-len(suffix)) + suffix
	require.Len(t, cmd, MaxCommandBytes)
	require.NoError(t, validate(cmd))
	o, err := testRunner(DefaultGrace, 0).run(t.Context(), cmd, "", os.Environ(), time.Minute, contain.Policy{}, nil)
	require.NoError(t, err)
	assert.Equal(t, "ok\n", o.output)
}

// TestNoControllingTerminal: a command of a host that runs in a terminal
// (the TUI) gets no controlling terminal, in a PID namespace and as a
// subreaper: through /dev/tty it could type into the user's terminal with
// TIOCSTI (keys the TUI then reads as the user's: an approval), write
// escape sequences past the TUI's printable(), or wait for a password.
func TestNoControllingTerminal(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"ns", "subreaper"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			master, slave := openPTY(t)
			// TIOCSTI is 0x5412 on every Linux architecture but alpha,
			// mips, powerpc and sparc.
			cmd := `exec 3<>/dev/tty && echo has a terminal; perl -e 'open(my $t, "+<", "/dev/tty") or die "tty: $!\n"; ioctl($t, 0x5412, $_) or die "TIOCSTI: $!\n" for split //, "typed by the command\n"'`
			host := exec.Command(os.Args[0], "-test.run=^$")
			host.Env = append(os.Environ(), hostModeVar+"=tty", "INTERLOCK_TEST_TREE="+mode, "INTERLOCK_TEST_COMMAND="+cmd)
			host.Stdin, host.Stdout, host.Stderr = slave, slave, slave
			host.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
			require.NoError(t, host.Start())
			slave.Close()
			defer host.Wait()
			defer host.Process.Kill()
			lines := make(chan string, 64)
			go func() {
				defer close(lines)
				var pending []byte
				b := make([]byte, 4096)
				for {
					n, err := master.Read(b)
					pending = append(pending, b[:n]...)
					for {
						i := bytes.IndexByte(pending, '\n')
						if i < 0 {
							break
						}
						lines <- strings.TrimRight(string(pending[:i]), "\r")
						pending = pending[i+1:]
					}
					if err != nil {
						return
					}
				}
			}()
			var out []string
			next := func(want string) {
				t.Helper()
				timeout := time.After(20 * time.Second)
				for {
					select {
					case line, ok := <-lines:
						require.True(t, ok, "the host ended before %q: %q", want, out)
						out = append(out, line)
						if line == want {
							return
						}
					case <-timeout:
						t.Fatalf("no %q from the host: %q", want, out)
					}
				}
			}
			next("command done")
			// The user's next key, after what the command may have typed.
			_, err := master.Write([]byte("end\n"))
			require.NoError(t, err)
			next("host end")
			text := strings.Join(out, "\n")
			assert.Contains(t, text, "/dev/tty: No such device or address", "the command has no controlling terminal")
			assert.NotContains(t, text, "has a terminal")
			assert.NotContains(t, text, "host read: typed by the command", "the command typed into the host's terminal")
		})
	}
}

// openPTY opens a pseudo-terminal pair, closed after the test.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	require.NoError(t, err)
	t.Cleanup(func() { master.Close() })
	fd := int(master.Fd())
	require.NoError(t, unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0))
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	require.NoError(t, err)
	slave, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err)
	t.Cleanup(func() { slave.Close() })
	return master, slave
}

// runAsTerminalHost runs $INTERLOCK_TEST_COMMAND as a host in a terminal
// does (its stdin, the terminal, is its controlling one), prints its output
// and "command done", then prints every line it reads from the terminal
// as "host read: LINE" up to "end", and "host end".
func runAsTerminalHost() {
	r := runner{shell: "bash", grace: DefaultGrace, supervisor: defaultSupervisor(), kernel: &kernel{}}
	if os.Getenv("INTERLOCK_TEST_TREE") == "subreaper" {
		r.kernel.refuseNamespaces()
	}
	o, err := r.run(context.Background(), os.Getenv("INTERLOCK_TEST_COMMAND"), "", os.Environ(), time.Minute, contain.Policy{}, nil)
	fmt.Printf("%s\nerr %v\ncommand done\n", o.output, err)
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() && sc.Text() != "end" {
		fmt.Printf("host read: %s\n", sc.Text())
	}
	fmt.Println("host end")
	os.Exit(0)
}

// TestProcessLimit: a fork bomb in a command gets EAGAIN past
// bash.sandbox.max_processes (RLIMIT_NPROC in the command's user
// namespace) instead of taking the machine, and the result names the
// limit. The kernel does not hold root to it, so the host runs as nobody
// (this test binary, re-run), and the report of a root host says that
// processes are not limited. The command, root of its user namespace,
// cannot raise the limit (CAP_SYS_RESOURCE of the host's namespace).
func TestProcessLimit(t *testing.T) {
	t.Parallel()
	if os.Getuid() != 0 {
		t.Skip("runs its host as nobody, which needs root")
	}
	assert.Contains(t, New().Sandbox(nil).Processes, "not limited (the host runs as root")
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		require.NoError(t, os.Chmod(d, 0o755)) // for nobody
	}
	copyExec := func(src string) string {
		b, err := os.ReadFile(src)
		require.NoError(t, err)
		dst := filepath.Join(dir, filepath.Base(src))
		require.NoError(t, os.WriteFile(dst, b, 0o755))
		return dst
	}
	self, sup := copyExec(os.Args[0]), copyExec(defaultSupervisor())
	work := filepath.Join(dir, "work")
	require.NoError(t, os.Mkdir(work, 0o777))
	require.NoError(t, os.Chmod(work, 0o777))
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	host := exec.CommandContext(ctx, self, "-test.run=^$")
	host.Dir = work
	host.Env = append(os.Environ(), hostModeVar+"=nproc", "INTERLOCK_RUN="+sup, "HOME="+work)
	host.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := host.CombinedOutput()
	require.NoError(t, err, "%s", out)
	i := bytes.Index(out, []byte("forked "))
	require.GreaterOrEqual(t, i, 0, "every fork succeeded: %s", out)
	var forked int
	_, err = fmt.Sscanf(string(out[i:]), "forked %d", &forked)
	require.NoError(t, err, "%s", out)
	assert.Less(t, forked, 64, "%s", out)
	assert.Greater(t, forked, 32, "%s", out)
	assert.Contains(t, string(out), "Resource temporarily unavailable")
	assert.Contains(t, string(out), "[blocked by the sandbox: starting processes: a command may run 64 processes and threads at once (bash.sandbox.maxProcesses); raise it to allow more]")
	assert.Contains(t, string(out), "report max_processes 64")
	assert.NotContains(t, string(out), "raised the limit", "root of its user namespace, the command cannot raise the limit")
}

// runAsProcessLimitedHost tries to raise the limit, then runs a fork bomb
// (500 children at most) under a limit of 64 and prints its output, the result's hint and the limit the
// report says was in force.
func runAsProcessLimitedHost() {
	r := runner{shell: "bash", grace: DefaultGrace, supervisor: defaultSupervisor(), kernel: &kernel{}}
	policy := contain.Policy{MaxProcesses: 64}
	cmd := `ulimit -u 100000 2>/dev/null && echo raised the limit; perl -e 'for my $n (0..500) { my $p = fork(); if (!defined $p) { print "forked $n: $!\n"; exit 1 } if (!$p) { sleep 30; exit } }'`
	o, err := r.run(context.Background(), cmd, "", os.Environ(), time.Minute, policy, nil)
	fmt.Printf("%s\nerr %v\n%s\nreport max_processes %d\n", o.output, err, sandboxHint(o, policy), o.report.Sandbox.MaxProcesses)
	os.Exit(0)
}

// TestOtherProcessesOutOfReach: a command cannot change the resource
// limits, priority, scheduling, CPUs or I/O priority of a process of the
// user's outside its tree (the host's: prlimit --cpu=1 would kill it, chrt
// -i starve it; Landlock does not cover them), in a PID namespace (the
// host's pid is not in it) and as a subreaper (a seccomp filter refuses
// them for another pid); it still can for itself, but, from a host run as
// root, not take a CPU in real time (a busy loop at SCHED_FIFO starves the
// machine) nor raise its hard limits (CAP_SYS_NICE and CAP_SYS_RESOURCE
// dropped).
func TestOtherProcessesOutOfReach(t *testing.T) {
	t.Parallel()
	for _, ns := range []bool{true, false} {
		t.Run(fmt.Sprintf("namespaces=%v", ns), func(t *testing.T) {
			t.Parallel()
			target := exec.Command("sleep", "60")
			require.NoError(t, target.Start())
			defer target.Wait()
			defer target.Process.Kill()
			pid := target.Process.Pid
			limits := readFile(t, fmt.Sprintf("/proc/%d/limits", pid))
			cmd := fmt.Sprintf(`prlimit --pid %[1]d --nofile=5:5 && echo changed its limits; renice -n 19 -p %[1]d && echo changed its priority
taskset -p 1 %[1]d && echo changed its CPUs; chrt -i -p 0 %[1]d && echo changed its scheduling; ionice -c 3 -p %[1]d && echo changed its I/O priority
chrt -f 1 true && echo changed its own scheduling to real time; (ulimit -Hn $(( $(ulimit -Hn) + 1 )) && echo changed its own hard limit)
nice -n 5 sh -c 'echo own nice $(cut -d" " -f19 /proc/self/stat)'`, pid)
			r := testRunner(DefaultGrace, 0)
			if !ns {
				r.kernel.refuseNamespaces()
			}
			o, err := r.run(t.Context(), cmd, "", os.Environ(), time.Minute, contain.Policy{}, nil)
			require.NoError(t, err)
			assert.NotContains(t, o.output, "changed its")
			assert.Contains(t, o.output, "own nice 5")
			assert.Equal(t, limits, readFile(t, fmt.Sprintf("/proc/%d/limits", pid)))
			stat := strings.Fields(readFile(t, fmt.Sprintf("/proc/%d/stat", pid)))
			assert.Equal(t, "0", stat[18], "its nice")
			assert.Equal(t, "0", stat[40], "its scheduling policy")
		})
	}
}

// TestRunawayFirstToGo: the kernel's OOM killer takes a command's processes
// first (oom_score_adj 1000), not the host or the user's programs, in both
// trees; the command cannot lower it (/proc is not writable for it).
func TestRunawayFirstToGo(t *testing.T) {
	t.Parallel()
	for _, ns := range []bool{true, false} {
		r := testRunner(DefaultGrace, 0)
		if !ns {
			r.kernel.refuseNamespaces()
		}
		o, err := r.run(t.Context(), "sh -c 'cat /proc/self/oom_score_adj'; { echo 0 > /proc/self/oom_score_adj; } 2>/dev/null && echo lowered", "", os.Environ(), time.Minute, contain.Policy{}, nil)
		require.NoError(t, err)
		assert.Equal(t, "1000\n", o.output, "namespaces=%v", ns)
	}
}

// TestIoUring: io_uring's operations, which seccomp does not see, do not
// step around the sandbox: in a PID namespace (no filter) Landlock and the
// read-only mounts refuse creating a file and setting an attribute outside
// the writable paths through the ring; without one the filter refuses the
// ring itself (its metadata would not reach the supervisor).
func TestIoUring(t *testing.T) {
	t.Parallel()
	attack := filepath.Join(t.TempDir(), "iouring")
	out, err := exec.Command("cc", "-O2", "-o", attack, "testdata/escape/iouring.c").CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, ns := range []bool{true, false} {
		t.Run(fmt.Sprintf("namespaces=%v", ns), func(t *testing.T) {
			t.Parallel()
			dir := protectedDir(t)
			file := filepath.Join(dir, "file")
			require.NoError(t, os.WriteFile(file, nil, 0o644))
			r := testRunner(DefaultGrace, 0)
			if !ns {
				r.kernel.refuseNamespaces()
			}
			o, err := r.run(t.Context(), fmt.Sprintf("%s %s %s", attack, filepath.Join(dir, "new"), file), t.TempDir(), os.Environ(), time.Minute, contain.Policy{}, nil)
			require.NoError(t, err)
			if ns {
				assert.Contains(t, o.output, "openat: refused (")
				assert.Contains(t, o.output, "setxattr: refused (")
			} else {
				assert.Equal(t, "io_uring: Function not implemented\n", o.output)
			}
			assert.NoFileExists(t, filepath.Join(dir, "new"))
			_, err = unix.Getxattr(file, "user.interlock", nil)
			assert.ErrorIs(t, err, unix.ENODATA)
		})
	}
}
