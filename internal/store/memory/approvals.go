package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/typeward/typeward/internal/approval"
)

// Approvals is an in-memory approval.Store for the embedded default.
type Approvals struct {
	mu       sync.Mutex
	requests map[string]*approval.Request
}

var _ approval.Store = (*Approvals)(nil)

// NewApprovals returns an empty store.
func NewApprovals() *Approvals { return &Approvals{requests: map[string]*approval.Request{}} }

func normalizeRequest(r *approval.Request) {
	r.CreatedAt, r.ExpiresAt, r.DecidedAt, r.LastPollAt = usec(r.CreatedAt), usec(r.ExpiresAt), usec(r.DecidedAt), usec(r.LastPollAt)
	r.Interval = r.Interval.Truncate(time.Microsecond)
}

// Create implements approval.Store.
func (s *Approvals) Create(_ context.Context, r *approval.Request, maxPending int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.requests[r.ID]; ok {
		return fmt.Errorf("create backchannel request: id exists")
	}
	n := 0
	for _, o := range s.requests {
		if o.ClientID == r.ClientID && o.Status == approval.Pending && !o.Expired(r.CreatedAt) {
			n++
		}
	}
	if n >= maxPending {
		return fmt.Errorf("client %q: %w", r.ClientID, approval.ErrTooMany)
	}
	stored := r.Clone()
	stored.Status = approval.Pending
	normalizeRequest(stored)
	s.requests[r.ID] = stored
	return nil
}

// Get implements approval.Store.
func (s *Approvals) Get(_ context.Context, id string) (*approval.Request, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.requests[id]
	if !ok {
		return nil, fmt.Errorf("request %.16q: %w", id, approval.ErrNotFound)
	}
	return r.Clone(), nil
}

// Pending implements approval.Store.
func (s *Approvals) Pending(_ context.Context, now time.Time, limit int) ([]*approval.Request, error) {
	s.mu.Lock()
	var out []*approval.Request
	for _, r := range s.requests {
		if r.Status == approval.Pending && !r.Expired(now) {
			out = append(out, r.Clone())
		}
	}
	s.mu.Unlock()
	slices.SortFunc(out, func(a, b *approval.Request) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// Decide implements approval.Store.
func (s *Approvals) Decide(_ context.Context, id string, d approval.Decision) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.requests[id]
	if !ok {
		return fmt.Errorf("request %.16q: %w", id, approval.ErrNotFound)
	}
	if r.Status != approval.Pending || r.Expired(d.At) {
		return fmt.Errorf("decide request %.16q: %w", id, approval.ErrNotPending)
	}
	r.Status = approval.Denied
	if d.Approve {
		r.Status = approval.Approved
	}
	r.DecidedBy, r.DecidedAt, r.Reason = d.By, usec(d.At), d.Reason
	return nil
}

// Poll implements approval.Store.
func (s *Approvals) Poll(_ context.Context, id string, at time.Time) (*approval.Request, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.requests[id]
	if !ok {
		return nil, fmt.Errorf("request %.16q: %w", id, approval.ErrNotFound)
	}
	before := r.Clone()
	r.LastPollAt = usec(at)
	return before, nil
}

// Redeem implements approval.Store.
func (s *Approvals) Redeem(_ context.Context, id, jti string, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.requests[id]
	if !ok {
		return fmt.Errorf("request %.16q: %w", id, approval.ErrNotFound)
	}
	if r.Status != approval.Approved || r.Expired(at) {
		return fmt.Errorf("redeem request %.16q: %w", id, approval.ErrNotPending)
	}
	r.Status, r.JTI = approval.Issued, jti
	return nil
}

// Purge implements approval.Store.
func (s *Approvals) Purge(_ context.Context, before time.Time) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return purge(s.requests, func(r *approval.Request) bool { return r.ExpiresAt.Before(before) }), nil
}
