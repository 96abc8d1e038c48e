package engine

import (
	"context"
	"strconv"
	"testing"
)

// BenchmarkFeedPublish is what the feed costs per event in scale.js's burst:
// 10,000 sessions each publish a run's events (one of them a text delta)
// before the reader takes them all.
//
//	go test ./engine -run '^$' -bench FeedPublish
func BenchmarkFeedPublish(b *testing.B) {
	e := New()
	defer e.Close()
	f := e.NewFeed()
	defer f.Close()
	const sessions = 10_000
	ids := make([]string, sessions)
	for i := range ids {
		ids[i] = "s" + strconv.Itoa(i)
	}
	types := []EventType{EventRunStarted, EventToolStarted, EventPaused, EventPauseAnswered, EventToolFinished, EventText, EventRunFinished}
	done, cancel := context.WithCancel(context.Background())
	cancel()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for v, typ := range types {
			for _, id := range ids {
				f.publish(&Event{Type: typ, Session: id, Version: uint64(v + 1), Text: "done"})
			}
		}
		_ = f.Take(done, func([]FeedItem) {})
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*sessions*len(types)), "ns/event")
}
