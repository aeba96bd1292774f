package postgres_test

import (
	"context"
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
