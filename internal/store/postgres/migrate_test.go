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
	"github.com/typeward/typeward/verify"
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

// Versions stored before migration 0005 carry the old digest: Migrate
// replaces it with the RFC 8785 digest, in the version, the tool's current
// digest and the compositions' pins, and nothing else can change a
// version.
func TestMigrateRedigests(t *testing.T) {
	t.Parallel()
	db, _ := pgtest.New(t)
	ctx := context.Background()
	const in, out = `{"type":"object", "properties":{"n":{"type":"number","maximum":1.50}}}`, `{"type":"string"}`
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := db.Pool.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	exec(`INSERT INTO tools (id, server, name, current_version, digest) VALUES (9001, 'srv', 'old', 1, 'sha256:old')`)
	exec(`INSERT INTO tool_versions (tool_id, version, digest, input_digest, output_digest, input_schema, output_schema, digest_scheme)
		VALUES (9001, 1, 'sha256:old', 'sha256:i', 'sha256:o', $1, $2, 'v1')`, in, out)
	exec(`INSERT INTO compositions (name, definition, digest) VALUES ('p', '{}', 'sha256:p')`)
	exec(`INSERT INTO composition_tools (composition, server, name, version, digest) VALUES ('p', 'srv', 'old', 1, 'sha256:old')`)

	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	want, err := verify.DeclarationDigest([]byte(in), []byte(out))
	if err != nil {
		t.Fatal(err)
	}
	var vd, scheme, td, cd string
	if err := db.Pool.QueryRow(ctx, `SELECT v.digest, v.digest_scheme, t.digest, c.digest FROM tool_versions v
		JOIN tools t ON t.id = v.tool_id JOIN composition_tools c ON c.name = t.name WHERE v.tool_id = 9001`).Scan(&vd, &scheme, &td, &cd); err != nil {
		t.Fatal(err)
	}
	if vd != want || scheme != "jcs" || td != want || cd != want {
		t.Errorf("after Migrate: version %s (%s), tool %s, pin %s; want %s", vd, scheme, td, cd, want)
	}
	// The trigger still refuses every other change, including a second
	// rewrite of the digest.
	for _, sql := range []string{
		`UPDATE tool_versions SET digest = 'sha256:x' WHERE tool_id = 9001`,
		`UPDATE tool_versions SET digest = 'sha256:x', digest_scheme = 'jcs' WHERE tool_id = 9001`,
		`UPDATE tool_versions SET digest_scheme = 'v1' WHERE tool_id = 9001`,
		`DELETE FROM tool_versions WHERE tool_id = 9001`,
	} {
		if _, err := db.Pool.Exec(ctx, sql); err == nil || !strings.Contains(err.Error(), "immutable") {
			t.Errorf("%s: %v, want the immutability error", sql, err)
		}
	}
	// An old version with a schema that is not I-JSON keeps its digest and
	// is named.
	exec(`INSERT INTO tools (id, server, name, current_version, digest) VALUES (9002, 'srv', 'huge', 1, 'sha256:old')`)
	exec(`INSERT INTO tool_versions (tool_id, version, digest, input_digest, input_schema, digest_scheme)
		VALUES (9002, 1, 'sha256:old', 'sha256:i', '{"type":"object","maximum":9007199254740993}', 'v1')`)
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if len(db.Undigestable) != 1 || !strings.Contains(db.Undigestable[0], "srv/huge v1") {
		t.Errorf("Undigestable = %v", db.Undigestable)
	}
}

// Pending names what this binary would apply: everything on an empty
// schema, nothing once migrated, and a migration the database lost the
// record of (as a database from before it has).
func TestPendingMigrations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := pgtest.NewEmpty(t, "pending_")
	all, err := db.Pending(ctx)
	if err != nil || len(all) == 0 || all[0] != "0001_registry.sql" || !slices.IsSorted(all) {
		t.Fatalf("pending on an empty schema = %v, %v", all, err)
	}
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if p, err := db.Pending(ctx); err != nil || len(p) != 0 {
		t.Errorf("pending after migrating = %v, %v", p, err)
	}
	last := all[len(all)-1]
	if _, err := db.Pool.Exec(ctx, "DELETE FROM schema_migrations WHERE name = $1", last); err != nil {
		t.Fatal(err)
	}
	if p, err := db.Pending(ctx); err != nil || !slices.Equal(p, []string{last}) {
		t.Errorf("pending with %s unrecorded = %v, %v", last, p, err)
	}
}
