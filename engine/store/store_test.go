package store_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"golang.org/x/sys/unix"
	_ "modernc.org/sqlite"

	"github.com/interlock-dev/interlock/engine/store"
)

// childEnv makes the test binary a helper process (see TestMain).
const childEnv = "INTERLOCK_STORE_TEST_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "hold": // open the store, say so, hold it until stdin closes
		st, err := store.Open(context.Background(), os.Args[len(os.Args)-1])
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("opened")
		bufio.NewReader(os.Stdin).ReadString('\n')
		st.Close()
		os.Exit(0)
	case "handoff": // open the store, hand its lock to a child that lives until stdin closes, wait to be killed
		path := os.Args[len(os.Args)-1]
		if _, err := store.Open(context.Background(), path); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		child := exec.Command("sh", "-c", "read x")
		child.Stdin = os.Stdin
		child.ExtraFiles = []*os.File{lockFile(path + ".lock")}
		if err := child.Start(); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("opened")
		select {}
	case "readonly": // in a user+mount namespace: make the dir read-only, open
		dir := os.Args[len(os.Args)-1]
		if err := roBind(dir); err != nil {
			fmt.Println("setup:", err)
			os.Exit(2)
		}
		_, err := store.Open(context.Background(), filepath.Join(dir, "s.db"))
		fmt.Println("error:", err)
		os.Exit(0)
	case "full": // in a user+mount namespace: a store on a small tmpfs, filled up
		fmt.Println(fillDisk(os.Args[len(os.Args)-1]))
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// lockFile returns this process's open file of lockPath (the one its store locked).
func lockFile(lockPath string) *os.File {
	fds, _ := os.ReadDir("/proc/self/fd")
	for _, fd := range fds {
		if target, _ := os.Readlink("/proc/self/fd/" + fd.Name()); target == lockPath {
			n, _ := strconv.Atoi(fd.Name())
			return os.NewFile(uintptr(n), lockPath)
		}
	}
	panic("no open file of " + lockPath)
}

func roBind(dir string) error {
	if err := unix.Mount("", "/", "", unix.MS_PRIVATE|unix.MS_REC, ""); err != nil {
		return err
	}
	if err := unix.Mount(dir, dir, "", unix.MS_BIND, ""); err != nil {
		return err
	}
	return unix.Mount("", dir, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY, "")
}

func open(t *testing.T, path string) *store.Store {
	t.Helper()
	st, err := store.Open(t.Context(), path)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	return st
}

