package engine_test

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
)

// chatty is a tool that streams n progress chunks of size bytes, then
// releases its result.
func chatty(n, size int) engine.ToolFunc {
	return func(ctx context.Context, c engine.ToolCall, env *engine.Env) (engine.Result, error) {
		chunk := strings.Repeat("x", size)
		for range n {
			env.Progress(chunk)
		}
		return engine.Result{Output: "done"}, nil
	}
}

// drain reads f until the engine closed and returns what it got.
func drain(t *testing.T, f *engine.Feed) []engine.FeedItem {
	t.Helper()
	var all []engine.FeedItem
	for {
		err := f.Take(t.Context(), func(items []engine.FeedItem) { all = append(all, items...) })
		if err != nil {
			require.ErrorIs(t, err, engine.ErrSubscriptionClosed)
			return all
		}
	}
}

func TestFeedMergesOnlyUntakenDeltasAndCountsThem(t *testing.T) {
	t.Parallel()
	const chunks, size = 2000, 100
	e, s := newEngine(t, []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{call("chatty", nil)}}, {Text: "end"}},
		engine.WithTool("chatty", chatty(chunks, size)))
	f := e.NewFeed()
	defer f.Close()
	o := <-start(t, s, "go") // nobody reads while the tool streams
	require.NoError(t, o.Err)
	assert.Less(t, f.Pending(), 10, "2,000 chunks taken by nobody are one queued delta")
	require.NoError(t, e.Close())

	var progress, merged, bytes int
	var types []engine.EventType
	var last uint64
	for _, it := range drain(t, f) {
		ev := it.Event
		assert.Equal(t, last+1+uint64(ev.Coalesced), ev.Version, "%s: versions grow by one plus what was merged", ev.Type)
		last = ev.Version
		if ev.Type == engine.EventToolProgress {
			progress++
			merged += ev.Coalesced
			bytes += len(ev.Text)
			continue
		}
		assert.Zero(t, ev.Coalesced, "only deltas are merged")
		types = append(types, ev.Type)
	}
	assert.Equal(t, chunks, progress+merged, "every chunk delivered or counted")
	assert.LessOrEqual(t, bytes, 64<<10, "a merged delta keeps at most 64 KiB of text")
	assert.Equal(t, []engine.EventType{engine.EventRunStarted, engine.EventToolStarted, engine.EventToolFinished,
		engine.EventText, engine.EventRunFinished, engine.EventClosed}, types)
}

func TestFeedKeepsEveryDecisionOfThousandsOfSessions(t *testing.T) {
	t.Parallel()
	const n = 1000 // 6,000 events: more than the engine's and every session's ring
	turns := []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{ask(engine.PauseConfirm, "ok?")}}, {Text: "done"}}
	e := engine.New(engine.WithProvider(engine.NewScriptedProvider(turns)))
	t.Cleanup(func() { e.Close() })
	f := e.NewFeed() // not read until every run ended: far more than any ring
	defer f.Close()
	sessions := make([]*engine.Session, n)
	outs := make([]<-chan engine.Outcome, n)
	parked := e.Subscribe()
	defer parked.Close()
	for i := range sessions {
		s, err := e.NewSession(engine.SessionOptions{})
		require.NoError(t, err)
		sessions[i], outs[i] = s, start(t, s, "go")
	}
	for range n {
		waitEvent(t, parked, isType(engine.EventPaused))
	}
	for _, s := range sessions {
		require.NoError(t, s.Confirm("", true))
	}
	for _, out := range outs {
		require.NoError(t, (<-out).Err)
	}
	require.NoError(t, e.Close())
	count := map[engine.EventType]int{}
	version := map[string]uint64{}
	for _, it := range drain(t, f) {
		count[it.Event.Type]++
		assert.Equal(t, version[it.Event.Session]+1, it.Event.Version, "session %s: engine order across the queue's blocks", it.Event.Session)
		version[it.Event.Session] = it.Event.Version
	}
	for _, tp := range []engine.EventType{engine.EventPaused, engine.EventPauseAnswered, engine.EventToolStarted,
		engine.EventToolFinished, engine.EventRunFinished, engine.EventClosed} {
		assert.Equal(t, n, count[tp], "%s events", tp)
	}
}

func TestFeedAddKeepsOrderAndIsNeverMergedAcross(t *testing.T) {
	t.Parallel()
	e, s := newEngine(t, []engine.ScriptTurn{{Text: "a"}})
	f := e.NewFeed()
	defer f.Close()
	require.NoError(t, (<-start(t, s, "go")).Err)
	f.Add("after the run")
	require.NoError(t, (<-start(t, s, "again")).Err)
	require.NoError(t, e.Close())
	var order []string
	for _, it := range drain(t, f) {
		if it.Extra != nil {
			order = append(order, it.Extra.(string))
			continue
		}
		order = append(order, string(it.Event.Type))
	}
	assert.Equal(t, []string{"run_started", "text", "run_finished", "after the run", "run_started", "text", "run_finished", "closed"}, order)
}

