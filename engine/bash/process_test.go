package bash

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine/bash/contain"
)

// progressLog collects progress chunks and signals when a marker appears.
type progressLog struct {
	mu     sync.Mutex
	text   strings.Builder
	marker string
	seen   chan struct{}
	once   sync.Once
}

func newProgressLog(marker string) *progressLog {
	return &progressLog{marker: marker, seen: make(chan struct{})}
}

func (p *progressLog) add(chunk string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.text.WriteString(chunk)
	if p.marker != "" && strings.Contains(p.text.String(), p.marker) {
		p.once.Do(func() { close(p.seen) })
	}
}

func (p *progressLog) String() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.text.String()
}

// requireGroupGone checks /proc: no process of the command is left in
// group pgid, and the supervisor's processes (its leader, and in a PID
// namespace the namespace's PID 1), which exit right after the report,
// are gone soon after.
func requireGroupGone(t *testing.T, pgid int) {
	t.Helper()
	live, err := liveMembers(pgid)
	require.NoError(t, err)
	require.Empty(t, slices.DeleteFunc(live, isSupervisor), "live processes left in group %d", pgid)
	deadline := time.Now().Add(2 * time.Second)
	for {
		live, err := liveMembers(pgid)
		require.NoError(t, err)
		if len(live) == 0 {
			return
		}
		require.True(t, time.Now().Before(deadline), "the supervisor's processes %v did not exit after its report", live)
		time.Sleep(time.Millisecond)
	}
}

// isSupervisor reports whether pid is an interlock-run process, or was
// one: a process gone since it was listed is not left over. Gone reads as
// ENOENT, or as ESRCH when it was reaped between the open and the read:
// the supervisor exiting right after its report (1 in ~600 runs under load).
func isSupervisor(pid int) bool {
	comm, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	return errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ESRCH) || string(comm) == "interlock-run\n"
}

// TestRunStopKillsGroup cancels running commands and checks that the whole
// process group, grandchildren included, is gone when run returns.
func TestRunStopKillsGroup(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, cmd   string
		minDuration time.Duration // SIGTERM ignored: SIGKILL after the grace
	}{
		{"background and foreground child", "sh -c 'sleep 30 & echo started; sleep 30; wait' & wait", 0},
		{"child ignores SIGTERM", "trap '' TERM; sh -c 'sleep 30 & sleep 30; wait' & echo started; wait", 100 * time.Millisecond},
		{"shell ignores SIGTERM, grandchild too", "trap '' TERM; (trap '' TERM; sleep 30) & echo started; sleep 30", 100 * time.Millisecond},
		{"stopped process", "sleep 30 & kill -STOP $!; echo started; wait", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var pgid int
			r := testRunner(100*time.Millisecond, 0)
			r.started = func(g int) { startedGroups.add(g); pgid = g }
			progress := newProgressLog("started")
			ctx, cancel := context.WithCancelCause(t.Context())
			stopped := make(chan time.Time, 1)
			go func() {
				select {
				case <-progress.seen:
				case <-time.After(10 * time.Second):
				}
				stopped <- time.Now()
				cancel(errors.New("test stop"))
			}()
			_, err := r.run(ctx, tt.cmd, "", os.Environ(), time.Minute, contain.Policy{}, progress.add)
			elapsed := time.Since(<-stopped)
			require.Error(t, err)
			assert.ErrorContains(t, err, "test stop")
			assert.Contains(t, progress.String(), "started")
			requireGroupGone(t, pgid)
			assert.GreaterOrEqual(t, elapsed, tt.minDuration)
			assert.Less(t, elapsed, 3*time.Second)
		})
	}
}

func TestRunOutcome(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, cmd string
		timeout   time.Duration
		limit     int
		check     func(t *testing.T, o outcome)
	}{
		{"exit code", "echo out; echo err >&2; exit 3", time.Minute, 0, func(t *testing.T, o outcome) {
			assert.Equal(t, 3, o.exitCode)
			assert.Equal(t, "out\nerr\n", o.output)
		}},
		{"timeout", "echo before; sleep 30; echo after", time.Second, 0, func(t *testing.T, o outcome) {
			assert.True(t, o.timedOut)
			assert.Equal(t, "before\n", o.output)
		}},
		{"output cap keeps head and tail", "seq 1 100000", time.Minute, 1000, func(t *testing.T, o outcome) {
			assert.True(t, strings.HasPrefix(o.output, "1\n2\n3\n"), o.output[:20])
			assert.True(t, strings.HasSuffix(o.output, "99999\n100000\n"))
			assert.Regexp(t, `\n\.\.\. \[\d+ bytes omitted\] \.\.\.\n`, o.output)
			assert.Less(t, len(o.output), 1100)
		}},
		{"killed by a signal", "kill -KILL $$", time.Minute, 0, func(t *testing.T, o outcome) {
			assert.Equal(t, -1, o.exitCode)
			assert.Equal(t, "killed", o.signal)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o, err := testRunner(100*time.Millisecond, tt.limit).run(t.Context(), tt.cmd, "", os.Environ(), tt.timeout, contain.Policy{}, nil)
			require.NoError(t, err)
			tt.check(t, o)
		})
	}
}

