package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/registration"
)

// Registrations is an in-memory registration.Store on a Clients store.
type Registrations struct {
	clients *Clients
	mu      sync.Mutex
	records map[string]registration.Record
	tokens  map[string]memToken
}

type memToken struct {
	registration.AccessToken
	used bool
}

var _ registration.Store = (*Registrations)(nil)

// NewRegistrations keeps registrations of clients held by c.
func NewRegistrations(c *Clients) *Registrations {
	return &Registrations{clients: c, records: map[string]registration.Record{}, tokens: map[string]memToken{}}
}

// Create implements registration.Store.
func (s *Registrations) Create(ctx context.Context, c *clients.Client, r registration.Record, maxUnused int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	unused := 0
	for _, rec := range s.records {
		if rec.UsedAt.IsZero() {
			unused++
		}
	}
	if unused >= maxUnused {
		return fmt.Errorf("register client: %w", registration.ErrTooMany)
	}
	if err := s.clients.Create(ctx, c); err != nil {
		return err
	}
	r.RegisteredAt, r.UsedAt = usec(r.RegisteredAt), usec(r.UsedAt)
	s.records[r.ClientID] = r
	return nil
}

// Unused implements registration.Store.
func (s *Registrations) Unused(_ context.Context, limit int) ([]registration.Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []registration.Record
	for _, r := range s.records {
		if r.UsedAt.IsZero() {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b registration.Record) int {
		return cmp.Or(a.RegisteredAt.Compare(b.RegisteredAt), cmp.Compare(a.ClientID, b.ClientID))
	})
	return out[:min(limit, len(out))], nil
}

// MarkUsed implements registration.Store.
func (s *Registrations) MarkUsed(_ context.Context, clientID string, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.records[clientID]
	if !ok {
		return fmt.Errorf("registration %q: %w", clientID, registration.ErrNotFound)
	}
	if r.UsedAt.IsZero() {
		r.UsedAt = usec(at)
		s.records[clientID] = r
	}
	return nil
}

// Delete implements registration.Store.
func (s *Registrations) Delete(_ context.Context, clientID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.records[clientID]
	if !ok || !r.UsedAt.IsZero() {
		return fmt.Errorf("unused registration %q: %w", clientID, registration.ErrNotFound)
	}
	delete(s.records, clientID)
	s.clients.mu.Lock()
	delete(s.clients.clients, clientID)
	s.clients.mu.Unlock()
	return nil
}

// AddToken implements registration.Store.
func (s *Registrations) AddToken(_ context.Context, t registration.AccessToken) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t.CreatedAt, t.ExpiresAt = usec(t.CreatedAt), usec(t.ExpiresAt)
	s.tokens[string(t.Hash)] = memToken{AccessToken: t}
	return nil
}

// UseToken implements registration.Store.
func (s *Registrations) UseToken(_ context.Context, hash []byte, now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tokens[string(hash)]
	if !ok || t.used || !now.Before(t.ExpiresAt) {
		return fmt.Errorf("initial access token: %w", registration.ErrNotFound)
	}
	t.used = true
	s.tokens[string(hash)] = t
	return nil
}
