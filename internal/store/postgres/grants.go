package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/typeward/typeward/internal/grant"
)

// Grants is the Postgres grant.Store, on oauth_codes,
// oauth_refresh_families and oauth_refresh_tokens: a code redeemed on one
// replica is spent on all, and so is a refresh token.
type Grants struct {
	db *DB
}

var _ grant.Store = (*Grants)(nil)

// NewGrants returns the grant store of db.
func NewGrants(db *DB) *Grants { return &Grants{db: db} }

func storableConsent(c grant.Consent) bool {
	return storable(c.ClientID, c.Subject, c.Audience, c.Details, c.Digest) && storable(c.Scopes...) && storable(c.Tools...)
}

// CreateCode implements grant.Store.
func (s *Grants) CreateCode(ctx context.Context, c *grant.Code) error {
	if !storableConsent(c.Consent) || !storable(c.RedirectURI, c.Challenge) {
		return fmt.Errorf("create code: text with NUL or invalid UTF-8")
	}
	_, err := s.db.Pool.Exec(ctx, `INSERT INTO oauth_codes (hash, client_id, subject, audience, scopes, details,
		digest, tools, consented_at, redirect_uri, challenge, refresh, created_at, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
		c.Hash, c.ClientID, c.Subject, c.Audience, nonNilStrings(c.Scopes), c.Details, c.Digest, nonNilStrings(c.Tools),
		c.ConsentedAt, c.RedirectURI, c.Challenge, c.Refresh, c.CreatedAt, c.ExpiresAt)
	if err != nil {
		return fmt.Errorf("create code: %w", err)
	}
	return nil
}

// Code implements grant.Store.
func (s *Grants) Code(ctx context.Context, hash []byte) (*grant.Code, error) {
	var c grant.Code
	var redeemed, jtiExp *time.Time
	err := s.db.Pool.QueryRow(ctx, `SELECT hash, client_id, subject, audience, scopes, details, digest, tools,
		consented_at, redirect_uri, challenge, refresh, created_at, expires_at, redeemed_at, jti, jti_expires_at, family_id
		FROM oauth_codes WHERE hash = $1`, hash).Scan(&c.Hash, &c.ClientID, &c.Subject, &c.Audience, &c.Scopes,
		&c.Details, &c.Digest, &c.Tools, &c.ConsentedAt, &c.RedirectURI, &c.Challenge, &c.Refresh, &c.CreatedAt,
		&c.ExpiresAt, &redeemed, &c.JTI, &jtiExp, &c.FamilyID)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("code: %w", grant.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("get code: %w", err)
	}
	c.ConsentedAt, c.CreatedAt, c.ExpiresAt = c.ConsentedAt.UTC(), c.CreatedAt.UTC(), c.ExpiresAt.UTC()
	c.RedeemedAt, c.JTIExpiresAt = timeOrZero(redeemed), timeOrZero(jtiExp)
	return &c, nil
}

// RedeemCode implements grant.Store in one statement: the code's row is
// updated only while unredeemed and unexpired, so two replicas never both
// redeem it, and the family and its first token are inserted from that
// update's row, so a refused redemption inserts nothing.
//
// Its commit does not wait for the disk (synchronous_commit off for that
// statement, as the DPoP proof claims): the token it redeems for is
// answered only once its audit record has committed, synchronously and
// later, and the WAL is flushed in order, so a redemption whose token was
// answered is durable. A crash before that loses a redemption whose token
// nobody received. It costs a round trip, not a second fsync per token
// (BenchmarkGrantRedemption).
func (s *Grants) RedeemCode(ctx context.Context, hash []byte, at time.Time, jti string, jtiExpires time.Time, f *grant.Family, first *grant.RefreshToken) error {
	var fam grant.Family
	var tok grant.RefreshToken
	if f != nil {
		if !storableConsent(f.Consent) || !storable(f.ID) {
			return fmt.Errorf("redeem code: text with NUL or invalid UTF-8")
		}
		fam, tok = *f, *first
	}
	var n int
	err := s.db.Pool.QueryRow(ctx, `WITH asynchronous AS (SELECT set_config('synchronous_commit', 'off', true)),
		redeemed AS (
			UPDATE oauth_codes SET redeemed_at = $2, jti = $3, jti_expires_at = $4, family_id = $5
			WHERE hash = $1 AND redeemed_at IS NULL AND expires_at > $2 AND EXISTS (SELECT 1 FROM asynchronous)
			RETURNING hash),
		family AS (
			INSERT INTO oauth_refresh_families (id, client_id, subject, audience, scopes, details,
				digest, tools, consented_at, created_at, expires_at, last_used_at, jti, jti_expires_at, dpop_jkt)
			SELECT $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $20, $21, $22 FROM redeemed WHERE $5 <> ''
			RETURNING id),
		first AS (
			INSERT INTO oauth_refresh_tokens (hash, family_id, created_at, expires_at, jti, jti_expires_at)
			SELECT $17, id, $18, $19, $3, $4 FROM family)
		SELECT count(*) FROM redeemed`,
		hash, at, jti, jtiExpires, fam.ID, fam.ClientID, fam.Subject, fam.Audience, nonNilStrings(fam.Scopes), fam.Details,
		fam.Digest, nonNilStrings(fam.Tools), fam.ConsentedAt, fam.CreatedAt, fam.ExpiresAt, fam.LastUsedAt,
		tok.Hash, tok.CreatedAt, tok.ExpiresAt, fam.JTI, nullTime(fam.JTIExpiresAt), fam.JKT).Scan(&n)
	if err != nil {
		return fmt.Errorf("redeem code: %w", err)
	}
	if n == 0 {
		return s.spentOrUnknown(ctx, "redeem code", `SELECT EXISTS (SELECT 1 FROM oauth_codes WHERE hash = $1)`, hash)
	}
	return nil
}

// spentOrUnknown tells a refused one-time step's ErrSpent (the row
// exists) from ErrNotFound, by exists (a constant of this file).
func (s *Grants) spentOrUnknown(ctx context.Context, what, exists string, hash []byte) error {
	var ok bool
	if err := s.db.Pool.QueryRow(ctx, exists, hash).Scan(&ok); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if !ok {
		return fmt.Errorf("%s: %w", what, grant.ErrNotFound)
	}
	return fmt.Errorf("%s: %w", what, grant.ErrSpent)
}

const familyColumns = `f.id, f.client_id, f.subject, f.audience, f.scopes, f.details, f.digest, f.tools, f.consented_at,
	f.created_at, f.expires_at, f.last_used_at, f.revoked_at, f.revoked_reason, f.jti, f.jti_expires_at, f.dpop_jkt`

func scanFamily(row pgx.CollectableRow) (*grant.Family, error) {
	return scanFamilyRow(row)
}

func scanFamilyRow(row pgx.Row, extra ...any) (*grant.Family, error) {
	var f grant.Family
	var revoked, jtiExp *time.Time
	dest := append([]any{&f.ID, &f.ClientID, &f.Subject, &f.Audience, &f.Scopes, &f.Details, &f.Digest, &f.Tools,
		&f.ConsentedAt, &f.CreatedAt, &f.ExpiresAt, &f.LastUsedAt, &revoked, &f.RevokedReason, &f.JTI, &jtiExp, &f.JKT}, extra...)
	if err := row.Scan(dest...); err != nil {
		return nil, err
	}
	f.ConsentedAt, f.CreatedAt, f.ExpiresAt, f.LastUsedAt = f.ConsentedAt.UTC(), f.CreatedAt.UTC(), f.ExpiresAt.UTC(), f.LastUsedAt.UTC()
	f.RevokedAt, f.JTIExpiresAt = timeOrZero(revoked), timeOrZero(jtiExp)
	return &f, nil
}

// Refresh implements grant.Store.
func (s *Grants) Refresh(ctx context.Context, hash []byte) (*grant.RefreshToken, *grant.Family, error) {
	var t grant.RefreshToken
	var used, jtiExp *time.Time
	f, err := scanFamilyRow(s.db.Pool.QueryRow(ctx, `SELECT `+familyColumns+`, t.hash, t.family_id, t.created_at, t.expires_at, t.used_at,
		t.jti, t.jti_expires_at
		FROM oauth_refresh_tokens t JOIN oauth_refresh_families f ON f.id = t.family_id WHERE t.hash = $1`, hash),
		&t.Hash, &t.FamilyID, &t.CreatedAt, &t.ExpiresAt, &used, &t.JTI, &jtiExp)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil, fmt.Errorf("refresh token: %w", grant.ErrNotFound)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("get refresh token: %w", err)
	}
	t.CreatedAt, t.ExpiresAt, t.UsedAt, t.JTIExpiresAt = t.CreatedAt.UTC(), t.ExpiresAt.UTC(), timeOrZero(used), timeOrZero(jtiExp)
	return &t, f, nil
}

// Rotate implements grant.Store: one statement marks the token used
// while it is unused, unexpired and its family live, inserts the next
// and records the access token on the family. Like RedeemCode's, its
// commit does not wait for the disk: the token's audit record, committed
// synchronously after it, makes it durable before the token is answered.
func (s *Grants) Rotate(ctx context.Context, hash []byte, at time.Time, next *grant.RefreshToken, jti string, jtiExpires time.Time) error {
	var n int
	err := s.db.Pool.QueryRow(ctx, `WITH asynchronous AS (SELECT set_config('synchronous_commit', 'off', true)),
		used AS (
			UPDATE oauth_refresh_tokens t SET used_at = $2
			FROM oauth_refresh_families f
			WHERE t.hash = $1 AND t.used_at IS NULL AND t.expires_at > $2
			  AND f.id = t.family_id AND f.revoked_at IS NULL AND f.expires_at > $2
			  AND EXISTS (SELECT 1 FROM asynchronous)
			RETURNING t.family_id),
		fam AS (
			UPDATE oauth_refresh_families SET last_used_at = $2, jti = $6, jti_expires_at = $7
			WHERE id = (SELECT family_id FROM used)),
		ins AS (
			INSERT INTO oauth_refresh_tokens (hash, family_id, created_at, expires_at, jti, jti_expires_at)
			SELECT $3, family_id, $4, $5, $6, $7 FROM used)
		SELECT count(*) FROM used`, hash, at, next.Hash, next.CreatedAt, next.ExpiresAt, jti, jtiExpires).Scan(&n)
	if err != nil {
		return fmt.Errorf("rotate refresh token: %w", err)
	}
	if n == 0 {
		return s.spentOrUnknown(ctx, "rotate refresh token", `SELECT EXISTS (SELECT 1 FROM oauth_refresh_tokens WHERE hash = $1)`, hash)
	}
	return nil
}

// Issued implements grant.Store.
func (s *Grants) Issued(ctx context.Context, familyID string, at time.Time) ([]grant.Issued, error) {
	if !storable(familyID) {
		return nil, nil
	}
	rows, err := s.db.Pool.Query(ctx, `SELECT jti, jti_expires_at FROM oauth_refresh_tokens
		WHERE family_id = $1 AND jti <> '' AND jti_expires_at > $2`, familyID, at)
	if err != nil {
		return nil, fmt.Errorf("issued: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (grant.Issued, error) {
		var i grant.Issued
		err := r.Scan(&i.JTI, &i.ExpiresAt)
		i.ExpiresAt = i.ExpiresAt.UTC()
		return i, err
	})
	if err != nil {
		return nil, fmt.Errorf("issued: %w", err)
	}
	return out, nil
}

// RevokeFamily implements grant.Store.
func (s *Grants) RevokeFamily(ctx context.Context, id, reason string, at time.Time) error {
	if !storable(id, reason) {
		return fmt.Errorf("family: %w", grant.ErrNotFound)
	}
	tag, err := s.db.Pool.Exec(ctx, `UPDATE oauth_refresh_families
		SET revoked_at = COALESCE(revoked_at, $2), revoked_reason = CASE WHEN revoked_at IS NULL THEN $3 ELSE revoked_reason END
		WHERE id = $1`, id, at, reason)
	if err != nil {
		return fmt.Errorf("revoke family: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("revoke family: %w", grant.ErrNotFound)
	}
	return nil
}

// Family implements grant.Store.
func (s *Grants) Family(ctx context.Context, id string) (*grant.Family, error) {
	if !storable(id) {
		return nil, fmt.Errorf("family: %w", grant.ErrNotFound)
	}
	f, err := scanFamilyRow(s.db.Pool.QueryRow(ctx, `SELECT `+familyColumns+` FROM oauth_refresh_families f WHERE f.id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("family: %w", grant.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("get family: %w", err)
	}
	return f, nil
}

// Families implements grant.Store.
func (s *Grants) Families(ctx context.Context, filter grant.Filter, limit int) ([]*grant.Family, error) {
	if !storable(filter.ClientID, filter.Subject) {
		return nil, nil
	}
	rows, err := s.db.Pool.Query(ctx, `SELECT `+familyColumns+` FROM oauth_refresh_families f
		WHERE ($1 = '' OR f.client_id = $1) AND ($2 = '' OR f.subject = $2)
		ORDER BY f.created_at DESC, f.id DESC LIMIT $3`, filter.ClientID, filter.Subject, limit)
	if err != nil {
		return nil, fmt.Errorf("list families: %w", err)
	}
	out, err := pgx.CollectRows(rows, scanFamily)
	if err != nil {
		return nil, fmt.Errorf("list families: %w", err)
	}
	return out, nil
}

// Purge implements grant.Store.
func (s *Grants) Purge(ctx context.Context, before time.Time) (int64, error) {
	codes, err := s.db.Pool.Exec(ctx, `DELETE FROM oauth_codes WHERE expires_at < $1`, before)
	if err != nil {
		return 0, fmt.Errorf("purge codes: %w", err)
	}
	fams, err := s.db.Pool.Exec(ctx, `DELETE FROM oauth_refresh_families WHERE expires_at < $1 OR revoked_at < $1`, before)
	if err != nil {
		return 0, fmt.Errorf("purge families: %w", err)
	}
	return codes.RowsAffected() + fams.RowsAffected(), nil
}
