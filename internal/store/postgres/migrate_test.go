package postgres_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/typeward/typeward/internal/store/postgres"
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

// Each file is one transaction: a failing file leaves nothing of itself
// behind and is not recorded, the files before it stay applied, and the
// next run resumes with it.
func TestMigrationFileIsAtomic(t *testing.T) {
	t.Parallel()
	db, _ := pgtest.New(t)
	ctx := context.Background()
	files := fstest.MapFS{
		"9001_first.sql":  {Data: []byte("CREATE TABLE first_table (x int);")},
		"9002_broken.sql": {Data: []byte("CREATE TABLE half_done (x int);\nSELECT 1/0;")},
	}
	applied, err := postgres.MigrateFiles(ctx, db, files)
	if err == nil || !strings.Contains(err.Error(), "9002_broken") {
		t.Fatalf("err = %v, want the failure named after 9002_broken", err)
	}
	if !slices.Equal(applied, []string{"9001_first.sql"}) {
		t.Errorf("applied = %v, want [9001_first.sql]", applied)
	}
	exists := func(table string) bool {
		var ok bool
		if err := db.Pool.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", table).Scan(&ok); err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !exists("first_table") || exists("half_done") {
		t.Errorf("first_table exists %v, half_done exists %v; want true, false", exists("first_table"), exists("half_done"))
	}

	files["9002_broken.sql"] = &fstest.MapFile{Data: []byte("CREATE TABLE half_done (x int);")}
	applied, err = postgres.MigrateFiles(ctx, db, files)
	if err != nil || !slices.Equal(applied, []string{"9002_broken.sql"}) {
		t.Fatalf("rerun applied %v, %v; want only the fixed file", applied, err)
	}
}
