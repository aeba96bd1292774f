package storetest

import (
	"errors"
	"sync"
	"testing"
)

// exactlyOneWins runs attempt(0..n-1) on n goroutines released together
// and fails unless exactly one succeeds and every other fails with loser:
// how a store shows that a write is decided atomically.
func exactlyOneWins(t *testing.T, n int, loser error, attempt func(i int) error) {
	t.Helper()
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { <-start; errs[i] = attempt(i) })
	}
	close(start)
	wg.Wait()
	wins := 0
	for i, err := range errs {
		switch {
		case err == nil:
			wins++
		case !errors.Is(err, loser):
			t.Errorf("attempt %d: %v, want nil or %v", i, err, loser)
		}
	}
	if wins != 1 {
		t.Errorf("%d of %d attempts won, want exactly 1", wins, n)
	}
}
