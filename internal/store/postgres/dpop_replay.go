package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/verify/dpop"
)

// ProofReplay is the Postgres dpop.Replay of the token endpoint, shared by
// every replica: a proof's (jkt, jti) is claimed in oauth_assertion_jtis
// under the client id "dpop:" + jkt, purged with the assertions' jtis.
//
// Its commit does not wait for the disk (synchronous_commit off for that
// one statement): a claim costs a round trip, not an fsync, and issuance
// with a proof stays within 1.3 times issuance without
// (BenchmarkTokenEndpointDPoP). A database crash may lose the claims of
// its last moments, so a proof sent then could be replayed within its
// two minutes, and only together with the client's own credentials, which
// the token endpoint demands as well.
type ProofReplay struct {
	db  *DB
	now func() time.Time
}

var _ dpop.Replay = (*ProofReplay)(nil)

// NewProofReplay returns the proof replay store of db; now is the clock,
// time.Now when nil.
func NewProofReplay(db *DB, now func() time.Time) *ProofReplay {
	if now == nil {
		now = time.Now
	}
	return &ProofReplay{db: db, now: now}
}

// Claim implements dpop.Replay in one statement, as AssertionReplay.Claim.
func (s *ProofReplay) Claim(ctx context.Context, jkt, jti string, until time.Time) error {
	if !clients.ValidJTI(jti) {
		return fmt.Errorf("proof jti %q: %w", jti, dpop.ErrReplayed)
	}
	tag, err := s.db.Pool.Exec(ctx, `INSERT INTO oauth_assertion_jtis (client_id, jti, expires_at)
		SELECT $1, $2, $3 FROM (SELECT set_config('synchronous_commit', 'off', true)) AS asynchronous
		ON CONFLICT (client_id, jti) DO UPDATE SET expires_at = EXCLUDED.expires_at
		WHERE oauth_assertion_jtis.expires_at <= $4`, proofClientID(jkt), jti, until, s.now())
	if err != nil {
		return fmt.Errorf("claim proof jti: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("proof jti %q: %w", jti, dpop.ErrReplayed)
	}
	return nil
}

// proofClientID is the replay table's client id of a proof key: no
// client id has the "dpop:" prefix (ids are generated hex, or https URLs).
func proofClientID(jkt string) string { return "dpop:" + jkt }
