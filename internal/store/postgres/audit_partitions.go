package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// The issuance log is partitioned by UTC day (migration 0007); the SQL
// functions oauth_issuances_ensure_day and oauth_issuances_drop_before are
// the one definition of a day's partition, used by the migration and here.
const (
	// partitionsAhead is how many days after today get their partition in
	// advance, so a housekeeping run missed for a day or two costs nothing.
	partitionsAhead = 2
	// retentionLock is the session advisory lock under which one replica
	// at a time maintains the partitions, keyed by schema like migrations.
	retentionLock = `hashtextextended('typeward audit retention ' || coalesce(current_schema(), ''), 0)`
	// retentionLockTimeout bounds the wait for the lock that detaching a
	// partition takes on the log (ACCESS EXCLUSIVE, which inserts queue
	// behind): a busy moment skips this run instead of stalling tokens.
	retentionLockTimeout = "500ms"
)

// EnsurePartitions makes the day partitions of every UTC day from the day
// of from to the day of to, moving their rows out of the default
// partition, and returns how many it made.
func (s *Audit) EnsurePartitions(ctx context.Context, from, to time.Time) (int, error) {
	var made int
	err := pgx.BeginFunc(ctx, s.db.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SET LOCAL lock_timeout = '"+retentionLockTimeout+"'"); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `SELECT count(*) FILTER (WHERE made) FROM (
			SELECT oauth_issuances_ensure_day(d::date) AS made
			FROM generate_series($1::timestamptz AT TIME ZONE 'UTC', $2::timestamptz AT TIME ZONE 'UTC', interval '1 day') AS d) AS days`,
			utcDay(from), utcDay(to)).Scan(&made)
	})
	if err != nil {
		return 0, fmt.Errorf("audit partitions: %w", err)
	}
	return made, nil
}

// Retain implements audit.Store: under an advisory lock (a replica that
// finds it taken leaves the work to its holder), it makes the partitions
// of yesterday to partitionsAhead days ahead, then drops every day
// partition wholly older than now-retention and deletes the default
// partition's records older than that.
func (s *Audit) Retain(ctx context.Context, now time.Time, retention time.Duration) error {
	conn, err := s.db.Pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("audit retention: %w", err)
	}
	defer conn.Release()
	var locked bool
	if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock("+retentionLock+")").Scan(&locked); err != nil {
		return fmt.Errorf("audit retention: lock: %w", err)
	}
	if !locked {
		return nil
	}
	defer func() {
		// A pooled connection still holding the lock would stop every
		// replica's retention: close it when unlocking fails.
		stop := context.WithoutCancel(ctx)
		if _, err := conn.Exec(stop, "SELECT pg_advisory_unlock("+retentionLock+")"); err != nil {
			_ = conn.Conn().Close(stop)
		}
	}()

	if _, err := s.EnsurePartitions(ctx, now.AddDate(0, 0, -1), now.AddDate(0, 0, partitionsAhead)); err != nil {
		return err
	}
	if retention <= 0 {
		return nil
	}
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SET LOCAL lock_timeout = '"+retentionLockTimeout+"'"); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "SELECT oauth_issuances_drop_before($1)", now.Add(-retention))
		return err
	})
	if err != nil {
		return fmt.Errorf("audit retention: %w", err)
	}
	return nil
}

// Partitions lists the day partitions of the log by name, oldest first.
func (s *Audit) Partitions(ctx context.Context) ([]string, error) {
	rows, err := s.db.Pool.Query(ctx, `SELECT c.relname::text FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
		WHERE i.inhparent = 'oauth_issuances'::regclass AND c.relname ~ '^oauth_issuances_p[0-9]{8}$' ORDER BY 1`)
	if err != nil {
		return nil, fmt.Errorf("audit partitions: %w", err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

func utcDay(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}
