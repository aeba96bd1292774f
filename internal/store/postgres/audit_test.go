package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/audit"
	"github.com/typeward/typeward/internal/store/postgres"
	"github.com/typeward/typeward/internal/store/postgres/pgtest"
	"github.com/typeward/typeward/internal/store/storetest"
)

func TestAuditConformance(t *testing.T) {
	t.Parallel()
	storetest.RunAudit(t, func(t *testing.T) audit.Store {
		db, _ := pgtest.New(t)
		return postgres.NewAudit(db)
	})
}

// BenchmarkAuditAppend is the audit log's share of every token request on
// Postgres, from many concurrent requests as under load: group commit
// lets one disk flush serve many appends.
func BenchmarkAuditAppend(b *testing.B) {
	db, _ := pgtest.New(b)
	s := postgres.NewAudit(db)
	ctx := context.Background()
	b.SetParallelism(16) // requests in flight per core
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			rec := &audit.Issuance{Time: time.Now(), ClientID: "bench", Outcome: audit.Issued,
				CompositionDigest: "sha256:0123", Tools: []string{"db_query", "transform_csv", "email_send"},
				JTI: audit.NewID(), Audience: "https://router.example.com/mcp"}
			if err := s.Append(ctx, rec); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// Concurrent appends are group-committed; a duplicate id among them fails
// alone, and every other record is stored.
func TestAuditGroupCommit(t *testing.T) {
	t.Parallel()
	db, _ := pgtest.New(t)
	s := postgres.NewAudit(db)
	ctx := context.Background()
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	if err := s.Append(ctx, &audit.Issuance{ID: "taken", Time: at, ClientID: "c", Outcome: audit.Issued}); err != nil {
		t.Fatal(err)
	}
	const n = 200
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		id := fmt.Sprintf("r%03d", i)
		if i == 100 {
			id = "taken"
		}
		wg.Go(func() {
			errs[i] = s.Append(ctx, &audit.Issuance{ID: id, Time: at.Add(time.Duration(i) * time.Millisecond), ClientID: "c", Outcome: audit.Denied})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if (err != nil) != (i == 100) {
			t.Errorf("append %d: err = %v", i, err)
		}
	}
	if errs[100] == nil || errs[100].Error() != `audit: record "taken" already exists` {
		t.Errorf("duplicate: err = %v", errs[100])
	}
	page, err := s.Query(ctx, audit.Query{Outcome: audit.Denied, Limit: audit.MaxLimit})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != n-1 {
		t.Errorf("stored %d denied records, want %d", len(page.Items), n-1)
	}
}
