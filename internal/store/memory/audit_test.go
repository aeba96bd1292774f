package memory_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/audit"
	"github.com/typeward/typeward/internal/store/memory"
	"github.com/typeward/typeward/internal/store/storetest"
	"github.com/typeward/typeward/internal/verdict"
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

// Records with issues are large: the log is bounded by their size too,
// dropping the oldest.
func TestAuditDropsOldestBeyondMaxBytes(t *testing.T) {
	ctx := context.Background()
	s := memory.NewAudit(1000)
	s.MaxBytes = 64 << 10
	at := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	witness := json.RawMessage(`"` + strings.Repeat("w", audit.MaxWitnessBytes-2) + `"`)
	var sizes int
	for i := range 100 {
		rec := &audit.Issuance{Time: at.Add(time.Duration(i) * time.Second), ClientID: "c", Outcome: audit.Denied}
		for range audit.MaxIssues {
			rec.Issues = append(rec.Issues, audit.Issue{Issue: verdict.Issue{Code: "type_mismatch", Message: strings.Repeat("m", audit.MaxIssueMessage), Witness: witness}})
		}
		if err := s.Append(ctx, rec); err != nil {
			t.Fatal(err)
		}
		sizes = audit.Size(rec)
	}
	page, err := s.Query(ctx, audit.Query{Limit: audit.MaxLimit})
	if err != nil {
		t.Fatal(err)
	}
	kept := len(page.Items)
	if kept == 0 || kept*sizes > 64<<10 || !page.Items[0].Time.Equal(at.Add(99*time.Second)) {
		t.Errorf("kept %d records of %d bytes each (newest %v) under a 64 KiB bound", kept, sizes, page.Items[0].Time)
	}
}
