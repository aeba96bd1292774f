package postgres

import "sync"

// group batches work that many callers wait on at once: items added
// while no batch runs start one, and every item added while a batch runs
// waits for the next, which takes all of them (up to max). Under load one
// round trip serves many callers; alone, a caller pays for one round trip.
// run answers each item's caller itself.
type group[T any] struct {
	max int
	run func(batch []T)

	mu      sync.Mutex
	pending []T
	running bool // a goroutine is running batches; it stops when pending is empty
}

// add queues v and makes sure a batch will take it.
func (g *group[T]) add(v T) {
	g.mu.Lock()
	g.pending = append(g.pending, v)
	if !g.running {
		g.running = true
		go g.drain()
	}
	g.mu.Unlock()
}

// drain runs batches until nothing is pending.
func (g *group[T]) drain() {
	for {
		g.mu.Lock()
		n := min(len(g.pending), g.max)
		if n == 0 {
			g.running = false
			g.pending = nil // drop the grown array
			g.mu.Unlock()
			return
		}
		batch := g.pending[:n:n]
		g.pending = g.pending[n:]
		g.mu.Unlock()
		g.run(batch)
	}
}
