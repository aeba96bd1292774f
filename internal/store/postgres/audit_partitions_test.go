package postgres_test

import (
	"context"
	"encoding/json"
	"io/fs"
	"reflect"
	"slices"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/typeward/typeward/internal/audit"
	"github.com/typeward/typeward/internal/store/postgres"
	"github.com/typeward/typeward/internal/store/postgres/pgtest"
	"github.com/typeward/typeward/internal/verdict"
	"github.com/typeward/typeward/migrations"
)

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// partitionOf names the partition that holds the record with this id.
func partitionOf(t *testing.T, db *postgres.DB, id string) string {
	t.Helper()
	var name string
	if err := db.Pool.QueryRow(context.Background(),
		"SELECT tableoid::regclass::text FROM oauth_issuances WHERE id = $1", id).Scan(&name); err != nil {
		t.Fatalf("record %s: %v", id, err)
	}
	return name
}

// Migration 0007 turns a populated 0003 table into the partitioned log:
// every record is kept, recent days in their day partitions, days older
// than two months in the default partition.
func TestMigrationPartitionsExistingIssuances(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := pgtest.NewEmpty(t, "tw_test_")
	before := fstest.MapFS{}
	names, _ := fs.Glob(migrations.FS, "*.sql")
	for _, n := range names {
		if n < "0007" {
			data, _ := fs.ReadFile(migrations.FS, n)
			before[n] = &fstest.MapFile{Data: data}
		}
	}
	if _, err := postgres.MigrateFiles(ctx, db, before); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	if _, err := db.Pool.Exec(ctx, `INSERT INTO oauth_issuances (id, at, client_id, outcome, tools) VALUES
		('recent', $1, 'c', 'issued', '{a,b}'), ('week', $2, 'c', 'denied', '{}'), ('old', $3, 'c', 'error', '{}')`,
		now, now.AddDate(0, 0, -7), now.AddDate(0, 0, -90)); err != nil {
		t.Fatal(err)
	}
	applied, err := db.Migrate(ctx)
	if err != nil || !slices.Contains(applied, "0007_audit_partitions.sql") {
		t.Fatalf("migrate applied %v, %v", applied, err)
	}
	if got := partitionOf(t, db, "recent"); got != "oauth_issuances_p"+now.Format("20060102") {
		t.Errorf("today's record is in %s", got)
	}
	if got := partitionOf(t, db, "week"); got != "oauth_issuances_p"+now.AddDate(0, 0, -7).Format("20060102") {
		t.Errorf("last week's record is in %s", got)
	}
	if got := partitionOf(t, db, "old"); got != "oauth_issuances_default" {
		t.Errorf("a 90-day-old record is in %s, want the default partition", got)
	}
	page, err := postgres.NewAudit(db).Query(ctx, audit.Query{})
	if err != nil || len(page.Items) != 3 || !slices.Equal(page.Items[0].Tools, []string{"a", "b"}) {
		t.Errorf("after the migration the log holds %+v, %v", page.Items, err)
	}
}

// A day written before its partition existed lands in the default
// partition; making the day's partition moves it there.
func TestEnsurePartitionsMovesRowsOutOfDefault(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := pgtest.New(t)
	s := postgres.NewAudit(db)
	at := day(2026, 3, 14).Add(15 * time.Hour)
	issues := []audit.Issue{{Issue: verdict.Issue{Severity: "error", Code: "type_mismatch", FieldPath: "rows", Message: "m",
		Witness: json.RawMessage(`[{}]`), WitnessError: &verdict.WitnessError{KeywordLocation: "/items/type", Message: "want string"}}}}
	if err := s.Append(ctx, &audit.Issuance{ID: "pi", Time: at, ClientID: "c", Outcome: audit.Denied, Issues: issues, IssuesDropped: 3}); err != nil {
		t.Fatal(err)
	}
	if got := partitionOf(t, db, "pi"); got != "oauth_issuances_default" {
		t.Fatalf("record without its day's partition is in %s", got)
	}
	made, err := s.EnsurePartitions(ctx, at, at.AddDate(0, 0, 1))
	if err != nil || made != 2 {
		t.Fatalf("EnsurePartitions made %d, %v; want 2", made, err)
	}
	if got := partitionOf(t, db, "pi"); got != "oauth_issuances_p20260314" {
		t.Errorf("after EnsurePartitions the record is in %s", got)
	}
	// The move keeps every column, the issues (migration 0013) included.
	page, err := s.Query(ctx, audit.Query{})
	if err != nil || len(page.Items) != 1 || !reflect.DeepEqual(page.Items[0].Issues, issues) || page.Items[0].IssuesDropped != 3 {
		t.Errorf("after the move the log holds %+v, %v", page.Items, err)
	}
	if made, err := s.EnsurePartitions(ctx, at, at.AddDate(0, 0, 1)); err != nil || made != 0 {
		t.Errorf("EnsurePartitions again made %d, %v; want 0", made, err)
	}
}

// Retention drops whole day partitions, keeps the partitions of the days
// ahead in place, and two replicas running it at once both succeed.
func TestRetainDropsWholeDays(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, schemaName := pgtest.New(t)
	s := postgres.NewAudit(db)
	if _, err := s.EnsurePartitions(ctx, day(2026, 5, 1), day(2026, 5, 10)); err != nil {
		t.Fatal(err)
	}
	for d := 1; d <= 10; d++ {
		if err := s.Append(ctx, &audit.Issuance{Time: day(2026, 5, d).Add(12 * time.Hour), ClientID: "c", Outcome: audit.Issued}); err != nil {
			t.Fatal(err)
		}
	}
	now, retention := day(2026, 5, 10).Add(6*time.Hour), 72*time.Hour // cutoff 7 May 06:00
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, r := range []*postgres.Audit{s, postgres.NewAudit(pgtest.Open(t, schemaName))} {
		wg.Go(func() { errs[i] = r.Retain(ctx, now, retention) })
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil {
		t.Fatalf("Retain on two replicas: %v, %v", errs[0], errs[1])
	}
	// One may have found the lock taken and left the work to the other:
	// running again is idempotent and finishes it either way.
	if err := s.Retain(ctx, now, retention); err != nil {
		t.Fatal(err)
	}
	parts, err := s.Partitions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var may []string
	for _, p := range parts {
		if p < "oauth_issuances_p20260600" {
			may = append(may, p)
		}
	}
	want := []string{"oauth_issuances_p20260507", "oauth_issuances_p20260508", "oauth_issuances_p20260509",
		"oauth_issuances_p20260510", "oauth_issuances_p20260511", "oauth_issuances_p20260512"}
	if !slices.Equal(may, want) {
		t.Errorf("May partitions after retention: %v, want %v", may, want)
	}
	page, err := s.Query(ctx, audit.Query{Since: day(2026, 1, 1)})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 4 || !page.Items[3].Time.Equal(day(2026, 5, 7).Add(12*time.Hour)) {
		t.Errorf("kept %+v; want the 4 records from 7 May on", page.Items)
	}
}
