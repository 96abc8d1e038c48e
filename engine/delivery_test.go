package engine_test

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
)

// batches records what a Delivery's sink gets.
type batches struct {
	mu   sync.Mutex
	got  [][]map[string]any
	held bool // the sink holds every batch
}

func (b *batches) sink(t *testing.T) func([]byte) bool {
	return func(batch []byte) bool {
		if assert.Greater(t, cap(batch), len(batch)) {
			assert.Equal(t, byte(0), batch[:len(batch)+1][len(batch)], "a 0 byte follows the batch")
		}
		var evs []map[string]any
		assert.NoError(t, json.Unmarshal(batch, &evs), "a batch is a JSON array: %s", batch)
		b.mu.Lock()
		defer b.mu.Unlock()
		b.got = append(b.got, evs)
		return b.held
	}
}

// events returns every event delivered so far and in how many batches.
func (b *batches) events() (all []map[string]any, n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, evs := range b.got {
		all = append(all, evs...)
	}
	return all, len(b.got)
}

func (b *batches) waitEvents(t *testing.T, n int) []map[string]any {
	t.Helper()
	require.Eventually(t, func() bool { all, _ := b.events(); return len(all) >= n }, 10*time.Second, time.Millisecond)
	all, _ := b.events()
	return all
}

// A Delivery hands the sink JSON arrays of the engine's wire format, items
// its owner added in engine order among them, and every event queued when
// the engine closed.
func TestDeliveryBatchesInTheWireFormat(t *testing.T) {
	t.Parallel()
	e, s := newEngine(t, []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{call("ask", map[string]any{"kind": "confirm", "message": "ok?"})}}, {Text: "done"}})
	var errs []error
	d := e.NewDelivery(func(err error) { errs = append(errs, err) })
	var b batches
	d.SetSink(b.sink(t))
	sub := s.Subscribe()
	defer sub.Close()
	out := start(t, s, "go")
	paused := waitEvent(t, sub, func(ev engine.Event) bool { return ev.Type == engine.EventPaused })
	d.Feed().Add(json.RawMessage(`{"type":"tool_call","callId":"c1","args":{"work_dir":"x"}}`))
	require.NoError(t, s.Confirm(paused.Pause.ID, true))
	require.NoError(t, (<-out).Err)
	require.NoError(t, e.Close())
	d.Close()

	all, _ := b.events()
	var types []string
	for _, ev := range all {
		types = append(types, ev["type"].(string))
	}
	assert.Equal(t, []string{"run_started", "tool_started", "paused", "tool_call", "pause_answered", "tool_finished", "text", "run_finished", "closed"}, types)
	want, err := engine.AppendWireEvent(nil, &paused)
	require.NoError(t, err)
	var wantPaused map[string]any
	require.NoError(t, json.Unmarshal(want, &wantPaused))
	assert.Equal(t, wantPaused, all[2], "an event as AppendWireEvent writes it")
	assert.Equal(t, map[string]any{"type": "tool_call", "callId": "c1", "args": map[string]any{"work_dir": "x"}}, all[3], "an added item as it is")
	assert.Empty(t, errs)
}

// A sink that holds its batches gets two, then nothing until it says it is
// done with one: what came meanwhile waits and comes as one batch.
func TestDeliveryHoldsTwoBatchesAtMost(t *testing.T) {
	t.Parallel()
	e, s := newEngine(t, nil)
	d := e.NewDelivery(nil)
	defer d.Close()
	b := batches{held: true}
	d.SetSink(b.sink(t))
	signal := func(i int) {
		require.NoError(t, s.Signal([]engine.Signal{engine.SignalPause, engine.SignalResume}[i%2]))
	}
	const signals = 10
	for i := range 2 {
		signal(i)
		require.Eventually(t, func() bool { _, n := b.events(); return n == i+1 }, 10*time.Second, time.Millisecond)
	}
	for i := 2; i < signals; i++ {
		signal(i)
	}
	_, n := b.events()
	require.Equal(t, 2, n, "two batches held, nothing more")
	d.Done()
	all := b.waitEvents(t, signals)
	_, n = b.events()
	assert.Equal(t, 3, n, "what waited came as one batch")
	assert.Len(t, all, signals)
	for i, ev := range all {
		assert.Equal(t, float64(i+1), ev["version"], "every event, in order")
	}
	require.NoError(t, e.Close())
}
