package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/typeward/typeward/internal/clients"
)

// AssertionReplay is the Postgres clients.ReplayStore, shared by every
// replica, on the oauth_assertion_jtis table.
type AssertionReplay struct {
	db *DB
}

var _ clients.ReplayStore = (*AssertionReplay)(nil)

// NewAssertionReplay returns the replay store of db.
func NewAssertionReplay(db *DB) *AssertionReplay { return &AssertionReplay{db: db} }

// Claim implements clients.ReplayStore in one statement: the insert wins,
// or takes over an expired record, or affects no row (a replay). Two
// replicas claiming the same jti at once serialise on the primary key.
func (s *AssertionReplay) Claim(ctx context.Context, clientID, jti string, expiresAt, now time.Time) error {
	if !clients.ValidJTI(jti) {
		return fmt.Errorf("client %q jti %q: %w", clientID, jti, clients.ErrInvalidJTI)
	}
	tag, err := s.db.Pool.Exec(ctx, `INSERT INTO oauth_assertion_jtis (client_id, jti, expires_at)
		VALUES ($1, $2, $3)
		ON CONFLICT (client_id, jti) DO UPDATE SET expires_at = EXCLUDED.expires_at
		WHERE oauth_assertion_jtis.expires_at <= $4`, clientID, jti, expiresAt, now)
	if err != nil {
		return fmt.Errorf("claim assertion jti: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("client %q jti %q: %w", clientID, jti, clients.ErrReplayed)
	}
	return nil
}

// Purge implements clients.ReplayStore.
func (s *AssertionReplay) Purge(ctx context.Context, now time.Time) (int64, error) {
	tag, err := s.db.Pool.Exec(ctx, `DELETE FROM oauth_assertion_jtis WHERE expires_at <= $1`, now)
	if err != nil {
		return 0, fmt.Errorf("purge assertion jtis: %w", err)
	}
	return tag.RowsAffected(), nil
}
