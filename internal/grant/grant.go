// Package grant keeps what a person's consent on the authorization page
// leaves behind: the authorization code (RFC 6749 §4.1.2), one-time and
// short-lived, and the refresh-token families it may start (OAuth 2.1
// §4.3, RFC 9700 §4.14): every refresh rotates the token, and a used
// token presented again revokes its whole family. Codes and refresh
// tokens are random secrets of which the stores keep only the SHA-256.
package grant

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"slices"
	"time"
)

// Sentinels every Store returns (wrapped).
var (
	// ErrNotFound: no such code, refresh token or family.
	ErrNotFound = errors.New("grant not found")
	// ErrSpent: the code was already redeemed, or the refresh token
	// already used, or it expired, or its family was revoked: the
	// one-time step asked for did not happen.
	ErrSpent = errors.New("grant already used, expired or revoked")
)

// Consent is what a person approved for a client: the token every code
// and refresh of it is for.
type Consent struct {
	ClientID string
	// Subject is the console user who consented: the tokens' sub.
	Subject  string
	Audience string
	// Scopes are the plain scopes granted besides the composition's
	// tools (offline_access among them when it was asked).
	Scopes []string
	// Details is the authorization_details parameter of the composition
	// (one mcp_composition), validated again at every redemption.
	Details string
	// Digest is the composition's digest the person was shown; a token is
	// issued only while a fresh validation gives the same one.
	Digest      string
	Tools       []string
	ConsentedAt time.Time
}

func (c Consent) clone() Consent {
	c.Scopes, c.Tools = slices.Clone(c.Scopes), slices.Clone(c.Tools)
	return c
}

// Code is an authorization code as stored.
type Code struct {
	Hash []byte
	Consent
	RedirectURI string
	// Challenge is the PKCE S256 code_challenge (RFC 7636).
	Challenge string
	// Refresh says whether redeeming it starts a refresh family.
	Refresh   bool
	CreatedAt time.Time
	ExpiresAt time.Time
	// RedeemedAt, JTI, JTIExpiresAt and FamilyID are set by the one
	// redemption: the access token issued and the family started, which a
	// second redemption revokes.
	RedeemedAt   time.Time
	JTI          string
	JTIExpiresAt time.Time
	FamilyID     string
}

// Clone returns a deep copy.
func (c *Code) Clone() *Code {
	d := *c
	d.Hash, d.Consent = slices.Clone(c.Hash), c.Consent.clone()
	return &d
}

// Family is one chain of refresh tokens from one code.
type Family struct {
	ID string
	Consent
	CreatedAt time.Time
	// ExpiresAt is the absolute lifetime: no refresh after it.
	ExpiresAt  time.Time
	LastUsedAt time.Time
	// RevokedAt and RevokedReason end the family (zero while it lives).
	RevokedAt     time.Time
	RevokedReason string
	// JTI and JTIExpiresAt are of the latest access token, revoked with
	// the family when a used refresh token comes back.
	JTI          string
	JTIExpiresAt time.Time
	// JKT is the thumbprint of the DPoP key the family is bound to (that
	// of the code redemption's proof), "" for none: its refresh tokens are
	// accepted only with a proof of that key (RFC 9449 §5).
	JKT string
}

// Clone returns a deep copy.
func (f *Family) Clone() *Family {
	d := *f
	d.Consent = f.Consent.clone()
	return &d
}

// Live reports whether the family may still refresh at now.
func (f *Family) Live(now time.Time) bool { return f.RevokedAt.IsZero() && now.Before(f.ExpiresAt) }

// RefreshToken is one token of a family, as stored.
type RefreshToken struct {
	Hash     []byte
	FamilyID string
	// ExpiresAt is the idle lifetime: the token's creation plus the idle
	// timeout, never past the family's ExpiresAt.
	ExpiresAt time.Time
	CreatedAt time.Time
	UsedAt    time.Time
	// JTI and JTIExpiresAt are of the access token issued with this
	// refresh token (the code's, for a family's first), which the store
	// sets: a reuse revokes every one still unexpired.
	JTI          string
	JTIExpiresAt time.Time
}

// Issued is an access token a family's refresh tokens were issued with.
type Issued struct {
	JTI       string
	ExpiresAt time.Time
}

// Filter selects families to list: by client, by person, or both.
type Filter struct {
	ClientID string
	Subject  string
}

// Store keeps codes and refresh families for every replica.
// Implementations: memory.Grants, postgres.Grants; both pass
// storetest.RunGrants. Times are kept to the microsecond.
type Store interface {
	// CreateCode stores a new code.
	CreateCode(ctx context.Context, c *Code) error
	// Code returns the code with this hash, whatever its state, or
	// ErrNotFound.
	Code(ctx context.Context, hash []byte) (*Code, error)
	// RedeemCode marks the code redeemed at at, recording the access
	// token's jti and, when family is not nil, creating the family with
	// its first refresh token, all at once and at most once: ErrSpent when
	// the code was redeemed before or is expired at at, ErrNotFound when
	// there is no such code.
	RedeemCode(ctx context.Context, hash []byte, at time.Time, jti string, jtiExpires time.Time, family *Family, first *RefreshToken) error

	// Refresh returns the refresh token with this hash and its family,
	// whatever their state, or ErrNotFound.
	Refresh(ctx context.Context, hash []byte) (*RefreshToken, *Family, error)
	// Rotate uses the refresh token at at and stores next in its place,
	// recording the new access token on the family, at most once: ErrSpent
	// when the token was used before or is expired at at, or the family is
	// revoked or past its lifetime.
	Rotate(ctx context.Context, hash []byte, at time.Time, next *RefreshToken, jti string, jtiExpires time.Time) error
	// Issued lists the access tokens the family's refresh tokens were
	// issued with that are unexpired at at: what a reuse revokes besides
	// the family.
	Issued(ctx context.Context, familyID string, at time.Time) ([]Issued, error)
	// RevokeFamily ends a family (idempotent: the first reason stays), or
	// ErrNotFound.
	RevokeFamily(ctx context.Context, id, reason string, at time.Time) error
	// Family returns one family, or ErrNotFound.
	Family(ctx context.Context, id string) (*Family, error)
	// Families lists the families the filter selects, newest first, at
	// most limit.
	Families(ctx context.Context, f Filter, limit int) ([]*Family, error)
	// Purge deletes codes that expired before before and families whose
	// lifetime ended (or that were revoked) before before.
	Purge(ctx context.Context, before time.Time) (int64, error)
}

// NewSecret returns a fresh code or refresh token (256 random bits,
// base64url) and the hash the store keeps of it.
func NewSecret() (secret string, hash []byte) {
	var b [32]byte
	_, _ = rand.Read(b[:])
	secret = base64.RawURLEncoding.EncodeToString(b[:])
	return secret, Hash(secret)
}

// Hash is what the store keeps of a code or refresh token.
func Hash(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// NewFamilyID returns a fresh family id (128 random bits, base64url).
func NewFamilyID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// MaxListed bounds a listing of families.
const MaxListed = 500
