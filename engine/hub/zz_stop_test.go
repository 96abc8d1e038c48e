package hub_test

import (
	"context"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/bash"
)

func TestZZStop(t *testing.T) {
	if os.Getenv("ZZ") == "" {
		t.Skip()
	}
	const marker = "3017.77"
	turns := sleepingBash(marker)
	eng, err := engine.Open(t.Context(), engine.WithTool("bash", bash.New()), engine.WithProvider(engine.NewScriptedProvider(turns)))
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	feed := eng.NewFeed()
	defer feed.Close()
	for range 100 {
		s, _ := eng.NewSession(engine.SessionOptions{})
		s.Start(context.WithoutCancel(t.Context()), "go")
	}
	for len(running(marker)) < 100 {
		time.Sleep(10 * time.Millisecond)
	}
	// drain
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
	feed.Take(ctx, func([]engine.FeedItem) {})
	cancel()
	began := time.Now()
	rep := eng.EmergencyStop()
	took := time.Since(began)
	var fin []time.Duration
	ctx, cancel = context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	for feed.Take(ctx, func(items []engine.FeedItem) {
		for _, it := range items {
			if it.Event.Type == engine.EventToolFinished {
				fin = append(fin, it.Event.At.Sub(began))
			}
		}
	}) == nil {
	}
	sort.Slice(fin, func(i, j int) bool { return fin[i] < fin[j] })
	t.Logf("stopped %d in %v; tool_finished n=%d first %v p10 %v p50 %v p90 %v last %v", len(rep.Stopped), took, len(fin), fin[0], fin[len(fin)/10], fin[len(fin)/2], fin[len(fin)*9/10], fin[len(fin)-1])
}