func TestFeedCloseAndEnd(t *testing.T) {
	t.Parallel()
	e, s := newEngine(t, []engine.ScriptTurn{{Text: "a"}})
	closed := e.NewFeed()
	closed.Close()
	closed.Close() // idempotent
	nothing := func([]engine.FeedItem) { t.Error("an item from a feed that is closed or ended") }
	err := closed.Take(t.Context(), nothing)
	require.ErrorIs(t, err, engine.ErrSubscriptionClosed)

	f := e.NewFeed()
	defer f.Close()
	require.NoError(t, (<-start(t, s, "go")).Err)
	assert.Equal(t, 3, f.Pending(), "a closed feed is not published to; this one is")
	require.NoError(t, e.Close())
	assert.NotEmpty(t, drain(t, f), "what was queued is still read after the engine closed")
	late := e.NewFeed()
	err = late.Take(t.Context(), nothing)
	require.ErrorIs(t, err, engine.ErrSubscriptionClosed, "a feed made after close has ended")
}

// A flood of tiny chunks to a reader that takes nothing: the merged text is
// the newest 64 KiB, and merging stays cheap: amortized appends, not a copy
// of the kept 64 KiB per chunk (which would allocate ~6 GB here). Not
// parallel: it reads the process's allocation counter.
func TestFeedMergesAFloodOfTinyChunksCheaply(t *testing.T) {
	const chunks = 100_000
	e, s := newEngine(t, []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{call("chatty", nil)}}, {Text: "end"}},
		engine.WithTool("chatty", chatty(chunks, 7)))
	f := e.NewFeed()
	defer f.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	require.NoError(t, (<-start(t, s, "go")).Err)
	runtime.ReadMemStats(&after)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(256<<20), "bytes allocated while merging")
	require.NoError(t, e.Close())
	var got int
	for _, it := range drain(t, f) {
		if it.Event.Type == engine.EventToolProgress {
			got++
			assert.Equal(t, chunks-1, it.Event.Coalesced)
			assert.Equal(t, strings.Repeat("x", 64<<10), it.Event.Text, "the newest 64 KiB")
		}
	}
	assert.Equal(t, 1, got, "one merged delta")
}

// A burst queued for a reader that is busy (10,000 runs approved at once
// from JS) costs its items and nothing more: the queue grows by blocks,
// never by copying a growing slice of ~350-byte items (twice the memory,
// all of it garbage), and the blocks are reused by the next burst. Not
// parallel: it reads the process's allocation counter.
func TestFeedBurstCostsItsItemsOnly(t *testing.T) {
	e := engine.New()
	t.Cleanup(func() { e.Close() })
	f := e.NewFeed()
	defer f.Close()
	const n = 10_000
	ev := engine.Event{Session: "s1", Type: engine.EventToolFinished}
	allocated := func(events int) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := range events {
			ev.Version = uint64(i + 1)
			f.Publish(ev)
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	item := uint64(unsafe.Sizeof(engine.FeedItem{}))
	assert.Less(t, allocated(n), n*item*5/4, "bytes allocated to queue %d events of %d bytes", n, item)
	var taken []uint64
	require.NoError(t, f.Take(t.Context(), func(items []engine.FeedItem) {
		for _, it := range items {
			taken = append(taken, it.Event.Version)
		}
	}))
	require.Len(t, taken, n)
	for i, v := range taken {
		require.Equal(t, uint64(i+1), v, "engine order")
	}
	// The count is the process's: the least of three bursts leaves out what
	// another goroutine (a runtime one, a test's leftover) allocated meanwhile.
	later := allocated(1000)
	for range 2 {
		require.NoError(t, f.Take(t.Context(), func([]engine.FeedItem) {}))
		later = min(later, allocated(1000))
	}
	assert.Less(t, later, 10*item, "a later burst of 1,000 reuses the blocks kept")
}

// A delta published after a decision event of its session is never merged
// into the delta before that event, even when nobody reads in between.
func TestFeedNeverMergesADeltaAcrossADecision(t *testing.T) {
	t.Parallel()
	asking := make(chan struct{})
	tool := engine.ToolFunc(func(ctx context.Context, _ engine.ToolCall, env *engine.Env) (engine.Result, error) {
		env.Progress("before")
		close(asking)
		if _, err := env.Pause(ctx, engine.PauseRequest{Kind: engine.PauseConfirm, Message: "go on?"}); err != nil {
			return engine.Result{}, err
		}
		env.Progress("after")
		return engine.Result{Output: "done"}, nil
	})
	e, s := newEngine(t, []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{call("t", nil)}}}, engine.WithTool("t", tool))
	f := e.NewFeed()
	defer f.Close()
	done := start(t, s, "go")
	<-asking
	for s.Status() != engine.StatusPaused {
		runtime.Gosched()
	}
	require.NoError(t, s.Confirm("", true))
	require.NoError(t, (<-done).Err)
	require.NoError(t, e.Close())
	var got []string
	for _, it := range drain(t, f) {
		ev := it.Event
		if ev.Type == engine.EventToolProgress {
			got = append(got, "progress "+ev.Text)
			assert.Zero(t, ev.Coalesced)
		} else if ev.Type == engine.EventPaused || ev.Type == engine.EventPauseAnswered {
			got = append(got, string(ev.Type))
		}
	}
	assert.Equal(t, []string{"progress before", "paused", "pause_answered", "progress after"}, got)
}

