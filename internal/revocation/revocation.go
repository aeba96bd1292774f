// Package revocation records revoked access tokens (RFC 7009) by jti.
// A record is needed only while its token could still be accepted, so each
// carries the token's expiry and may be purged after it.
package revocation

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// MaxJTILen bounds a jti: typeward's are short; anything longer is not
// one of its tokens.
const MaxJTILen = 256

// ErrInvalidJTI is returned for a jti no typeward token carries: empty,
// longer than MaxJTILen, or not printable UTF-8 text.
var ErrInvalidJTI = errors.New("revocation: jti is empty, longer than 256 bytes, or not printable text")

// Store is the revocation list. Implementations: memory.Revocations,
// postgres.Revocations; both pass storetest.RunRevocation. Every replica
// must see the same list, so database mode uses Postgres.
type Store interface {
	// Revoke records jti as revoked until expiresAt (the token's exp).
	// Revoking again is not an error; the later expiry is kept.
	Revoke(ctx context.Context, jti string, expiresAt time.Time) error
	// IsRevoked reports whether jti is recorded as revoked. A record past
	// its expiry may still answer true until purged: its token is expired
	// anyway. A jti ValidJTI refuses was never recorded: false.
	IsRevoked(ctx context.Context, jti string) (bool, error)
	// Purge removes records that expired at or before now and says how
	// many it removed.
	Purge(ctx context.Context, now time.Time) (int64, error)
}

// ValidJTI reports whether jti may be stored: every store holds the same
// jtis (Postgres text refuses NUL and invalid UTF-8).
func ValidJTI(jti string) bool {
	return jti != "" && len(jti) <= MaxJTILen && utf8.ValidString(jti) && !strings.ContainsFunc(jti, unicode.IsControl)
}