func raw(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// Everything written comes back after the store is closed and opened again.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.db")
	st, err := store.Open(t.Context(), path)
	require.NoError(t, err)
	at := time.UnixMilli(1700000000123)
	in := &store.Interruption{Run: 1, Reason: "user_stop", Label: "Stopped by you", At: at, Detail: raw(map[string]string{"reason": "user_stop"})}
	require.NoError(t, st.Update(t.Context(), func(tx *store.Tx) {
		tx.CreateSession(store.Session{ID: "a", Seq: 1, CreatedAt: at, Options: raw(map[string]string{"dir": "/w"})})
		tx.CreateSession(store.Session{ID: "b", Seq: 2, CreatedAt: at, Options: raw(map[string]string{})})
		tx.RunStarted("a", 1, "prompt")
		tx.AppendHistory("a", 0, raw("hi"), raw("there"))
		tx.Counters("a", 10, 20, 3, 0)
		tx.PauseRaised("a", store.Pause{ID: "p1", Run: 1, Pause: raw("q1")})
		tx.PauseRaised("a", store.Pause{ID: "p2", Run: 1, Pause: raw("q2")})
		tx.Audit(store.AuditEntry{At: at, Session: "a", Run: 1, Pause: "p1", Event: "raised", Kind: "confirm", Tool: "Bash", Message: "rm?"})
		tx.PauseEnded("a", "p1")
		tx.Audit(store.AuditEntry{At: at, Session: "a", Run: 1, Pause: "p1", Event: "answered", Kind: "confirm", Tool: "Bash", Message: "rm?", Answer: "approved", By: "tui", Remember: "project"})
		tx.Grant(store.Grant{Session: "a", Tool: "Bash", Action: "rm x", Dir: "/w", By: "tui", At: at})
		tx.DefineLoop("b", store.Loop{ID: "l1", State: raw("st0"), Tasks: []store.TaskState{
			{Index: 0, Title: "one", Status: "pending", Kind: "prompt", Prompt: "do one", Provider: raw(map[string]string{"type": "script"})},
			{Index: 1, Title: "two", Status: "pending", Kind: "func"},
			{Index: 2, Title: "stale", Status: "pending", Kind: "func"},
		}})
		tx.DefineLoop("b", store.Loop{ID: "l1", State: raw("st0"), Tasks: []store.TaskState{ // the same id again: replaced
			{Index: 0, Title: "one", Status: "pending", Kind: "prompt", Prompt: "do one", Provider: raw(map[string]string{"type": "script"})},
			{Index: 1, Title: "two", Status: "pending", Kind: "func"},
		}})
		tx.SaveLoop("b", store.Loop{ID: "l1", State: raw("st"), Tasks: []store.TaskState{{Index: 0, Title: "one", Status: "completed"}, {Index: 1, Title: "two", Status: "running"}}})
		tx.RunStarted("b", 2, "loop")
		tx.RunEnded("b", store.RunEnd{Run: 2, LastEnd: 3, Interruption: in, TokensIn: 1, TokensOut: 2, Step: 4, PauseSeq: 7})
	}))
	require.NoError(t, st.Close())
	require.NoError(t, st.Close(), "Close is idempotent")

	st = open(t, path)
	got, err := st.Load(t.Context())
	require.NoError(t, err)
	require.Len(t, got, 2)
	a, b := got[0], got[1]
	assert.Equal(t, "a", a.ID)
	assert.True(t, a.Proceeding)
	assert.Equal(t, []json.RawMessage{raw("hi"), raw("there")}, a.History)
	assert.Equal(t, []store.Pause{{ID: "p2", Run: 1, Pause: raw("q2")}}, a.Pauses)
	assert.Equal(t, [3]int{10, 20, 3}, [3]int{a.TokensIn, a.TokensOut, a.Step})
	assert.Equal(t, uint64(2), a.PauseSeq)
	assert.Equal(t, "prompt", a.RunKind)
	assert.Equal(t, "loop", b.RunKind)
	assert.Equal(t, uint64(7), b.PauseSeq)
	assert.JSONEq(t, `{"dir":"/w"}`, string(a.Options))
	assert.Equal(t, at, a.CreatedAt)
	assert.False(t, b.Proceeding)
	assert.Equal(t, 3, b.LastEnd)
	assert.JSONEq(t, `{"reason":"user_stop"}`, string(b.Interruption))
	require.Len(t, b.Loops, 1)
	assert.Equal(t, raw("st"), b.Loops[0].State)
	assert.Equal(t, []store.TaskState{
		{Index: 0, Title: "one", Status: "completed", Kind: "prompt", Prompt: "do one", Provider: raw(map[string]string{"type": "script"})},
		{Index: 1, Title: "two", Status: "running", Kind: "func"},
	}, b.Loops[0].Tasks, "what the tasks are stays as defined; their states change")
	ins, err := st.Interruptions(t.Context(), "b")
	require.NoError(t, err)
	assert.Equal(t, []store.Interruption{*in}, ins)
	audit, err := st.AuditLog(t.Context(), "a")
	require.NoError(t, err)
	require.Len(t, audit, 2)
	assert.Equal(t, "approved", audit[1].Answer)
	assert.Equal(t, "tui", audit[1].By)
	assert.Equal(t, "project", audit[1].Remember)
	grants, err := st.Grants(t.Context())
	require.NoError(t, err)
	assert.Equal(t, []store.Grant{{Session: "a", Tool: "Bash", Action: "rm x", Dir: "/w", By: "tui", At: at}}, grants)
	report, err := st.IntegrityCheck(t.Context())
	require.NoError(t, err)
	assert.Equal(t, "ok", report)

	// A closed session is forgotten; its audit log stays.
	require.NoError(t, st.Update(t.Context(), func(tx *store.Tx) { tx.DeleteSession("a") }))
	got, err = st.Load(t.Context())
	require.NoError(t, err)
	assert.Len(t, got, 1)
	audit, err = st.AuditLog(t.Context(), "")
	require.NoError(t, err)
	assert.Len(t, audit, 2)
}

// A failed write rolls the whole transition back, and the store's one
// connection is left out of any transaction: the next write works.
func TestUpdateIsAllOrNothing(t *testing.T) {
	t.Parallel()
	for _, where := range []string{"memory", "file"} {
		t.Run(where, func(t *testing.T) {
			t.Parallel()
			path := store.Memory
			if where == "file" {
				path = filepath.Join(t.TempDir(), "s.db")
			}
			st := open(t, path)
			require.NoError(t, st.Update(t.Context(), func(tx *store.Tx) {
				tx.CreateSession(store.Session{ID: "a", Seq: 1, Options: raw(nil)})
			}))
			err := st.Update(t.Context(), func(tx *store.Tx) {
				tx.AppendHistory("a", 0, raw("one"))
				tx.AppendHistory("a", 0, raw("same index again"))
			})
			require.Error(t, err)
			got, err := st.Load(t.Context())
			require.NoError(t, err)
			assert.Empty(t, got[0].History)

			require.NoError(t, st.Update(t.Context(), func(tx *store.Tx) { tx.AppendHistory("a", 0, raw("one")) }))
			got, err = st.Load(t.Context())
			require.NoError(t, err)
			assert.Len(t, got[0].History, 1)
		})
	}
}