// Deltas of sessions streaming at once are merged per session, in every
// feed, a feed opened after another closed included.
func TestFeedMergesEachSessionsDeltasInEveryFeed(t *testing.T) {
	t.Parallel()
	const sessions, chunks = 4, 500
	e := engine.New(engine.WithProvider(engine.NewScriptedProvider([]engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{call("chatty", nil)}}})),
		engine.WithTool("chatty", chatty(chunks, 10)))
	t.Cleanup(func() { e.Close() })
	first, closed := e.NewFeed(), e.NewFeed()
	defer first.Close()
	ss := make([]*engine.Session, sessions)
	for i := range ss {
		s, err := e.NewSession(engine.SessionOptions{})
		require.NoError(t, err)
		ss[i] = s
		require.NoError(t, (<-start(t, s, "go")).Err) // each session published to both feeds
	}
	closed.Close()
	require.NoError(t, first.Take(t.Context(), func([]engine.FeedItem) {}))
	later := e.NewFeed()
	defer later.Close()
	outs := make([]<-chan engine.Outcome, sessions)
	for i, s := range ss {
		outs[i] = start(t, s, "go")
	}
	for _, o := range outs {
		require.NoError(t, (<-o).Err)
	}
	for _, s := range ss {
		require.NoError(t, s.Close())
	}
	require.NoError(t, e.Close())
	for name, f := range map[string]*engine.Feed{"first": first, "later": later} {
		assert.Less(t, f.Pending(), sessions*10, "%s: %d sessions' %d chunks each are one queued delta each", name, sessions, chunks)
		progress := map[string]int{}
		version := map[string]uint64{}
		for _, it := range drain(t, f) {
			ev := it.Event
			if v, ok := version[ev.Session]; ok { // both start at the sessions' second runs
				assert.Equal(t, v+1+uint64(ev.Coalesced), ev.Version, "%s: session %s: versions grow by one plus what was merged", name, ev.Session)
			}
			version[ev.Session] = ev.Version
			if ev.Type == engine.EventToolProgress {
				progress[ev.Session] += 1 + ev.Coalesced
				assert.Equal(t, strings.Repeat("x", 10*(1+ev.Coalesced)), ev.Text, "%s: a merged delta's text is its session's", name)
			}
		}
		for _, s := range ss {
			assert.Equal(t, chunks, progress[s.ID()], "%s: session %s: every chunk delivered or counted", name, s.ID())
		}
	}
}

// A task loop's event carries no session version: a delta of its session
// published after it is not merged into the delta before it (that would
// move the second delta's text before the loop's event).
func TestFeedNeverMergesADeltaAcrossALoopEvent(t *testing.T) {
	t.Parallel()
	e := engine.New()
	defer e.Close()
	f := e.NewFeed()
	defer f.Close()
	f.Publish(engine.Event{Type: engine.EventText, Session: "s", Version: 1, Text: "before"})
	f.Publish(engine.Event{Session: "s", Loop: &engine.TaskEvent{Loop: "l", Version: 1, Type: engine.TaskEventTaskEnd}})
	f.Publish(engine.Event{Type: engine.EventText, Session: "s", Version: 2, Text: "after"})
	var got []string
	require.NoError(t, f.Take(t.Context(), func(items []engine.FeedItem) {
		for _, it := range items {
			if it.Event.Loop != nil {
				got = append(got, "loop")
			} else {
				got = append(got, it.Event.Text)
			}
		}
	}))
	assert.Equal(t, []string{"before", "loop", "after"}, got)
}
