package postgres_test

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/audit"
	"github.com/typeward/typeward/internal/store/postgres"
	"github.com/typeward/typeward/internal/store/postgres/pgtest"
)

// auditBenchRows is the size of BenchmarkAuditQuery's log:
// TYPEWARD_AUDIT_BENCH_ROWS, small by default so that `make test`'s
// one-iteration run stays fast. The large figure comes from
//
//	TYPEWARD_AUDIT_BENCH_ROWS=10000000 go test -run '^$' -bench AuditQuery -benchtime 2s ./internal/store/postgres
func auditBenchRows(b *testing.B) int {
	n := 20_000
	if v := os.Getenv("TYPEWARD_AUDIT_BENCH_ROWS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1000 {
			b.Fatalf("TYPEWARD_AUDIT_BENCH_ROWS=%q: want an integer of at least 1000", v)
		}
	}
	return n
}

// BenchmarkAuditQuery is GET /admin/v1/issuances's store query on a log of
// auditBenchRows records spread over 30 daily partitions: 1000 clients,
// 90% issued, 9% denied, 1% error, independently of the client.
func BenchmarkAuditQuery(b *testing.B) {
	ctx := context.Background()
	db, _ := pgtest.New(b)
	s := postgres.NewAudit(db)
	n := auditBenchRows(b)
	now := time.Now().UTC()
	span := 30 * 24 * time.Hour
	if _, err := s.EnsurePartitions(ctx, now.Add(-span), now); err != nil {
		b.Fatal(err)
	}
	started := time.Now()
	if _, err := db.Pool.Exec(ctx, `INSERT INTO oauth_issuances
		(id, at, client_id, outcome, reason, composition_digest, tools, issue_codes, jti, audience)
		SELECT md5(i::text), $1::timestamptz - (i * $3::float8 / $2) * interval '1 second', 'client-' || (i % 1000),
			CASE WHEN (i / 1000) % 100 = 0 THEN 'error' WHEN (i / 1000) % 10 = 0 THEN 'denied' ELSE 'issued' END,
			CASE WHEN (i / 1000) % 10 = 0 THEN 'type_mismatch' ELSE '' END,
			'sha256:' || md5('c' || (i % 50)), '{db_query,transform_csv,email_send}', '{}',
			md5('j' || i), 'https://router.example.com/mcp'
		FROM generate_series(1, $2::int) AS i`, now, n, span.Seconds()); err != nil {
		b.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, "ANALYZE oauth_issuances"); err != nil {
		b.Fatal(err)
	}
	b.Logf("%d records loaded in %s", n, time.Since(started).Round(time.Millisecond))

	// A cursor 20 pages deep: keyset pages cost the same at any depth.
	deep := audit.Query{}
	for range 20 {
		page, err := s.Query(ctx, deep)
		if err != nil || page.Next == "" {
			b.Fatalf("paging: %v", err)
		}
		deep.Cursor = page.Next
	}
	for _, bc := range []struct {
		name string
		q    audit.Query
	}{
		{"newest", audit.Query{}},
		{"client", audit.Query{ClientID: "client-7"}},
		{"page_21", deep},
		{"unknown_client", audit.Query{ClientID: "nobody"}},
		{"outcome_error", audit.Query{Outcome: audit.Error}},
		{"outcome_issued", audit.Query{Outcome: audit.Issued}},
		{"client_and_error", audit.Query{ClientID: "client-7", Outcome: audit.Error}},
		{"since_1h_limit_500", audit.Query{Since: now.Add(-time.Hour), Limit: audit.MaxLimit}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				page, err := s.Query(ctx, bc.q)
				if err != nil {
					b.Fatal(err)
				}
				if len(page.Items) == 0 && bc.q.ClientID != "nobody" {
					b.Fatalf("%+v found nothing", bc.q)
				}
			}
		})
	}
	// The Activity page: its chart's aggregate over the last 24 hours, and
	// its latest refusals; beside them what it did before, reading at most
	// 2000 records of the window in pages of 500 (exact only below 2000).
	day := audit.Window{Since: now.Truncate(time.Hour).Add(-23 * time.Hour), Until: now.Truncate(time.Hour).Add(time.Hour)}
	b.Run("activity_aggregate_24h", func(b *testing.B) {
		for b.Loop() {
			if sum, err := s.Aggregate(ctx, day); err != nil || len(sum.Hours) == 0 {
				b.Fatalf("aggregate: %+v, %v", sum, err)
			}
		}
	})
	b.Run("activity_latest_refusals_20", func(b *testing.B) {
		for b.Loop() {
			if page, err := s.Query(ctx, audit.Query{Outcome: audit.Denied, Limit: 20}); err != nil || len(page.Items) == 0 {
				b.Fatalf("latest refusals: %v", err)
			}
		}
	})
	b.Run("activity_before_2000_records_24h", func(b *testing.B) {
		for b.Loop() {
			q := audit.Query{Since: day.Since, Limit: audit.MaxLimit}
			for range 4 {
				page, err := s.Query(ctx, q)
				if err != nil {
					b.Fatal(err)
				}
				if q.Cursor = page.Next; q.Cursor == "" {
					break
				}
			}
		}
	})
}
