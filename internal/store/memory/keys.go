package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/typeward/typeward/internal/keys"
)

// Keys is an in-memory keys.Store: the embedded default's signing keys,
// which live as long as the process.
type Keys struct {
	mu   sync.Mutex
	keys map[string]keys.Record
}

var _ keys.Store = (*Keys)(nil)

// NewKeys returns an empty key store.
func NewKeys() *Keys { return &Keys{keys: map[string]keys.Record{}} }

// InsertFirst implements keys.Store.
func (s *Keys) InsertFirst(_ context.Context, rec keys.Record) (bool, error) {
	if err := rec.Validate(); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.keys) > 0 {
		return false, nil
	}
	s.keys[rec.KID] = copyRecord(rec)
	return true, nil
}

// Rotate implements keys.Store.
func (s *Keys) Rotate(_ context.Context, next keys.Record, r keys.Retirement) error {
	if err := next.Validate(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.keys[next.KID]; ok {
		return fmt.Errorf("key %s: %w", next.KID, keys.ErrConflict)
	}
	if !r.IfNewestCreated.IsZero() {
		var newest time.Time
		for _, k := range s.keys {
			if k.CreatedAt.After(newest) {
				newest = k.CreatedAt
			}
		}
		if !newest.Equal(r.IfNewestCreated) {
			return fmt.Errorf("key %s: %w", next.KID, keys.ErrRotatedMeanwhile)
		}
	}
	for kid, old := range s.keys {
		old.RetireAt = earliest(old.RetireAt, r.At)
		old.ExpiresAt = earliest(old.ExpiresAt, r.ExpiresAt)
		s.keys[kid] = old
	}
	s.keys[next.KID] = copyRecord(next)
	return nil
}

// earliest is the earlier of a stored time (zero: unset) and t.
func earliest(stored, t time.Time) time.Time {
	if stored.IsZero() || t.Before(stored) {
		return t
	}
	return stored
}

// List implements keys.Store.
func (s *Keys) List(context.Context) ([]keys.Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]keys.Record, 0, len(s.keys))
	for _, r := range s.keys {
		out = append(out, copyRecord(r))
	}
	slices.SortFunc(out, func(a, b keys.Record) int {
		if c := a.ActivateAt.Compare(b.ActivateAt); c != 0 {
			return c
		}
		return strings.Compare(a.KID, b.KID)
	})
	return out, nil
}

// Prune implements keys.Store.
func (s *Keys) Prune(_ context.Context, t time.Time) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return int(purge(s.keys, func(r keys.Record) bool { return !r.ExpiresAt.IsZero() && !r.ExpiresAt.After(t) })), nil
}

// copyRecord keeps callers from sharing the stored byte slices.
func copyRecord(r keys.Record) keys.Record {
	r.PublicJWK = slices.Clone(r.PublicJWK)
	r.Sealed = slices.Clone(r.Sealed)
	return r
}
