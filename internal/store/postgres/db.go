// Package postgres is the Postgres implementation of typeward's storage,
// on pgx/v5.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DB is a connection pool to typeward's database.
type DB struct {
	Pool *pgxpool.Pool
	// Undigestable names the stored tool versions the last Migrate could
	// not give an RFC 8785 digest (their schemas are not I-JSON): no router
	// can recompute their digest, so they should be declared anew.
	Undigestable []string

	observer atomic.Pointer[func(ctx context.Context, sql string)]
}

// Open connects and checks the connection. It does not migrate.
func Open(ctx context.Context, databaseURL string) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		// pgx's message may echo the URL, password included: keep it out.
		return nil, fmt.Errorf("postgres: DATABASE_URL does not parse")
	}
	return OpenConfig(ctx, cfg)
}

// OpenConfig connects with a prepared pool configuration.
func OpenConfig(ctx context.Context, cfg *pgxpool.Config) (*DB, error) {
	db := &DB{}
	if cfg.ConnConfig.Tracer == nil {
		cfg.ConnConfig.Tracer = (*observeTracer)(db)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: connect: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: ping: %w", err)
	}
	db.Pool = pool
	return db, nil
}

// Observe calls f with every statement sent from now on, and the context
// it was sent under (nil stops): for tests that check what a code path
// asks of the database. It costs one atomic load a statement.
func (db *DB) Observe(f func(ctx context.Context, sql string)) {
	if f == nil {
		db.observer.Store(nil)
		return
	}
	db.observer.Store(&f)
}

// observeTracer passes statements to the DB's observer.
type observeTracer DB

func (t *observeTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	if f := t.observer.Load(); f != nil {
		(*f)(ctx, data.SQL)
	}
	return ctx
}

func (*observeTracer) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// A batch's statements are observed too, as their results are read.
func (t *observeTracer) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}

func (t *observeTracer) TraceBatchQuery(ctx context.Context, _ *pgx.Conn, data pgx.TraceBatchQueryData) {
	if f := t.observer.Load(); f != nil {
		(*f)(ctx, data.SQL)
	}
}

func (*observeTracer) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// Close releases every connection.
func (db *DB) Close() { db.Pool.Close() }

// storable reports whether Postgres text can hold every s: valid UTF-8
// without NUL. A key it cannot hold was never stored, so a lookup by such
// a key (a name from a URL or a request) answers "not found" at once
// instead of passing the server an "invalid byte sequence" to fail on.
func storable(ss ...string) bool {
	for _, s := range ss {
		if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
			return false
		}
	}
	return true
}

// isUniqueViolation reports whether err is Postgres refusing a duplicate
// key (SQLSTATE 23505, unique_violation): the stores' ErrConflict.
func isUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505"
}
