// Package pgtest gives each test its own freshly migrated Postgres schema,
// so database tests run in parallel and leave nothing behind.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/typeward/typeward/internal/store/postgres"
)

// DefaultURL is the database this machine kind runs.
const DefaultURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// URL is DATABASE_URL or DefaultURL.
func URL() string {
	if u := os.Getenv("DATABASE_URL"); u != "" {
		return u
	}
	return DefaultURL
}

// SchemaURL is URL selecting one test schema (the search_path a server
// under test is given).
func SchemaURL(schemaName string) string {
	sep := "?"
	if strings.Contains(URL(), "?") {
		sep = "&"
	}
	return URL() + sep + "search_path=" + schemaName
}

// New returns a migrated DB whose search_path is a new schema dropped when
// the test ends, and that schema's name. Without a database the test skips
// loudly, or fails when TYPEWARD_REQUIRE_DB=1 (as in CI).
func New(t testing.TB) (*postgres.DB, string) {
	t.Helper()
	return NewNamed(t, "tw_test_")
}

// NewNamed is New with a schema named prefix and a random suffix.
func NewNamed(t testing.TB, prefix string) (*postgres.DB, string) {
	t.Helper()
	db, name := NewEmpty(t, prefix)
	if _, err := db.Migrate(context.Background()); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return db, name
}

// NewEmpty is NewNamed without the migrations: for tests of a migration.
func NewEmpty(t testing.TB, prefix string) (*postgres.DB, string) {
	t.Helper()
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, URL())
	if err != nil {
		if os.Getenv("TYPEWARD_REQUIRE_DB") == "1" {
			t.Fatalf("TYPEWARD_REQUIRE_DB=1 but Postgres is unreachable: %v", err)
		}
		t.Skipf("SKIPPING DATABASE TEST: Postgres unreachable (%v); set TYPEWARD_REQUIRE_DB=1 to make this fail", err)
	}
	defer admin.Close(ctx)

	var b [6]byte
	_, _ = rand.Read(b[:])
	name := prefix + hex.EncodeToString(b[:])
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), URL())
		if err != nil {
			t.Errorf("drop schema %s: %v", name, err)
			return
		}
		defer c.Close(context.Background())
		if _, err := c.Exec(context.Background(), "DROP SCHEMA "+pgx.Identifier{name}.Sanitize()+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", name, err)
		}
	})

	return Open(t, name), name
}

// Open opens another pool on an existing test schema: a second replica.
func Open(t testing.TB, schemaName string) *postgres.DB {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(URL())
	if err != nil {
		t.Fatalf("parse DATABASE_URL: %v", err)
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = schemaName
	cfg.MaxConns = 4
	db, err := postgres.OpenConfig(context.Background(), cfg)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(db.Close)
	return db
}