// Neither a raise nor an answer writes the session's row: the number of
// the last pause comes back after a kill that left it only in the pause's
// row (pending, or answered and kept ended until the run's end), so a
// pause raised after the restart never takes an old pause's id; only the
// pending ones come back as pauses.
func TestPauseNumberSurvivesAKillAfterTheRaise(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.db")
	st, err := store.Open(t.Context(), path)
	require.NoError(t, err)
	raise := func(session, id string) {
		require.NoError(t, st.Update(t.Context(), func(tx *store.Tx) {
			tx.PauseRaised(session, store.Pause{ID: id, Run: 1, Pause: raw("q")})
			tx.Audit(store.AuditEntry{Session: session, Run: 1, Pause: id, Event: "raised"})
		}))
	}
	answer := func(session, id string) {
		require.NoError(t, st.Update(t.Context(), func(tx *store.Tx) {
			tx.PauseEnded(session, id)
			tx.Audit(store.AuditEntry{Session: session, Run: 1, Pause: id, Event: "answered", Answer: "approved"})
		}))
	}
	require.NoError(t, st.Update(t.Context(), func(tx *store.Tx) {
		for i, id := range []string{"answered", "pending", "both", "ended"} {
			tx.CreateSession(store.Session{ID: id, Seq: int64(i), Options: raw(nil)})
			tx.RunStarted(id, 1, "prompt")
			tx.Counters(id, 0, 0, 1, 2) // p1 and p2 raised before
		}
	}))
	raise("answered", "p3")
	answer("answered", "p3")
	raise("pending", "p3")
	raise("both", "p3")
	raise("both", "p4")
	answer("both", "p4") // p3 still pending, p4 answered
	raise("ended", "p3")
	answer("ended", "p3")
	require.NoError(t, st.Update(t.Context(), func(tx *store.Tx) {
		tx.RunEnded("ended", store.RunEnd{Run: 1, PauseSeq: 3})
	}))
	require.NoError(t, st.Close()) // as a kill leaves it: no more writes

	got, err := open(t, path).Load(t.Context())
	require.NoError(t, err)
	seqs := map[string]uint64{}
	pending := map[string][]string{}
	for _, s := range got {
		seqs[s.ID] = s.PauseSeq
		for _, p := range s.Pauses {
			pending[s.ID] = append(pending[s.ID], p.ID)
		}
	}
	assert.Equal(t, map[string]uint64{"answered": 3, "pending": 3, "both": 4, "ended": 3}, seqs)
	assert.Equal(t, map[string][]string{"pending": {"p3"}, "both": {"p3"}}, pending)
}

// The store checkpoints only after a transaction marked MayCheckpoint, and
// only once CheckpointEvery commits were made since its last one; SQLite's
// own checkpoint waits for 2,000 pages. Seen in the database file, which
// only a checkpoint writes (commits append to the WAL).
func TestCheckpointsComeAfterMarkedTransactions(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.db")
	st, err := store.Open(t.Context(), path)
	require.NoError(t, err)
	size := func() int64 {
		fi, err := os.Stat(path)
		require.NoError(t, err)
		return fi.Size()
	}
	empty := size()
	require.NoError(t, st.Update(t.Context(), func(tx *store.Tx) {
		tx.CreateSession(store.Session{ID: "a", Seq: 1, Options: raw(nil)})
	}))
	n := 1
	appendOne := func(mark bool) {
		require.NoError(t, st.Update(t.Context(), func(tx *store.Tx) {
			tx.AppendHistory("a", n, raw(strings.Repeat("x", 500)))
			if mark {
				tx.MayCheckpoint()
			}
		}))
		n++
	}
	for range store.CheckpointEvery + 50 {
		appendOne(false)
	}
	assert.Equal(t, empty, size(), "no checkpoint after unmarked transactions")
	appendOne(true)
	assert.Greater(t, size(), empty, "a checkpoint after the marked one")
	checkpointed := size()
	for range store.CheckpointEvery / 2 {
		appendOne(true)
	}
	assert.Equal(t, checkpointed, size(), "none before CheckpointEvery more commits")

	require.NoError(t, st.Close())
	require.NoError(t, st.Close(), "Close is idempotent")
	require.ErrorIs(t, st.Update(t.Context(), func(*store.Tx) {}), store.ErrClosed)
	st = open(t, path)
	got, err := st.Load(t.Context())
	require.NoError(t, err)
	assert.Len(t, got[0].History, n-1)
	mem := open(t, store.Memory)
	require.NoError(t, mem.Update(t.Context(), func(tx *store.Tx) { tx.MayCheckpoint() }), "a store in memory has no WAL: nothing to do")
}

