package engine

import "sync"

// runner starts the goroutines of background runs (Start, a continued run,
// a parked run carried on by its answer). Each piece of work gets a fresh
// goroutine, as "go f()" would, but a goroutine that finishes its work takes
// the next one queued before it exits: the deep call of a run (the model's
// turn, a tool, the events) then reuses a stack that has already grown,
// instead of every new goroutine growing its stack from 2 KiB by copying
// it twice. In a burst (10,000 answers at once) most of the work runs on
// the few goroutines already running, and the fresh ones find nothing left
// and exit at once.
//
// Nothing waits behind a blocked run: there are always at least as many
// fresh goroutines that have not taken anything yet as items queued (each
// go adds one of each; a goroutine that has finished its work may take an
// item but is not counted), so every item is taken by a goroutine that is
// not busy. Items are taken in the order they came.
type runner struct {
	mu    sync.Mutex
	queue []func()
	head  int
}

// keptRunnerQueue is the capacity of the queue kept between bursts.
const keptRunnerQueue = 256

// start runs f on a goroutine of its own or on one that has just finished.
func (q *runner) start(f func()) {
	q.mu.Lock()
	q.queue = append(q.queue, f)
	q.mu.Unlock()
	go q.work()
}

// work runs queued items until none is left.
func (q *runner) work() {
	for {
		q.mu.Lock()
		if q.head == len(q.queue) {
			q.queue, q.head = q.queue[:0], 0
			if cap(q.queue) > keptRunnerQueue {
				q.queue = nil // a burst's queue is given back
			}
			q.mu.Unlock()
			return
		}
		f := q.queue[q.head]
		q.queue[q.head] = nil
		q.head++
		q.mu.Unlock()
		f()
	}
}
