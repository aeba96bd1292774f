package server_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/keys"
	"github.com/typeward/typeward/internal/server"
	"github.com/typeward/typeward/internal/store/postgres/pgtest"
)

// TestServeRefusesADatabaseBehindIt: a server whose database lacks one of
// its migrations (a table or trigger its code relies on) refuses to start,
// naming the migration and the command that applies it, rather than fail
// request by request; before, it started and ran on the old schema.
func TestServeRefusesADatabaseBehindIt(t *testing.T) {
	t.Parallel()
	db, schemaName := pgtest.New(t)
	ctx := context.Background()
	var last string
	if err := db.Pool.QueryRow(ctx, "SELECT max(name) FROM schema_migrations").Scan(&last); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, "DELETE FROM schema_migrations WHERE name = $1", last); err != nil {
		t.Fatal(err)
	}
	kek, err := keys.GenerateKEK()
	if err != nil {
		t.Fatal(err)
	}
	cfg := &server.Config{Addr: "127.0.0.1:0", Issuer: "http://127.0.0.1:1", TokenTTL: 5 * time.Minute, SigningAlg: keys.ES256,
		JWKSMaxAge: 15 * time.Minute, RateLimit: 100, RateBurst: 100, LogLevel: "info", ShutdownTimeout: time.Second,
		DatabaseURL: pgtest.SchemaURL(schemaName), KEK: kek, Pepper: []byte(randomSecret(t))}
	srv, err := server.New(ctx, cfg, slog.New(slog.NewJSONHandler(io.Discard, nil)))
	if err == nil {
		srv.Close()
		t.Fatal("a server started on a database missing a migration")
	}
	if !strings.Contains(err.Error(), last) || !strings.Contains(err.Error(), "typeward migrate") {
		t.Errorf("error = %v, want it to name %s and 'typeward migrate'", err, last)
	}
}
