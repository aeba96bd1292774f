package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/typeward/typeward/internal/nonce"
)

// DPoPNonces is the Postgres nonce.Store, on the dpop_nonces table:
// every replica hands out and accepts the same nonces.
type DPoPNonces struct {
	db *DB
}

var _ nonce.Store = (*DPoPNonces)(nil)

// NewDPoPNonces returns the nonce store of db.
func NewDPoPNonces(db *DB) *DPoPNonces { return &DPoPNonces{db: db} }

// Current implements nonce.Store. Two replicas that both find none
// each add one; both are accepted.
func (s *DPoPNonces) Current(ctx context.Context, now time.Time) (string, error) {
	var current string
	err := s.db.Pool.QueryRow(ctx, `SELECT nonce FROM dpop_nonces WHERE created_at > $1 ORDER BY created_at DESC LIMIT 1`,
		now.Add(-nonce.Rotation)).Scan(&current)
	if err == nil {
		return current, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return "", fmt.Errorf("dpop nonce: %w", err)
	}
	current = nonce.New()
	_, err = s.db.Pool.Exec(ctx, `WITH old AS (DELETE FROM dpop_nonces WHERE created_at <= $3)
		INSERT INTO dpop_nonces (nonce, created_at) VALUES ($1, $2)`, current, now, now.Add(-nonce.Lifetime))
	if err != nil {
		return "", fmt.Errorf("dpop nonce: %w", err)
	}
	return current, nil
}

// Valid implements nonce.Store.
func (s *DPoPNonces) Valid(ctx context.Context, n string, now time.Time) (bool, error) {
	if !storable(n) {
		return false, nil
	}
	var ok bool
	err := s.db.Pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM dpop_nonces WHERE nonce = $1 AND created_at > $2)`,
		n, now.Add(-nonce.Lifetime)).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("dpop nonce: %w", err)
	}
	return ok, nil
}