// TestRunEndsLeftovers: background processes a command leaves behind are
// killed when it exits, and run does not wait for them to close the pipe.
func TestRunEndsLeftovers(t *testing.T) {
	t.Parallel()
	var pgid int
	r := testRunner(100*time.Millisecond, 0)
	r.started = func(g int) { startedGroups.add(g); pgid = g }
	start := time.Now()
	o, err := r.run(t.Context(), "sleep 30 & sleep 30 & echo left two behind", "", os.Environ(), time.Minute, contain.Policy{}, nil)
	require.NoError(t, err)
	assert.Equal(t, 0, o.exitCode)
	assert.Equal(t, "left two behind\n", o.output)
	assert.Less(t, time.Since(start), 5*time.Second)
	requireGroupGone(t, pgid)
}

// TestRunEscapedProcessIsKilled: a process that left the group (setsid)
// and keeps the output pipe open is killed with the command's tree; run
// returns promptly.
func TestRunEscapedProcessIsKilled(t *testing.T) {
	t.Parallel()
	fifo := t.TempDir() + "/escaped"
	// The escaped process writes its pid to the fifo once it has its own
	// session; cat waits for that, so the command ends after the escape.
	// It writes its host pid ($$ is its pid in the command's PID namespace):
	// the parent pid of its cut.
	cmd := fmt.Sprintf(`mkfifo %[1]s; setsid sh -c 'cut -d" " -f4 /proc/self/stat > %[1]s; exec sleep 30' & cat %[1]s`, fifo)
	start := time.Now()
	o, err := testRunner(100*time.Millisecond, 0).run(t.Context(), cmd, "", os.Environ(), time.Minute, contain.Policy{}, nil)
	require.NoError(t, err)
	assert.Less(t, time.Since(start), 5*time.Second)
	pid, err := strconv.Atoi(strings.TrimSpace(o.output))
	require.NoError(t, err, "output %q", o.output)
	state, _, alive := readStat(pid)
	if alive && state != 'Z' && state != 'X' {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("the escaped process %d (state %c) outlived the command", pid, state)
	}
}

func TestRunDirAndEnv(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	o, err := testRunner(0, 0).run(t.Context(), `pwd; echo "$INTERLOCK_TEST_VAR"`, dir, append(os.Environ(), "INTERLOCK_TEST_VAR=from-session"), time.Minute, contain.Policy{}, nil)
	require.NoError(t, err)
	assert.Equal(t, dir+"\nfrom-session\n", o.output)
}

func TestRunStreamsWholeCharacters(t *testing.T) {
	t.Parallel()
	var chunks []string
	var mu sync.Mutex
	// 40000 three-byte characters cross the 32 KiB read size mid-character.
	_, err := testRunner(0, 0).run(t.Context(), `printf '€%.0s' $(seq 1 40000)`, "", os.Environ(), time.Minute, contain.Policy{}, func(c string) {
		mu.Lock()
		defer mu.Unlock()
		chunks = append(chunks, c)
	})
	require.NoError(t, err)
	mu.Lock()
	defer mu.Unlock()
	for _, c := range chunks {
		assert.True(t, strings.Trim(c, "€") == "", "chunk splits a character")
	}
	assert.Equal(t, strings.Repeat("€", 40000), strings.Join(chunks, ""))
}

// A reader scheduled late (a loaded machine, a slow progress consumer)
// still gets all of the output: once the tree is gone, what is left in the
// pipe is read to its end. The reader used to be given 50 ms after the
// command ended; past that its next read failed and the rest was lost.
func TestRunKeepsWhatALateReaderHasNotRead(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "go-on")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	r := testRunner(0, 0)
	pids := make(chan int, 1)
	started := r.started
	r.started = func(pid int) { started(pid); pids <- pid }
	first := true
	o, err := r.run(t.Context(), `printf first; read x < `+fifo+`; printf second`, "", os.Environ(), time.Minute, contain.Policy{}, func(c string) {
		if !first {
			return
		}
		first = false
		require.NoError(t, os.WriteFile(fifo, []byte("x\n"), 0)) // the command goes on, writes "second" and ends
		pid := <-pids
		for syscall.Kill(pid, 0) == nil { // until its supervisor is reaped
			time.Sleep(time.Millisecond)
		}
		time.Sleep(200 * time.Millisecond) // this reader is late
	})
	require.NoError(t, err)
	assert.Equal(t, "firstsecond", o.output)
}

func TestCappedBuffer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		limit  int
		writes []string
		want   string
	}{
		{10, []string{"abc"}, "abc"},
		{10, []string{"0123456789"}, "0123456789"},
		{10, []string{"01234", "56789", "ABCDE"}, "01234\n... [5 bytes omitted] ...\nABCDE"},
		{10, []string{"0123456789ABCDEFGHIJ", "KL"}, "01234\n... [12 bytes omitted] ...\nHIJKL"},
		{4, []string{"a", "b", "c", "d", "e", "f"}, "ab\n... [2 bytes omitted] ...\nef"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.writes), func(t *testing.T) {
			t.Parallel()
			b := newCappedBuffer(tt.limit)
			for _, w := range tt.writes {
				b.Write([]byte(w))
			}
			assert.Equal(t, tt.want, b.String())
		})
	}
}

func TestParseStat(t *testing.T) {
	t.Parallel()
	state, pgid, ok := parseStat([]byte("123 (a (weird) name) S 1 456 456 0 -1 4194560"))
	require.True(t, ok)
	assert.Equal(t, byte('S'), state)
	assert.Equal(t, 456, pgid)
	_, _, ok = parseStat([]byte("garbage"))
	assert.False(t, ok)
}
