// Package revocation records revoked access tokens (RFC 7009) by jti.
// A record is needed only while its token could still be accepted, so each
// carries the token's expiry and may be purged after it.
package revocation

import (
	"context"
	"errors"
	"time"
)

// MaxJTILen bounds a jti: typeward's are short; anything longer is not
// one of its tokens.
const MaxJTILen = 256

// ErrInvalidJTI is returned for an empty or oversized jti.
var ErrInvalidJTI = errors.New("revocation: jti is empty or longer than 256 bytes")

// Store is the revocation list. Implementations: memory.Revocations,
// postgres.Revocations; both pass storetest.RunRevocation. Every replica
// must see the same list, so database mode uses Postgres.
type Store interface {
	// Revoke records jti as revoked until expiresAt (the token's exp).
	// Revoking again is not an error; the later expiry is kept.
	Revoke(ctx context.Context, jti string, expiresAt time.Time) error
	// IsRevoked reports whether jti is recorded as revoked. A record past
	// its expiry may still answer true until purged: its token is expired
	// anyway.
	IsRevoked(ctx context.Context, jti string) (bool, error)
	// Purge removes records that expired at or before now and says how
	// many it removed.
	Purge(ctx context.Context, now time.Time) (int64, error)
}

// ValidJTI reports whether jti may be stored.
func ValidJTI(jti string) bool { return jti != "" && len(jti) <= MaxJTILen }
