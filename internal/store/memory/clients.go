package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/grading"
)

// Clients is an in-memory clients.Store for the embedded default.
type Clients struct {
	mu      sync.RWMutex
	clients map[string]*clients.Client
}

var _ clients.Store = (*Clients)(nil)

// NewClients returns an empty client store.
func NewClients() *Clients { return &Clients{clients: map[string]*clients.Client{}} }

// Create implements clients.Store.
func (s *Clients) Create(_ context.Context, c *clients.Client) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.clients[c.ID]; ok {
		return fmt.Errorf("create client %q: %w", c.ID, clients.ErrConflict)
	}
	stored := c.Clone()
	stored.CreatedAt = stored.CreatedAt.UTC()
	stored.Approval = stored.Approval.OrNever()
	stored.Validation = stored.Validation.OrLenient()
	s.clients[c.ID] = stored
	return nil
}

// Get implements clients.Store.
func (s *Clients) Get(_ context.Context, id string) (*clients.Client, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	c, ok := s.clients[id]
	if !ok {
		return nil, fmt.Errorf("client %q: %w", id, clients.ErrNotFound)
	}
	return c.Clone(), nil
}

// Update implements clients.Store.
func (s *Clients) Update(_ context.Context, c *clients.Client) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.clients[c.ID]
	if !ok {
		return fmt.Errorf("update client %q: %w", c.ID, clients.ErrNotFound)
	}
	stored := c.Clone()
	stored.CreatedAt = old.CreatedAt
	stored.Approval = stored.Approval.OrNever()
	stored.Validation = stored.Validation.OrLenient()
	s.clients[c.ID] = stored
	return nil
}

// List implements clients.Store.
func (s *Clients) List(_ context.Context) ([]*clients.Client, error) {
	s.mu.RLock()
	out := make([]*clients.Client, 0, len(s.clients))
	for _, c := range s.clients {
		out = append(out, c.Clone())
	}
	s.mu.RUnlock()
	slices.SortFunc(out, func(a, b *clients.Client) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

// SetApproval implements clients.Store.
func (s *Clients) SetApproval(_ context.Context, id string, a clients.Approval) error {
	return s.update(id, "set approval of", func(c *clients.Client) { c.Approval = a.OrNever() })
}

// SetValidation implements clients.Store.
func (s *Clients) SetValidation(_ context.Context, id string, m grading.Mode) error {
	return s.update(id, "set validation of", func(c *clients.Client) { c.Validation = m.OrLenient() })
}

// SetDPoPBound implements clients.Store.
func (s *Clients) SetDPoPBound(_ context.Context, id string, bound bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.clients[id]
	if !ok {
		return fmt.Errorf("set dpop_bound_access_tokens of client %q: %w", id, clients.ErrNotFound)
	}
	c.DPoPBound = bound
	return nil
}

// Disable implements clients.Store.
func (s *Clients) Disable(_ context.Context, id string) error {
	return s.update(id, "disable", func(c *clients.Client) { c.Disabled = true })
}

// update changes the stored client id under the lock; what names the
// change in the error of an unknown id.
func (s *Clients) update(id, what string, change func(*clients.Client)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.clients[id]
	if !ok {
		return fmt.Errorf("%s client %q: %w", what, id, clients.ErrNotFound)
	}
	change(c)
	return nil
}
