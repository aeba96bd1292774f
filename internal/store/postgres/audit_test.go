package postgres_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
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
		s := postgres.NewAudit(db)
		// The suite's records fall in late November 2026: give those days
		// partitions, so the suite runs on day partitions and not only on
		// the default one.
		if _, err := s.EnsurePartitions(context.Background(), suiteDays[0], suiteDays[1]); err != nil {
			t.Fatal(err)
		}
		return s
	})
}

var suiteDays = [2]time.Time{time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)}

// BenchmarkAuditAppend is the audit log's share of every token request on
// Postgres: alone (one append at a time: its ns/op is the commit latency,
// the floor of a token's latency), and from many concurrent requests as
// under load, where group commit lets one disk flush serve many appends.
func BenchmarkAuditAppend(b *testing.B) {
	db, _ := pgtest.New(b)
	s := postgres.NewAudit(db)
	ctx := context.Background()
	record := func() *audit.Issuance {
		return &audit.Issuance{Time: time.Now(), ClientID: "bench", Outcome: audit.Issued,
			CompositionDigest: "sha256:0123", Tools: []string{"db_query", "transform_csv", "email_send"},
			JTI: audit.NewID(), Audience: "https://router.example.com/mcp"}
	}
	b.Run("alone", func(b *testing.B) {
		for b.Loop() {
			if err := s.Append(ctx, record()); err != nil {
				b.Fatal(err)
			}
		}
	})
	// 8 and 64 in flight, as BenchmarkTokenEndpoint's clients.
	for _, inFlight := range []int{8, 64} {
		b.Run(fmt.Sprintf("concurrent=%d", inFlight), func(b *testing.B) {
			b.SetParallelism(max(inFlight/runtime.GOMAXPROCS(0), 1))
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := s.Append(ctx, record()); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// BenchmarkRegistryGuard is what the registry's guard costs an append:
// issuances that validated a composition (the guard runs in their batch's
// transaction) against the same issuances without one (no guard), in
// alternating rounds of one run, one at a time and with 8 and 64 in
// flight.
func BenchmarkRegistryGuard(b *testing.B) {
	db, _ := pgtest.New(b)
	s := postgres.NewAudit(db)
	ctx := context.Background()
	var gen int64
	if err := db.Pool.QueryRow(ctx, `SELECT gen FROM registry_generation`).Scan(&gen); err != nil {
		b.Fatal(err)
	}
	appends := func(b *testing.B, n, inFlight int, g int64) time.Duration {
		var next atomic.Int64
		var wg sync.WaitGroup
		began := time.Now()
		for range inFlight {
			wg.Go(func() {
				for next.Add(1) <= int64(n) {
					rec := &audit.Issuance{Time: time.Now(), ClientID: "bench", Outcome: audit.Issued,
						CompositionDigest: "sha256:0123", Tools: []string{"db_query", "transform_csv", "email_send"},
						JTI: audit.NewID(), Audience: "https://router.example.com/mcp", RegistryGeneration: g}
					if err := s.Append(ctx, rec); err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		return time.Since(began)
	}
	for _, inFlight := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("concurrent=%d", inFlight), func(b *testing.B) {
			const rounds = 8
			var guarded, bare time.Duration
			for range rounds {
				guarded += appends(b, b.N/rounds+1, inFlight, gen)
				bare += appends(b, b.N/rounds+1, inFlight, 0)
			}
			n := float64(rounds * (b.N/rounds + 1))
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(float64(guarded.Microseconds())/n, "guarded-µs/append")
			b.ReportMetric(float64(bare.Microseconds())/n, "unguarded-µs/append")
			b.ReportMetric(100*(guarded.Seconds()/bare.Seconds()-1), "%-guard-cost")
		})
	}
}
