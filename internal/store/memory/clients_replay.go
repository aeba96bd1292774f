package memory

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/typeward/typeward/internal/clients"
)

// AssertionReplay is an in-memory clients.ReplayStore. It is right only for
// a single process (the embedded default).
type AssertionReplay struct {
	mu   sync.Mutex
	seen map[replayKey]time.Time // expiry
	// sweepAt is the size at which Claim next purges expired records, so
	// that memory stays proportional to live assertions.
	sweepAt int
}

type replayKey struct{ clientID, jti string }

var _ clients.ReplayStore = (*AssertionReplay)(nil)

const minReplaySweep = 1024

// NewAssertionReplay returns an empty replay store.
func NewAssertionReplay() *AssertionReplay {
	return &AssertionReplay{seen: map[replayKey]time.Time{}, sweepAt: minReplaySweep}
}

// Claim implements clients.ReplayStore.
func (s *AssertionReplay) Claim(_ context.Context, clientID, jti string, expiresAt, now time.Time) error {
	if !clients.ValidJTI(jti) {
		return fmt.Errorf("client %q jti %q: %w", clientID, jti, clients.ErrInvalidJTI)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := replayKey{clientID, jti}
	if exp, ok := s.seen[k]; ok && exp.After(now) {
		return fmt.Errorf("client %q jti %q: %w", clientID, jti, clients.ErrReplayed)
	}
	s.seen[k] = expiresAt
	if len(s.seen) >= s.sweepAt {
		s.purge(now)
		s.sweepAt = max(minReplaySweep, 2*len(s.seen))
	}
	return nil
}

// Purge implements clients.ReplayStore.
func (s *AssertionReplay) Purge(_ context.Context, now time.Time) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.purge(now), nil
}

func (s *AssertionReplay) purge(now time.Time) int64 {
	return purge(s.seen, func(exp time.Time) bool { return !exp.After(now) })
}
