package oauth

import (
	"context"
	"net/url"
	"time"

	"github.com/typeward/typeward/internal/audit"
	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/token"
	"github.com/typeward/typeward/verify"
)

// The interfaces below are what the token endpoint needs from the rest of
// typeward; internal/server binds them to the real packages.

// Authenticator authenticates the client of a request from its form and
// Authorization header; a failure that is the client's fault is a
// *clients.AuthError. *clients.Authenticator implements it.
type Authenticator interface {
	Authenticate(ctx context.Context, form url.Values, authorization string) (*clients.Client, error)
	// AuthenticatePublic also accepts a public client by its client_id
	// alone, for the grants a PKCE verifier or a refresh token stands
	// behind, and for revocation.
	AuthenticatePublic(ctx context.Context, form url.Values, authorization string) (*clients.Client, error)
}

// Compositions finds stored compositions by name (registry.ErrNotFound
// when unknown); registry.Store implements it.
type Compositions interface {
	Composition(ctx context.Context, name string) (registry.Composition, error)
}

// Declarations finds a tool's current declaration (registry.ErrNotFound when
// unknown), whose annotations the approval policy reads; registry.Store
// implements it.
type Declarations interface {
	Tool(ctx context.Context, name string) (registry.ToolRecord, error)
}

// Minter signs an access token for a grant; *token.Minter implements it.
type Minter interface {
	Mint(g token.Grant) (token.Minted, error)
}

// TokenVerifier checks a token typeward signed: signature with a published
// key, typ at+jwt, issuer, expiry, any audience. Any error makes the token
// inactive. *verify.Verifier over the keyring implements it.
type TokenVerifier interface {
	Verify(ctx context.Context, token string) (*verify.Claims, error)
}

// Revocations records revoked token ids until their tokens expire.
type Revocations interface {
	Revoke(ctx context.Context, jti string, expiresAt time.Time) error
	IsRevoked(ctx context.Context, jti string) (bool, error)
}

// RateLimiter grants or refuses one request of a client.
type RateLimiter interface {
	Allow(clientID string) (ok bool, retryAfter time.Duration)
}

// AuditLog records every token decision; audit.Store implements it.
type AuditLog interface {
	Append(ctx context.Context, rec *audit.Issuance) error
}

// Clients reads client records, to check on every use of a token that
// its client is still enabled; clients.Store implements it.
type Clients interface {
	Get(ctx context.Context, id string) (*clients.Client, error)
}
