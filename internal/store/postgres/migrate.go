package postgres

import (
	"context"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/typeward/typeward/migrations"
)

// migrationLock is the session advisory lock that serialises migrations
// across replicas starting at once. It is keyed by the schema migrated, so
// deployments in other schemas of the database do not wait for each other.
const migrationLock = `hashtextextended('typeward migrate ' || coalesce(current_schema(), ''), 0)`

// Migrate applies every migration not yet recorded, each in its own
// transaction, under a session advisory lock. It returns the names applied.
func (db *DB) Migrate(ctx context.Context) ([]string, error) {
	return migrate(ctx, db, migrations.FS)
}

// Pending returns the migrations this binary has that the database has
// not recorded, in order: a server refuses to start on a database behind
// its code (a table or trigger it relies on would be missing), unless it
// migrates at start. Migrations the database has and this binary does not
// (a newer replica's) are not its concern.
func (db *DB) Pending(ctx context.Context) ([]string, error) {
	names, err := migrationNames(migrations.FS)
	if err != nil {
		return nil, err
	}
	var exists bool
	if err := db.Pool.QueryRow(ctx, `SELECT to_regclass('schema_migrations') IS NOT NULL`).Scan(&exists); err != nil {
		return nil, fmt.Errorf("pending migrations: %w", err)
	}
	if !exists {
		return names, nil
	}
	rows, err := db.Pool.Query(ctx, "SELECT name FROM schema_migrations")
	if err != nil {
		return nil, fmt.Errorf("pending migrations: %w", err)
	}
	done, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("pending migrations: %w", err)
	}
	return slices.DeleteFunc(names, func(n string) bool { return slices.Contains(done, n) }), nil
}

func migrationNames(files fs.FS) ([]string, error) {
	names, err := fs.Glob(files, "*.sql")
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	return names, nil
}

func migrate(ctx context.Context, db *DB, files fs.FS) ([]string, error) {
	names, err := migrationNames(files)
	if err != nil {
		return nil, err
	}

	conn, err := db.Pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock("+migrationLock+")"); err != nil {
		return nil, fmt.Errorf("migrate: lock: %w", err)
	}
	defer func() {
		// The lock belongs to the session: a connection going back to the
		// pool still holding it would block every other replica's
		// migration, so when unlocking fails the connection is closed.
		stop := context.WithoutCancel(ctx)
		if _, err := conn.Exec(stop, "SELECT pg_advisory_unlock("+migrationLock+")"); err != nil {
			_ = conn.Conn().Close(stop)
		}
	}()

	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		name       text PRIMARY KEY,
		applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	rows, err := conn.Query(ctx, "SELECT name FROM schema_migrations")
	if err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	done, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}

	var applied []string
	for _, name := range names {
		if slices.Contains(done, name) {
			continue
		}
		body, err := fs.ReadFile(files, name)
		if err != nil {
			return applied, err
		}
		err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, string(body)); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "INSERT INTO schema_migrations (name) VALUES ($1)", name)
			return err
		})
		if err != nil {
			return applied, fmt.Errorf("migrate: %s: %w", strings.TrimSuffix(name, ".sql"), err)
		}
		applied = append(applied, name)
	}
	undigestable, err := redigest(ctx, conn.Conn())
	if err != nil {
		return applied, fmt.Errorf("migrate: recomputing tool digests: %w", err)
	}
	db.Undigestable = undigestable
	return applied, nil
}
