package engine

import (
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// Work queued behind goroutines that block for ever still runs, each item
// once.
func TestRunnerNeverQueuesBehindABlockedRun(t *testing.T) {
	var q runner
	block := make(chan struct{})
	defer close(block)
	const n = 100
	var mu sync.Mutex
	var order []int
	done := make(chan struct{}, n)
	for k := range n {
		q.start(func() {
			mu.Lock()
			order = append(order, k)
			mu.Unlock()
			done <- struct{}{}
			if k%2 == 0 {
				<-block // half the runs never end while the others come
			}
		})
	}
	for range n {
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("an item waits behind blocked runs; ran %v", order)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(order)
	for k, v := range order {
		if v != k {
			t.Fatalf("items did not run once each: %v", order)
		}
	}
}

// A burst's queue is given back once it is drained.
func TestRunnerKeepsNoBurstQueue(t *testing.T) {
	var q runner
	var wg sync.WaitGroup
	for range 10 * keptRunnerQueue {
		wg.Add(1)
		q.start(wg.Done)
	}
	wg.Wait()
	for {
		q.mu.Lock()
		drained := q.head == 0 && len(q.queue) == 0
		c := cap(q.queue)
		q.mu.Unlock()
		if drained {
			if c > keptRunnerQueue {
				t.Fatalf("queue of capacity %d kept after the burst", c)
			}
			return
		}
		runtime.Gosched() // the last goroutine is between its item and its next look
	}
}
