package memory

import (
	"context"
	"sync"
	"time"

	"github.com/typeward/typeward/internal/nonce"
)

// DPoPNonces is the in-memory nonce.Store: at most Lifetime/Rotation + 1
// nonces at a time.
type DPoPNonces struct {
	mu     sync.Mutex
	issued map[string]time.Time
	newest string
}

var _ nonce.Store = (*DPoPNonces)(nil)

// NewDPoPNonces returns an empty nonce store.
func NewDPoPNonces() *DPoPNonces { return &DPoPNonces{issued: map[string]time.Time{}} }

// Current implements nonce.Store.
func (s *DPoPNonces) Current(_ context.Context, now time.Time) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if at, ok := s.issued[s.newest]; ok && at.After(now.Add(-nonce.Rotation)) {
		return s.newest, nil
	}
	for n, at := range s.issued {
		if !at.After(now.Add(-nonce.Lifetime)) {
			delete(s.issued, n)
		}
	}
	s.newest = nonce.New()
	s.issued[s.newest] = now
	return s.newest, nil
}

// Valid implements nonce.Store.
func (s *DPoPNonces) Valid(_ context.Context, n string, now time.Time) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	at, ok := s.issued[n]
	return ok && at.After(now.Add(-nonce.Lifetime)), nil
}
