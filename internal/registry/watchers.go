package registry

import (
	"slices"
	"sync"
)

// Watchers are the functions a Store calls after each change it commits,
// so that a Cache in front of it is invalidated at once instead of when
// (on Postgres) the notification comes back. The zero value is ready.
type Watchers struct {
	mu  sync.Mutex
	fns []func(Change)
}

// Watch adds fn; it is called after every committed change, outside the
// store's locks and transactions.
func (w *Watchers) Watch(fn func(Change)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.fns = append(w.fns, fn)
}

// Notify calls every watcher with each change, in order.
func (w *Watchers) Notify(changes []Change) {
	if len(changes) == 0 {
		return
	}
	w.mu.Lock()
	fns := slices.Clone(w.fns)
	w.mu.Unlock()
	for _, c := range changes {
		for _, fn := range fns {
			fn(c)
		}
	}
}
