package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/typeward/typeward/internal/revocation"
)

// Revocations is the Postgres revocation.Store, on oauth_revoked_tokens.
type Revocations struct {
	db *DB
}

var _ revocation.Store = (*Revocations)(nil)

// NewRevocations returns the revocation list of db.
func NewRevocations(db *DB) *Revocations { return &Revocations{db: db} }

// Revoke implements revocation.Store.
func (s *Revocations) Revoke(ctx context.Context, jti string, expiresAt time.Time) error {
	if !revocation.ValidJTI(jti) {
		return revocation.ErrInvalidJTI
	}
	_, err := s.db.Pool.Exec(ctx, `INSERT INTO oauth_revoked_tokens (jti, expires_at) VALUES ($1, $2)
		ON CONFLICT (jti) DO UPDATE SET expires_at = GREATEST(oauth_revoked_tokens.expires_at, EXCLUDED.expires_at)`,
		jti, expiresAt)
	if err != nil {
		return fmt.Errorf("revoke: %w", err)
	}
	return nil
}

// IsRevoked implements revocation.Store.
func (s *Revocations) IsRevoked(ctx context.Context, jti string) (bool, error) {
	if !revocation.ValidJTI(jti) {
		return false, nil // never recorded
	}
	var revoked bool
	err := s.db.Pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM oauth_revoked_tokens WHERE jti = $1)`, jti).Scan(&revoked)
	if err != nil {
		return false, fmt.Errorf("is revoked: %w", err)
	}
	return revoked, nil
}

// Purge implements revocation.Store.
func (s *Revocations) Purge(ctx context.Context, now time.Time) (int64, error) {
	tag, err := s.db.Pool.Exec(ctx, `DELETE FROM oauth_revoked_tokens WHERE expires_at <= $1`, now)
	if err != nil {
		return 0, fmt.Errorf("purge revocations: %w", err)
	}
	return tag.RowsAffected(), nil
}
