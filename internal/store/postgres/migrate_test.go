package postgres_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/typeward/typeward/internal/store/postgres/pgtest"
)

func TestMigrateIsIdempotentAndSerialised(t *testing.T) {
	t.Parallel()
	db, schemaName := pgtest.New(t) // already migrated once
	ctx := context.Background()

	// Two replicas starting together: both succeed and nothing is applied twice.
	var wg sync.WaitGroup
	applied := make([][]string, 2)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			applied[i], errs[i] = pgtest.Open(t, schemaName).Migrate(ctx)
		}()
	}
	wg.Wait()
	for i := range 2 {
		if errs[i] != nil {
			t.Fatalf("replica %d: %v", i, errs[i])
		}
		if len(applied[i]) != 0 {
			t.Errorf("replica %d re-applied %v", i, applied[i])
		}
	}

	var names []string
	rows, err := db.Pool.Query(ctx, "SELECT name FROM schema_migrations ORDER BY name")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	if len(names) == 0 || !slices.IsSorted(names) || names[0] != "0001_registry.sql" {
		t.Errorf("recorded migrations = %v", names)
	}
}
