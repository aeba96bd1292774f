package memory_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/audit"
	"github.com/typeward/typeward/internal/store/memory"
	"github.com/typeward/typeward/internal/store/storetest"
)

func TestAuditConformance(t *testing.T) {
	storetest.RunAudit(t, func(*testing.T) audit.Store { return memory.NewAudit(0) })
}

// The embedded log is bounded: past its capacity the oldest tenth goes.
func TestAuditDropsOldestBeyondCapacity(t *testing.T) {
	ctx := context.Background()
	s := memory.NewAudit(10)
	at := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	for i := range 11 {
		rec := &audit.Issuance{ID: string(rune('a' + i)), Time: at.Add(time.Duration(i) * time.Second), ClientID: "c", Outcome: audit.Issued}
		if err := s.Append(ctx, rec); err != nil {
			t.Fatal(err)
		}
	}
	page, err := s.Query(ctx, audit.Query{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range page.Items {
		got = append(got, r.ID)
	}
	if want := []string{"k", "j", "i", "h", "g", "f", "e", "d", "c", "b"}; !slices.Equal(got, want) {
		t.Errorf("kept %v, want %v", got, want)
	}
	// The dropped id is free again.
	if err := s.Append(ctx, &audit.Issuance{ID: "a", Time: at, ClientID: "c", Outcome: audit.Denied}); err != nil {
		t.Errorf("re-append of a dropped id: %v", err)
	}
}
