package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/typeward/typeward/internal/resources"
)

// Resources is an in-memory resources.Store for the embedded default.
type Resources struct {
	mu   sync.Mutex
	list map[string]resources.Resource
}

var _ resources.Store = (*Resources)(nil)

// NewResources returns an empty list.
func NewResources() *Resources { return &Resources{list: map[string]resources.Resource{}} }

// Add implements resources.Store.
func (s *Resources) Add(_ context.Context, r resources.Resource) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.list[r.URI]; ok {
		return fmt.Errorf("resource %q: %w", r.URI, resources.ErrConflict)
	}
	r.CreatedAt = usec(r.CreatedAt)
	s.list[r.URI] = r
	return nil
}

// List implements resources.Store.
func (s *Resources) List(context.Context) ([]resources.Resource, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]resources.Resource, 0, len(s.list))
	for _, r := range s.list {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b resources.Resource) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.URI, b.URI))
	})
	return out, nil
}

// Delete implements resources.Store.
func (s *Resources) Delete(_ context.Context, uri string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.list[uri]; !ok {
		return fmt.Errorf("resource %q: %w", uri, resources.ErrNotFound)
	}
	delete(s.list, uri)
	return nil
}
