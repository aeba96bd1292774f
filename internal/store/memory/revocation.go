package memory

import (
	"context"
	"sync"
	"time"

	"github.com/typeward/typeward/internal/revocation"
)

// Revocations is an in-memory revocation.Store for the embedded default.
type Revocations struct {
	mu      sync.RWMutex
	revoked map[string]time.Time // jti -> token expiry
}

var _ revocation.Store = (*Revocations)(nil)

// NewRevocations returns an empty revocation list.
func NewRevocations() *Revocations { return &Revocations{revoked: map[string]time.Time{}} }

// Revoke implements revocation.Store.
func (s *Revocations) Revoke(_ context.Context, jti string, expiresAt time.Time) error {
	if !revocation.ValidJTI(jti) {
		return revocation.ErrInvalidJTI
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.revoked[jti]; !ok || expiresAt.After(old) {
		s.revoked[jti] = expiresAt
	}
	return nil
}

// IsRevoked implements revocation.Store.
func (s *Revocations) IsRevoked(_ context.Context, jti string) (bool, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, ok := s.revoked[jti]
	return ok, nil
}

// Purge implements revocation.Store.
func (s *Revocations) Purge(_ context.Context, now time.Time) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return purge(s.revoked, func(exp time.Time) bool { return !exp.After(now) }), nil
}
