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
// most its capacity of records and MaxBytes of them (audit.Size), dropping
// the oldest tenth when full: an embedded server runs for a session, not
// for a retention period, and a refusal's issues make a record up to
// tens of KiB, so a count alone would not bound the memory.
type Audit struct {
	// MaxBytes bounds the records kept, by audit.Size (DefaultAuditBytes
	// from NewAudit); set it before the first Append.
	MaxBytes int64

	mu       sync.RWMutex
	records  []audit.Issuance // in append order
	ids      map[audit.Position]struct{}
	capacity int
	bytes    int64 // audit.Size of records
}

var _ audit.Store = (*Audit)(nil)

// Defaults of NewAudit: the record cap when given 0, and MaxBytes.
const (
	DefaultAuditCapacity = 100_000
	DefaultAuditBytes    = 128 << 20
)

// NewAudit returns an empty log keeping at most capacity records
// (DefaultAuditCapacity when 0) and DefaultAuditBytes of them.
func NewAudit(capacity int) *Audit {
	if capacity <= 0 {
		capacity = DefaultAuditCapacity
	}
	return &Audit{capacity: capacity, MaxBytes: DefaultAuditBytes, ids: map[audit.Position]struct{}{}}
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
	size := int64(audit.Size(&stored))
	if len(s.records) >= s.capacity || s.bytes+size > s.MaxBytes {
		s.dropOldest(size)
	}
	s.records = append(s.records, stored)
	s.ids[pos] = struct{}{}
	s.bytes += size
	if ended != nil {
		return fmt.Errorf("audit append: %w", ended)
	}
	return nil
}

// dropOldest makes room for a record of size bytes: at least the oldest
// tenth of the capacity goes (amortising the copy), and more while the
// rest would exceed nine tenths of MaxBytes.
func (s *Audit) dropOldest(size int64) {
	drop, freed := 0, int64(0)
	for drop < len(s.records) && (drop < max(1, s.capacity/10) || s.bytes-freed+size > s.MaxBytes/10*9) {
		r := &s.records[drop]
		freed += int64(audit.Size(r))
		delete(s.ids, audit.Position{Time: r.Time, ID: r.ID})
		drop++
	}
	s.records = slices.Delete(s.records, 0, drop)
	s.bytes -= freed
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
			s.bytes -= int64(audit.Size(&r))
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