// A new store gets the current schema, marked as ours; opening it again
// runs no migration; a store at an older version is migrated.
func TestMigrations(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "s.db")
	st, err := store.Open(t.Context(), path)
	require.NoError(t, err)
	require.NoError(t, st.Close())
	version, appID := pragmas(t, path)
	assert.Equal(t, store.SchemaVersion, version)
	assert.Equal(t, 0x494c4b31, appID)

	// A version-0 file that is ours (application_id set, nothing else):
	// the migrations run from the start.
	old := filepath.Join(dir, "old.db")
	oldStore(t, old, 0, "")
	migrated(t, old)

	// A version-1 store with a session: migrated, the session kept.
	v1 := filepath.Join(dir, "v1.db")
	oldStore(t, v1, 1, `INSERT INTO sessions (id, seq, created_at, options, state, run) VALUES ('old', 1, 0, '{}', 'proceeding', 4);
		INSERT INTO grants (session, tool, action, dir, by, at) VALUES ('old', 'Bash', 'rm x', '/w', '', 0)`)
	got := migrated(t, v1)
	require.Len(t, got, 1)
	assert.Equal(t, "old", got[0].ID)
	assert.True(t, got[0].Proceeding)
	assert.Equal(t, "prompt", got[0].RunKind, "the new column's default")

	// Version 3: the grants of before (copies of answers) are dropped; a
	// grant is one row per tool, project and action.
	st = open(t, v1)
	grants, err := st.Grants(t.Context())
	require.NoError(t, err)
	assert.Empty(t, grants)
	for _, by := range []string{"tui", "webui"} {
		require.NoError(t, st.Update(t.Context(), func(tx *store.Tx) {
			tx.Grant(store.Grant{Session: "old", Tool: "Bash", Action: "rm x (in /w)", Dir: "/w", By: by})
		}))
	}
	grants, err = st.Grants(t.Context())
	require.NoError(t, err)
	require.Len(t, grants, 1)
	assert.Equal(t, "webui", grants[0].By)
	require.NoError(t, st.Update(t.Context(), func(tx *store.Tx) { tx.RevokeGrant("Bash", "rm x (in /w)") }))
	grants, err = st.Grants(t.Context())
	require.NoError(t, err)
	assert.Empty(t, grants)
	require.NoError(t, st.Close())

	// A version-3 store with a task loop: its tasks come back of an
	// unknown kind (they were not described then), their states kept.
	v3 := filepath.Join(dir, "v3.db")
	oldStore(t, v3, 3, `INSERT INTO sessions (id, seq, created_at, options, state, run, run_kind) VALUES ('looping', 1, 0, '{}', 'proceeding', 2, 'loop');
		INSERT INTO task_loops (session, loop, state) VALUES ('looping', 'tasks-looping', '{}');
		INSERT INTO task_states (session, loop, idx, title, status) VALUES ('looping', 'tasks-looping', 0, 'one', 'running')`)
	got = migrated(t, v3)
	require.Len(t, got, 1)
	require.Len(t, got[0].Loops, 1)
	assert.Equal(t, []store.TaskState{{Index: 0, Title: "one", Status: "running"}}, got[0].Loops[0].Tasks)

	// Version 6: a version-5 store's sessions keep their options (a
	// script's 100 KB too), now in a table of their own; the session's row
	// no longer has them, and a session deleted afterwards takes its
	// options with it.
	v5 := filepath.Join(dir, "v5.db")
	big := `{"dir":"/w","provider":{"script":"` + strings.Repeat("x", 100_000) + `"}}`
	oldStore(t, v5, 5, `INSERT INTO sessions (id, seq, created_at, options, state, run, tokens_in, step, pause_seq) VALUES ('a', 1, 7, '{"dir":"/a"}', 'proceeding', 3, 11, 2, 4);
		INSERT INTO sessions (id, seq, created_at, options, state) VALUES ('b', 2, 8, ?, 'idle');
		INSERT INTO history (session, idx, message) VALUES ('a', 0, '{"role":"user"}')`, big)
	st = open(t, v5)
	got, err = st.Load(t.Context())
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, "a", got[0].ID)
	assert.JSONEq(t, `{"dir":"/a"}`, string(got[0].Options))
	assert.Equal(t, []int{3, 11, 2}, []int{int(got[0].Run), got[0].TokensIn, got[0].Step})
	assert.Equal(t, uint64(4), got[0].PauseSeq)
	assert.True(t, got[0].Proceeding)
	assert.Len(t, got[0].History, 1)
	assert.Equal(t, "b", got[1].ID)
	assert.Equal(t, big, string(got[1].Options))
	assert.Equal(t, time.UnixMilli(8), got[1].CreatedAt)
	require.NoError(t, st.Update(t.Context(), func(tx *store.Tx) { tx.DeleteSession("b") }))
	require.NoError(t, st.Close())
	version, _ = pragmas(t, v5)
	assert.Equal(t, store.SchemaVersion, version)
	db, err := sql.Open("sqlite", v5)
	require.NoError(t, err)
	defer db.Close()
	var columns, options int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM pragma_table_info('sessions') WHERE name = 'options'`).Scan(&columns))
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM session_options`).Scan(&options))
	assert.Zero(t, columns, "the session's row no longer holds its options")
	assert.Equal(t, 1, options, "b's options went with it")
	require.NoError(t, db.Close())

	// Version 7: the audit log has no index on its session any more; a
	// session proceeding in a version-6 store whose last pause was
	// answered (its number only in the audit log) keeps that number.
	v6 := filepath.Join(dir, "v6.db")
	oldStore(t, v6, 6, `INSERT INTO sessions (id, seq, created_at, state, run, pause_seq) VALUES ('a', 1, 7, 'proceeding', 3, 2), ('b', 2, 7, 'ended', 1, 1);
		INSERT INTO session_options (session, options) VALUES ('a', '{}'), ('b', '{}');
		INSERT INTO pauses (session, id, run, pause) VALUES ('a', 'p3', 3, '{"id":"p3"}');
		INSERT INTO audit (at, session, run, pause, event, kind, tool, message) VALUES
			(1, 'a', 3, 'p3', 'raised', 'confirm', 't', 'm'), (2, 'a', 3, 'p4', 'raised', 'confirm', 't', 'm'),
			(3, 'a', 3, 'p4', 'answered', 'confirm', 't', 'm'), (4, 'b', 1, 'p9', 'raised', 'confirm', 't', 'm')`)
	st = open(t, v6)
	got, err = st.Load(t.Context())
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, uint64(4), got[0].PauseSeq, "p4, answered: only in the audit log before")
	require.Len(t, got[0].Pauses, 1)
	assert.Equal(t, "p3", got[0].Pauses[0].ID)
	assert.Equal(t, uint64(1), got[1].PauseSeq, "an ended session's number is its row's (written at the run's end)")
	require.NoError(t, st.Update(t.Context(), func(tx *store.Tx) { tx.PauseEnded("a", "p3") }))
	require.NoError(t, st.Close())
	st = open(t, v6)
	got, err = st.Load(t.Context())
	require.NoError(t, err)
	require.NoError(t, st.Close())
	assert.Equal(t, uint64(4), got[0].PauseSeq)
	assert.Empty(t, got[0].Pauses)
	db, err = sql.Open("sqlite", v6)
	require.NoError(t, err)
	defer db.Close()
	var indexes int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = 'audit_session'`).Scan(&indexes))
	assert.Zero(t, indexes)
}

// oldStore writes a store of schema version at path, as that version's
// Interlock left it (ours: application_id set), with rows (SQL, with args).
func oldStore(t *testing.T, path string, version int, rows string, args ...any) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	defer db.Close()
	_, err = db.Exec(strings.Join(append(slices.Clone(store.Migrations[:version]), fmt.Sprintf("PRAGMA application_id = 1229736753; PRAGMA user_version = %d", version), rows), ";"), args...)
	require.NoError(t, err)
}

// migrated opens the store at path (migrating it), loads it and closes it.
func migrated(t *testing.T, path string) []store.Session {
	t.Helper()
	st := open(t, path)
	got, err := st.Load(t.Context())
	require.NoError(t, err)
	require.NoError(t, st.Close())
	version, _ := pragmas(t, path)
	assert.Equal(t, store.SchemaVersion, version, "migrated")
	return got
}

func pragmas(t *testing.T, path string) (version, appID int) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, db.QueryRow("PRAGMA user_version").Scan(&version))
	require.NoError(t, db.QueryRow("PRAGMA application_id").Scan(&appID))
	return version, appID
}

func hash(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return sha256.Sum256(b)
}

// Files that are not ours to open: each is reported with its path and what
// to do, and left byte for byte as it was.
func TestBadFilesAreReportedAndLeftUntouched(t *testing.T) {
	t.Parallel()
	valid := filepath.Join(t.TempDir(), "valid.db")
	st, err := store.Open(t.Context(), valid)
	require.NoError(t, err)
	require.NoError(t, st.Update(t.Context(), func(tx *store.Tx) {
		tx.CreateSession(store.Session{ID: "a", Seq: 1, Options: raw(nil)})
	}))
	require.NoError(t, st.Close())
	good, err := os.ReadFile(valid)
	require.NoError(t, err)

	tests := []struct {
		name  string
		write func(t *testing.T, path string)
		want  error
		says  string
	}{
		{"garbage", func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, []byte(strings.Repeat("not a database ", 100)), 0o600))
		}, store.ErrCorrupt, "does not start with an SQLite header"},
		{"truncated header", func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, good[:40], 0o600))
		}, store.ErrCorrupt, "move it away"},
		{"corrupt pages", func(t *testing.T, path string) {
			b := append([]byte(nil), good...)
			for i := 100; i < len(b); i++ {
				b[i] = 0xa5
			}
			require.NoError(t, os.WriteFile(path, b, 0o600))
		}, store.ErrCorrupt, "move it away"},
		{"foreign", func(t *testing.T, path string) {
			db, err := sql.Open("sqlite", path)
			require.NoError(t, err)
			_, err = db.Exec("CREATE TABLE notes (x TEXT); INSERT INTO notes VALUES ('mine')")
			require.NoError(t, err)
			require.NoError(t, db.Close())
		}, store.ErrForeign, "another application"},
		{"newer schema", func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, good, 0o600))
			db, err := sql.Open("sqlite", path)
			require.NoError(t, err)
			_, err = db.Exec(fmt.Sprintf("PRAGMA user_version = %d", store.SchemaVersion+1))
			require.NoError(t, err)
			require.NoError(t, db.Close())
		}, store.ErrNewerSchema, "newer Interlock"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "s.db")
			tt.write(t, path)
			before := hash(t, path)
			st, err := store.Open(t.Context(), path)
			if err == nil {
				_, err = st.Load(t.Context())
				st.Close()
			}
			require.ErrorIs(t, err, tt.want)
			assert.Contains(t, err.Error(), path)
			assert.Contains(t, err.Error(), tt.says)
			assert.Equal(t, before, hash(t, path), "the file is untouched")
		})
	}
}

// A second opener, in another process or in this one, gets ErrLocked while
// the first holds the store; once the holder is gone (even killed), the
// store opens.
// holder starts a process that opens the store at path and holds it until
// its stdin closes; it returns once the store is open.
func holder(t *testing.T, path string) (*exec.Cmd, io.WriteCloser) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$", path)
	cmd.Env = append(os.Environ(), childEnv+"=hold")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "opened\n", line)
	return cmd, stdin
}

func TestSecondOpenerIsRefused(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.db")
	cmd, stdin := holder(t, path)
	before := hash(t, path)

	_, err := store.Open(t.Context(), path)
	require.ErrorIs(t, err, store.ErrLocked)
	assert.Contains(t, err.Error(), path)
	assert.Contains(t, err.Error(), fmt.Sprintf("process %d holds", cmd.Process.Pid), "the owner is named")
	assert.Contains(t, err.Error(), "close the other Interlock engine")
	assert.Equal(t, before, hash(t, path))

	require.NoError(t, cmd.Process.Kill()) // the owner dies holding the lock
	cmd.Wait()
	stdin.Close()
	st := open(t, path)

	_, err = store.Open(t.Context(), path)
	require.ErrorIs(t, err, store.ErrLocked, "a second opener in the same process")
	assert.Contains(t, err.Error(), fmt.Sprintf("process %d holds", os.Getpid()))
	require.NoError(t, st.Close())
	open(t, path)
}

// The same store reached by another name, while its owner (another
// process) has it open: through a symbolic link to the file or to its
// directory, or a hard link. Each second opener is refused as the plain
// path is, naming the file and the owner's pid, and leaves no lock file of
// its own beside the link. A link to the file used to get "database is
// locked" naming neither (a hard link still cannot name the file it
// shares: it names the owner).
func TestSecondOpenerThroughALinkIsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "s.db")
	cmd, stdin := holder(t, path)
	defer cmd.Wait()
	defer stdin.Close()

	other := t.TempDir()
	sym, hard, dirLink := filepath.Join(other, "sym.db"), filepath.Join(dir, "hard.db"), filepath.Join(other, "dir")
	require.NoError(t, os.Symlink(path, sym))
	require.NoError(t, os.Link(path, hard))
	require.NoError(t, os.Symlink(dir, dirLink))
	owner := fmt.Sprintf("process %d", cmd.Process.Pid)
	for _, tt := range []struct{ name, path, names string }{
		{"symlink", sym, path}, {"directory symlink", filepath.Join(dirLink, "s.db"), path}, {"hard link", hard, hard},
	} {
		_, err := store.Open(t.Context(), tt.path)
		require.ErrorIs(t, err, store.ErrLocked, tt.name)
		assert.Contains(t, err.Error(), "store "+tt.names+":", tt.name)
		assert.Contains(t, err.Error(), owner, tt.name)
		assert.Contains(t, err.Error(), "close the other Interlock engine", tt.name)
	}
	assert.NoFileExists(t, sym+".lock")
}

// A second Open in the owner's own process, of the same name or a hard
// link, is refused without opening the file: closing any descriptor of it
// drops the process's POSIX locks, SQLite's among them. It used to read the
// file's header first: the refused opener dropped the owner's SQLite lock,
// and another process could then open the store through a hard link (its
// lock file another) and write beside the owner.
func TestSecondOpenerInTheOwnersProcessKeepsItsLock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path, hard := filepath.Join(dir, "s.db"), filepath.Join(dir, "hard.db")
	st := open(t, path)
	require.NoError(t, os.Link(path, hard))
	for _, again := range []string{path, hard} {
		_, err := store.Open(t.Context(), again)
		require.ErrorIs(t, err, store.ErrLocked)
		assert.Contains(t, err.Error(), fmt.Sprintf("process %d", os.Getpid()))
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$", hard)
	cmd.Env = append(os.Environ(), childEnv+"=hold")
	out, err := cmd.Output() // stdin is /dev/null: a child that opened it closes it at once
	require.Error(t, err, "another process opened the store beside its owner: %s", out)
	assert.Contains(t, string(out), "in use by another process")
	require.NoError(t, st.Update(t.Context(), func(tx *store.Tx) {}), "the owner still writes")
}

// An owner killed while a child it started still shares its lock (as a
// child does between fork and exec): the next opener waits for the child
// to let go instead of refusing a store nobody owns.
func TestOrphanedLockIsWaitedFor(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.db")
	cmd := exec.Command(os.Args[0], "-test.run=^$", path)
	cmd.Env = append(os.Environ(), childEnv+"=handoff")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "opened\n", line)
	require.NoError(t, cmd.Process.Kill())
	// Not cmd.Wait: it closes the stdin pipe, which ends the child that
	// holds the lock (the probe below then found it free, 1 run in ~20).
	_, err = cmd.Process.Wait()
	require.NoError(t, err)
	t.Cleanup(func() { cmd.Wait() }) // closes the pipes; the process was reaped

	probe, err := os.Open(path + ".lock")
	require.NoError(t, err)
	require.ErrorIs(t, unix.Flock(int(probe.Fd()), unix.LOCK_EX|unix.LOCK_NB), unix.EWOULDBLOCK, "the owner's child still holds the lock")
	probe.Close()

	type opened struct {
		st  *store.Store
		err error
	}
	done := make(chan opened, 1)
	trying := make(chan struct{})
	go func() {
		close(trying)
		st, err := store.Open(context.Background(), path)
		done <- opened{st, err}
	}()
	<-trying
	stdin.Close() // the child ends, and the lock with it
	got := <-done
	require.NoError(t, got.err)
	require.NoError(t, got.st.Close())
}

// A directory that cannot be written: a clear error, nothing created.
func TestReadOnlyDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if os.Geteuid() != 0 {
		require.NoError(t, os.Chmod(dir, 0o555))
		t.Cleanup(func() { os.Chmod(dir, 0o755) })
		_, err := store.Open(t.Context(), filepath.Join(dir, "s.db"))
		require.ErrorIs(t, err, store.ErrReadOnly)
		assert.Contains(t, err.Error(), "make it writable")
	} else {
		// root writes anywhere: make the directory a read-only mount in a
		// user and mount namespace of a child.
		out := inNamespaces(t, "readonly", dir)
		assert.Contains(t, string(out), store.ErrReadOnly.Error())
		assert.Contains(t, string(out), "make it writable")
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing was created")
}

// A store whose owner died with a newer Interlock's schema change in the
// WAL only (not yet in the file's header): refused, and the file and its
// WAL are left as they are (SQLite's close of a refused open used to
// checkpoint the WAL into the file and delete it).
func TestNewerSchemaInTheWALIsLeftUntouched(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "s.db")
	require.NoError(t, open(t, path).Close())
	db, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, q := range []string{"PRAGMA journal_mode = WAL", "PRAGMA wal_autocheckpoint = 0",
		fmt.Sprintf("PRAGMA user_version = %d", store.SchemaVersion+1), "CREATE TABLE future (x)", "INSERT INTO future VALUES ('kept')"} {
		_, err := db.Exec(q)
		require.NoError(t, err, q)
	}
	// What a kill of that owner leaves: the files as they are now.
	killed := filepath.Join(t.TempDir(), "s.db")
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(path + suffix)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(killed+suffix, b, 0o600))
	}
	before := [2][32]byte{hash(t, killed), hash(t, killed+"-wal")}
	_, err = store.Open(t.Context(), killed)
	require.ErrorIs(t, err, store.ErrNewerSchema)
	assert.Contains(t, err.Error(), fmt.Sprintf("schema version %d", store.SchemaVersion+1))
	assert.Equal(t, before, [2][32]byte{hash(t, killed), hash(t, killed+"-wal")}, "the file and its WAL are untouched")
}

// A path that is not a file, or whose directory does not exist: a clear
// error that says what to do, and nothing created beside it.
func TestPathThatIsNotAFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, err := store.Open(t.Context(), dir)
	require.ErrorIs(t, err, store.ErrForeign)
	assert.Contains(t, err.Error(), "it is a directory, not a file: give the path of a file (such as "+filepath.Join(dir, "sessions.db")+")")
	assert.NoFileExists(t, dir+".lock", "no lock file left beside the directory")

	missing := filepath.Join(dir, "nope", "s.db")
	_, err = store.Open(t.Context(), missing)
	require.ErrorIs(t, err, store.ErrReadOnly)
	assert.Contains(t, err.Error(), "directory "+filepath.Dir(missing)+" does not exist: create it")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing was created")
}

// fillDisk mounts a 256 KiB tmpfs on dir (the caller is in its own user
// and mount namespace), writes sessions to a store on it until the disk is
// full, frees space and writes one more, then reopens the store: it
// returns what it found, one fact a line, or the first thing that went
// wrong.
func fillDisk(dir string) string {
	ctx := context.Background()
	if err := unix.Mount("", "/", "", unix.MS_PRIVATE|unix.MS_REC, ""); err != nil {
		return "setup: " + err.Error()
	}
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size=256k"); err != nil {
		return "setup: " + err.Error()
	}
	filler := filepath.Join(dir, "filler")
	if err := os.WriteFile(filler, make([]byte, 64<<10), 0o600); err != nil {
		return "setup: " + err.Error()
	}
	path := filepath.Join(dir, "s.db")
	st, err := store.Open(ctx, path)
	if err != nil {
		return "open: " + err.Error()
	}
	options := raw(map[string]string{"script": strings.Repeat("x", 4000)})
	var full error
	n := 0
	for ; n < 1000 && full == nil; n++ {
		full = st.Update(ctx, func(tx *store.Tx) {
			tx.CreateSession(store.Session{ID: fmt.Sprint("s", n), Seq: int64(n), Options: options})
		})
	}
	if full == nil {
		return "the disk never filled"
	}
	kept := n - 1
	os.Remove(filler)
	if err := st.Update(ctx, func(tx *store.Tx) { tx.CreateSession(store.Session{ID: "after", Seq: 1000, Options: raw(nil)}) }); err != nil {
		return "write after freeing space: " + err.Error()
	}
	if err := st.Close(); err != nil {
		return "close: " + err.Error()
	}
	if st, err = store.Open(ctx, path); err != nil {
		return "reopen: " + err.Error()
	}
	defer st.Close()
	sessions, err := st.Load(ctx)
	if err != nil {
		return "load: " + err.Error()
	}
	report, err := st.IntegrityCheck(ctx)
	if err != nil {
		return "integrity check: " + err.Error()
	}
	return fmt.Sprintf("error: %v\nwritten before: %d\nloaded: %d\nintegrity: %s", full, kept, len(sessions), report)
}

// The disk fills up under a live store: the write that did not fit is
// refused with ErrFull, naming the file and what to do; nothing written
// before is lost, the store goes on once there is room, and the file is
// sound.
func TestDiskFull(t *testing.T) {
	t.Parallel()
	out := inNamespaces(t, "full", t.TempDir())
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Len(t, lines, 4, "child: %s", out)
	assert.Contains(t, lines[0], store.ErrFull.Error())
	assert.Contains(t, lines[0], "s.db")
	assert.Contains(t, lines[0], "free space on its disk")
	var written, loaded int
	fmt.Sscanf(lines[1], "written before: %d", &written)
	fmt.Sscanf(lines[2], "loaded: %d", &loaded)
	assert.Greater(t, written, 0)
	assert.Equal(t, written+1, loaded, "every session written, and the one after the space was freed")
	assert.Equal(t, "integrity: ok", lines[3])
}

// A Tx kept past its Update cannot reach the connection, which Update
// holds for its writes alone.
func TestTxAfterUpdatePanics(t *testing.T) {
	st := open(t, store.Memory)
	var kept *store.Tx
	require.NoError(t, st.Update(t.Context(), func(tx *store.Tx) { kept = tx }))
	assert.PanicsWithValue(t, "store: a Tx was used after its Update returned: make the writes within the Update's fn", func() {
		kept.RunStarted("a", 1, "prompt")
	})
}

// An answer's transaction (the pause ended, its audit entry) allocates 23
// times through the driver directly; 34 through database/sql's Exec, whose
// per-call copies and conversions of the arguments were most of the
// allocations (and so of the GCs) on the path of every pause.
func TestUpdateAllocs(t *testing.T) {
	st := open(t, filepath.Join(t.TempDir(), "s.db"))
	at := time.UnixMilli(1700000000123)
	var err error
	allocs := testing.AllocsPerRun(100, func() {
		err = st.Update(context.Background(), func(tx *store.Tx) {
			tx.PauseEnded("a", "p1")
			tx.Audit(store.AuditEntry{At: at, Session: "a", Run: 1, Pause: "p1", Event: "answered", Kind: "confirm", Tool: "Bash", Message: "rm?", Answer: "approved"})
		})
	})
	require.NoError(t, err)
	assert.LessOrEqual(t, allocs, 28.0)
}

// inNamespaces runs the child scenario on dir in a user and mount
// namespace of its own (root there: it may mount) and returns its output.
func inNamespaces(t *testing.T, scenario, dir string) []byte {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$", dir)
	cmd.Env = append(os.Environ(), childEnv+"="+scenario)
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Geteuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}},
	}
	out, err := cmd.Output()
	require.NoError(t, err, "child: %s", out)
	return out
}

// The audit log of a store no engine holds: read whole or by session,
// oldest first, and the file is left byte for byte as it was (no recovery
// runs). A store held by another process is refused as Open
// refuses it; a path with no file is reported and nothing is created there.
func TestReadAuditLog(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "s.db")
	st := open(t, path)
	at := time.UnixMilli(1700000000123)
	require.NoError(t, st.Update(t.Context(), func(tx *store.Tx) {
		tx.CreateSession(store.Session{ID: "a", Seq: 1, CreatedAt: at, Options: raw(map[string]string{})})
		tx.CreateSession(store.Session{ID: "b", Seq: 2, CreatedAt: at, Options: raw(map[string]string{})})
		tx.RunStarted("a", 1, "prompt")
		tx.Audit(store.AuditEntry{At: at, Session: "a", Run: 1, Pause: "p1", Event: "raised", Kind: "confirm", Tool: "Bash", Message: "rm -rf ./build"})
		tx.Audit(store.AuditEntry{At: at, Session: "b", Run: 1, Pause: "p1", Event: "raised", Kind: "continue", Tool: "Ask", Message: "look"})
		tx.Audit(store.AuditEntry{At: at, Session: "a", Run: 1, Pause: "p1", Event: "answered", Kind: "confirm", Tool: "Bash", Message: "rm -rf ./build", Answer: "denied", Reason: "not now", By: "web"})
	}))
	require.NoError(t, st.Close())
	before := hash(t, path)

	all, err := store.ReadAuditLog(t.Context(), path, "")
	require.NoError(t, err)
	require.Len(t, all, 3)
	assert.Equal(t, []string{"a", "b", "a"}, []string{all[0].Session, all[1].Session, all[2].Session}, "oldest first")
	assert.Equal(t, store.AuditEntry{At: at, Session: "a", Run: 1, Pause: "p1", Event: "answered", Kind: "confirm", Tool: "Bash", Message: "rm -rf ./build", Answer: "denied", Reason: "not now", By: "web"}, all[2])
	one, err := store.ReadAuditLog(t.Context(), path, "b")
	require.NoError(t, err)
	require.Len(t, one, 1)
	assert.Equal(t, "look", one[0].Message)
	assert.Equal(t, before, hash(t, path), "reading changes nothing")

	cmd, stdin := holder(t, path)
	_, err = store.ReadAuditLog(t.Context(), path, "")
	require.ErrorIs(t, err, store.ErrLocked)
	assert.Contains(t, err.Error(), fmt.Sprintf("process %d holds", cmd.Process.Pid))
	stdin.Close()
	require.NoError(t, cmd.Wait())

	missing := filepath.Join(dir, "none.db")
	_, err = store.ReadAuditLog(t.Context(), missing, "")
	require.ErrorIs(t, err, store.ErrNotFound)
	assert.Contains(t, err.Error(), missing)
	assert.NoFileExists(t, missing, "nothing is created")
	_, err = store.ReadAuditLog(t.Context(), store.Memory, "")
	require.ErrorIs(t, err, store.ErrNotFound)
}
