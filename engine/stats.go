package engine

import "runtime/metrics"

// Stats is a reading of the engine's runtime state, for monitoring.
type Stats struct {
	// HeapBytes is the Go heap in use by live and not yet swept objects.
	HeapBytes uint64 `json:"heap_bytes"`
	// LiveHeapBytes is the Go heap the last garbage collection found live.
	LiveHeapBytes uint64 `json:"live_heap_bytes"`
	// StackBytes is the memory of goroutine stacks.
	StackBytes uint64 `json:"stack_bytes"`
	// Goroutines is the number of goroutines of the whole library.
	Goroutines uint64 `json:"goroutines"`
	// Sessions counts the open sessions by status name (every status is present).
	Sessions map[string]int `json:"sessions"`
	// EventsQueued is how many events wait in the engine's feeds for their reader.
	EventsQueued int `json:"events_queued"`
	// EventsCoalesced is how many text and progress deltas were merged into
	// a later delta for a reader that had not taken them yet (their text is
	// kept; no decision or terminal event is ever merged).
	EventsCoalesced uint64 `json:"events_coalesced"`
}

var statsSamples = []string{"/memory/classes/heap/objects:bytes", "/sched/goroutines:goroutines", "/gc/heap/live:bytes", "/memory/classes/heap/stacks:bytes"}

// Stats reads the runtime metrics (no stop-the-world) and counts sessions
// and queued events.
func (e *Engine) Stats() Stats {
	samples := make([]metrics.Sample, len(statsSamples))
	for i, name := range statsSamples {
		samples[i].Name = name
	}
	metrics.Read(samples)
	st := Stats{Sessions: make(map[string]int, int(StatusClosed)+1)}
	if v := samples[0].Value; v.Kind() == metrics.KindUint64 {
		st.HeapBytes = v.Uint64()
	}
	if v := samples[1].Value; v.Kind() == metrics.KindUint64 {
		st.Goroutines = v.Uint64()
	}
	if v := samples[2].Value; v.Kind() == metrics.KindUint64 {
		st.LiveHeapBytes = v.Uint64()
	}
	if v := samples[3].Value; v.Kind() == metrics.KindUint64 {
		st.StackBytes = v.Uint64()
	}
	for s := StatusIdle; s <= StatusClosed; s++ {
		st.Sessions[s.String()] = 0
	}
	for _, s := range e.Sessions() {
		st.Sessions[s.Status().String()]++
	}
	if fl := e.feeds.Load(); fl != nil {
		for _, f := range fl.list {
			st.EventsQueued += f.Pending()
		}
	}
	st.EventsCoalesced = e.coalesced.Load()
	return st
}
