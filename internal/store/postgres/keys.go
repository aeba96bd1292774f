package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/typeward/typeward/internal/keys"
)

// keysLock serialises key writes across replicas (a transaction-scoped
// advisory lock), keyed by schema like migrationLock.
const keysLock = `hashtextextended('typeward keys ' || coalesce(current_schema(), ''), 0)`

// Keys is the Postgres keys.Store, on the signing_keys table.
type Keys struct {
	db *DB
}

var _ keys.Store = (*Keys)(nil)

// NewKeys returns the key store of db.
func NewKeys(db *DB) *Keys { return &Keys{db: db} }

const keyColumns = `kid, alg, public_jwk, private_key, kek_id, created_at, publish_at, activate_at, retire_at, expires_at`

// InsertFirst implements keys.Store.
func (s *Keys) InsertFirst(ctx context.Context, rec keys.Record) (bool, error) {
	if err := rec.Validate(); err != nil {
		return false, err
	}
	inserted := false
	err := s.locked(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO signing_keys (`+keyColumns+`)
			SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10
			WHERE NOT EXISTS (SELECT 1 FROM signing_keys)`, recordArgs(&rec)...)
		inserted = tag.RowsAffected() == 1
		return err
	})
	if err != nil {
		return false, fmt.Errorf("insert first key: %w", err)
	}
	return inserted, nil
}

// Rotate implements keys.Store.
func (s *Keys) Rotate(ctx context.Context, next keys.Record, r keys.Retirement) error {
	if err := next.Validate(); err != nil {
		return err
	}
	err := s.locked(ctx, func(tx pgx.Tx) error {
		if !r.IfNewestCreated.IsZero() {
			var newest *time.Time
			if err := tx.QueryRow(ctx, `SELECT max(created_at) FROM signing_keys`).Scan(&newest); err != nil {
				return err
			}
			if newest == nil || !newest.Equal(r.IfNewestCreated) {
				return fmt.Errorf("key %s: %w", next.KID, keys.ErrRotatedMeanwhile)
			}
		}
		if _, err := tx.Exec(ctx, `INSERT INTO signing_keys (`+keyColumns+`)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, recordArgs(&next)...); err != nil {
			return err
		}
		// LEAST ignores NULL: an unscheduled time takes the new one.
		_, err := tx.Exec(ctx, `UPDATE signing_keys
			SET retire_at = LEAST(retire_at, $2), expires_at = LEAST(expires_at, $3)
			WHERE kid <> $1`, next.KID, r.At, r.ExpiresAt)
		return err
	})
	if isUniqueViolation(err) {
		return fmt.Errorf("key %s: %w", next.KID, keys.ErrConflict)
	}
	if err != nil && !errors.Is(err, keys.ErrRotatedMeanwhile) {
		return fmt.Errorf("rotate keys: %w", err)
	}
	return err
}

// List implements keys.Store.
func (s *Keys) List(ctx context.Context) ([]keys.Record, error) {
	// Bytewise kid order, whatever the database's collation: the signer
	// tie-break must not depend on it.
	rows, err := s.db.Pool.Query(ctx, `SELECT `+keyColumns+` FROM signing_keys ORDER BY activate_at, kid COLLATE "C"`)
	if err != nil {
		return nil, fmt.Errorf("list keys: %w", err)
	}
	out, err := pgx.CollectRows(rows, scanRecord)
	if err != nil {
		return nil, fmt.Errorf("list keys: %w", err)
	}
	return out, nil
}

// Prune implements keys.Store.
func (s *Keys) Prune(ctx context.Context, t time.Time) (int, error) {
	tag, err := s.db.Pool.Exec(ctx, `DELETE FROM signing_keys WHERE expires_at <= $1`, t)
	if err != nil {
		return 0, fmt.Errorf("prune keys: %w", err)
	}
	return int(tag.RowsAffected()), nil
}

// locked runs f in a transaction holding the key-writes lock, so that a
// statement in f sees every key another replica wrote before it.
func (s *Keys) locked(ctx context.Context, f func(pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, s.db.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock("+keysLock+")"); err != nil {
			return err
		}
		return f(tx)
	})
}

func recordArgs(r *keys.Record) []any {
	return []any{r.KID, string(r.Alg), string(r.PublicJWK), r.Sealed, r.KEKID,
		r.CreatedAt, r.PublishAt, r.ActivateAt, nullTime(r.RetireAt), nullTime(r.ExpiresAt)}
}

func scanRecord(row pgx.CollectableRow) (keys.Record, error) {
	var (
		r                 keys.Record
		alg, jwk          string
		retire, expiresAt *time.Time
	)
	err := row.Scan(&r.KID, &alg, &jwk, &r.Sealed, &r.KEKID,
		&r.CreatedAt, &r.PublishAt, &r.ActivateAt, &retire, &expiresAt)
	r.Alg, r.PublicJWK = keys.Alg(alg), []byte(jwk)
	r.CreatedAt, r.PublishAt, r.ActivateAt = r.CreatedAt.UTC(), r.PublishAt.UTC(), r.ActivateAt.UTC()
	r.RetireAt, r.ExpiresAt = timeOrZero(retire), timeOrZero(expiresAt)
	return r, err
}
