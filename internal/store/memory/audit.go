package memory

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/typeward/typeward/internal/audit"
)

// Audit is an in-memory audit.Store for the embedded default. It keeps at
// most its capacity of records, dropping the oldest tenth when full: an
// embedded server runs for a session, not for a retention period.
type Audit struct {
	mu       sync.RWMutex
	records  []audit.Issuance // in append order
	ids      map[audit.Position]struct{}
	capacity int
}

var _ audit.Store = (*Audit)(nil)

// DefaultAuditCapacity is NewAudit's record cap when given 0.
const DefaultAuditCapacity = 100_000

// NewAudit returns an empty log keeping at most capacity records
// (DefaultAuditCapacity when 0).
func NewAudit(capacity int) *Audit {
	if capacity <= 0 {
		capacity = DefaultAuditCapacity
	}
	return &Audit{capacity: capacity, ids: map[audit.Position]struct{}{}}
}

// Append implements audit.Store.
func (s *Audit) Append(ctx context.Context, rec *audit.Issuance) error {
	if err := audit.Normalize(rec); err != nil {
		return err
	}
	stored := audit.Clone(*rec)
	ended := ctx.Err()
	if ended != nil {
		stored = audit.Undelivered(stored)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	pos := audit.Position{Time: rec.Time, ID: rec.ID}
	if _, ok := s.ids[pos]; ok {
		return fmt.Errorf("audit: record %q: %w", rec.ID, audit.ErrDuplicateID)
	}
	if len(s.records) >= s.capacity {
		drop := max(1, s.capacity/10) // amortises the copy
		for _, r := range s.records[:drop] {
			delete(s.ids, audit.Position{Time: r.Time, ID: r.ID})
		}
		s.records = slices.Delete(s.records, 0, drop)
	}
	s.records = append(s.records, stored)
	s.ids[pos] = struct{}{}
	if ended != nil {
		return fmt.Errorf("audit append: %w", ended)
	}
	return nil
}

// Retain implements audit.Store, to the microsecond.
func (s *Audit) Retain(_ context.Context, now time.Time, retention time.Duration) error {
	if retention <= 0 {
		return nil
	}
	cutoff := now.Add(-retention)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.records = slices.DeleteFunc(s.records, func(r audit.Issuance) bool {
		if r.Time.Before(cutoff) {
			delete(s.ids, audit.Position{Time: r.Time, ID: r.ID})
			return true
		}
		return false
	})
	return nil
}

// Query implements audit.Store.
func (s *Audit) Query(_ context.Context, q audit.Query) (audit.Page, error) {
	after, err := q.Normalize()
	if err != nil {
		return audit.Page{}, err
	}
	s.mu.RLock()
	var hits []audit.Issuance
	for _, r := range s.records {
		pos := audit.Position{Time: r.Time, ID: r.ID}
		switch {
		case q.ClientID != "" && r.ClientID != q.ClientID,
			q.Outcome != "" && r.Outcome != q.Outcome,
			!q.Since.IsZero() && r.Time.Before(q.Since),
			after != nil && !pos.Older(*after):
			continue
		}
		hits = append(hits, r)
	}
	s.mu.RUnlock()

	slices.SortFunc(hits, func(a, b audit.Issuance) int {
		pa, pb := audit.Position{Time: a.Time, ID: a.ID}, audit.Position{Time: b.Time, ID: b.ID}
		switch {
		case pb.Older(pa):
			return -1
		case pa.Older(pb):
			return 1
		}
		return 0
	})
	page := audit.Page{Items: []audit.Issuance{}}
	for i, r := range hits {
		if i == q.Limit {
			last := page.Items[len(page.Items)-1]
			page.Next = audit.EncodeCursor(audit.Position{Time: last.Time, ID: last.ID})
			break
		}
		page.Items = append(page.Items, audit.Clone(r))
	}
	return page, nil
}

// Aggregate implements audit.Store.
func (s *Audit) Aggregate(_ context.Context, w audit.Window) (audit.Summary, error) {
	if err := w.Check(); err != nil {
		return audit.Summary{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return audit.Summarize(s.records, w), nil
}
