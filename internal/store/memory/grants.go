package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/typeward/typeward/internal/grant"
)

// Grants is an in-memory grant.Store for the embedded default.
type Grants struct {
	mu       sync.Mutex
	codes    map[string]*grant.Code
	tokens   map[string]*grant.RefreshToken
	families map[string]*grant.Family
}

var _ grant.Store = (*Grants)(nil)

// NewGrants returns an empty grant store.
func NewGrants() *Grants {
	return &Grants{codes: map[string]*grant.Code{}, tokens: map[string]*grant.RefreshToken{}, families: map[string]*grant.Family{}}
}

// CreateCode implements grant.Store.
func (s *Grants) CreateCode(_ context.Context, c *grant.Code) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.codes[string(c.Hash)]; ok {
		return fmt.Errorf("create code: already exists")
	}
	s.codes[string(c.Hash)] = c.Clone()
	return nil
}

// Code implements grant.Store.
func (s *Grants) Code(_ context.Context, hash []byte) (*grant.Code, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.codes[string(hash)]
	if !ok {
		return nil, fmt.Errorf("code: %w", grant.ErrNotFound)
	}
	return c.Clone(), nil
}

// RedeemCode implements grant.Store.
func (s *Grants) RedeemCode(_ context.Context, hash []byte, at time.Time, jti string, jtiExpires time.Time, f *grant.Family, first *grant.RefreshToken) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.codes[string(hash)]
	switch {
	case !ok:
		return fmt.Errorf("redeem code: %w", grant.ErrNotFound)
	case !c.RedeemedAt.IsZero() || !at.Before(c.ExpiresAt):
		return fmt.Errorf("redeem code: %w", grant.ErrSpent)
	}
	c.RedeemedAt, c.JTI, c.JTIExpiresAt = at, jti, jtiExpires
	if f != nil {
		c.FamilyID = f.ID
		s.families[f.ID] = f.Clone()
		t := *first
		t.JTI, t.JTIExpiresAt = jti, jtiExpires
		s.tokens[string(first.Hash)] = &t
	}
	return nil
}

// Refresh implements grant.Store.
func (s *Grants) Refresh(_ context.Context, hash []byte) (*grant.RefreshToken, *grant.Family, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tokens[string(hash)]
	if !ok {
		return nil, nil, fmt.Errorf("refresh token: %w", grant.ErrNotFound)
	}
	f := s.families[t.FamilyID]
	c := *t
	return &c, f.Clone(), nil
}

// Rotate implements grant.Store.
func (s *Grants) Rotate(_ context.Context, hash []byte, at time.Time, next *grant.RefreshToken, jti string, jtiExpires time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tokens[string(hash)]
	if !ok {
		return fmt.Errorf("rotate refresh token: %w", grant.ErrNotFound)
	}
	f := s.families[t.FamilyID]
	if !t.UsedAt.IsZero() || !at.Before(t.ExpiresAt) || !f.Live(at) {
		return fmt.Errorf("rotate refresh token: %w", grant.ErrSpent)
	}
	t.UsedAt = at
	n := *next
	n.JTI, n.JTIExpiresAt = jti, jtiExpires
	s.tokens[string(next.Hash)] = &n
	f.LastUsedAt, f.JTI, f.JTIExpiresAt = at, jti, jtiExpires
	return nil
}

// Issued implements grant.Store.
func (s *Grants) Issued(_ context.Context, familyID string, at time.Time) ([]grant.Issued, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []grant.Issued
	for _, t := range s.tokens {
		if t.FamilyID == familyID && t.JTI != "" && t.JTIExpiresAt.After(at) {
			out = append(out, grant.Issued{JTI: t.JTI, ExpiresAt: t.JTIExpiresAt})
		}
	}
	return out, nil
}

// RevokeFamily implements grant.Store.
func (s *Grants) RevokeFamily(_ context.Context, id, reason string, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.families[id]
	if !ok {
		return fmt.Errorf("revoke family: %w", grant.ErrNotFound)
	}
	if f.RevokedAt.IsZero() {
		f.RevokedAt, f.RevokedReason = at, reason
	}
	return nil
}

// Family implements grant.Store.
func (s *Grants) Family(_ context.Context, id string) (*grant.Family, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.families[id]
	if !ok {
		return nil, fmt.Errorf("family: %w", grant.ErrNotFound)
	}
	return f.Clone(), nil
}

// Families implements grant.Store.
func (s *Grants) Families(_ context.Context, filter grant.Filter, limit int) ([]*grant.Family, error) {
	s.mu.Lock()
	var out []*grant.Family
	for _, f := range s.families {
		if (filter.ClientID == "" || f.ClientID == filter.ClientID) && (filter.Subject == "" || f.Subject == filter.Subject) {
			out = append(out, f.Clone())
		}
	}
	s.mu.Unlock()
	slices.SortFunc(out, func(a, b *grant.Family) int {
		return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), cmp.Compare(b.ID, a.ID))
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// Purge implements grant.Store.
func (s *Grants) Purge(_ context.Context, before time.Time) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var n int64
	for k, c := range s.codes {
		if c.ExpiresAt.Before(before) {
			delete(s.codes, k)
			n++
		}
	}
	for id, f := range s.families {
		if f.ExpiresAt.Before(before) || (!f.RevokedAt.IsZero() && f.RevokedAt.Before(before)) {
			delete(s.families, id)
			n++
		}
	}
	for k, t := range s.tokens {
		if _, ok := s.families[t.FamilyID]; !ok {
			delete(s.tokens, k)
		}
	}
	return n, nil
}
