// Package registration keeps what OAuth 2.0 Dynamic Client Registration
// (RFC 7591, oauth.Registrar) leaves: a record of each registered client,
// so that the never-used ones can be capped and expired, and the initial
// access tokens of --registration token. MCP hosts of SDK 1.x register
// when they have no client ID metadata document.
package registration

import (
	"context"
	"errors"
	"time"

	"github.com/typeward/typeward/internal/clients"
)

// Sentinels every Store returns (wrapped).
var (
	ErrNotFound = errors.New("registration not found")
	// ErrTooMany: the cap on never-used registrations is reached.
	ErrTooMany = errors.New("too many unused registrations")
)

// Record is one registration of a client.
type Record struct {
	ClientID string
	// Address is the remote address that registered (addrkey.Of).
	Address      string
	RegisteredAt time.Time
	// UsedAt is when the client was first seen issued a token; zero while
	// never used.
	UsedAt time.Time
}

// AccessToken is an initial access token as stored: its SHA-256 only.
type AccessToken struct {
	Hash      []byte
	CreatedAt time.Time
	ExpiresAt time.Time
}

// Store keeps registrations and initial access tokens. Implementations:
// memory.Registrations, postgres.Registrations; both pass
// storetest.RunRegistrations.
type Store interface {
	// Create stores the client and its record at once, or returns
	// ErrTooMany when maxUnused records are never used already (and
	// stores nothing).
	Create(ctx context.Context, c *clients.Client, r Record, maxUnused int) error
	// Unused returns up to limit never-used records, oldest first.
	Unused(ctx context.Context, limit int) ([]Record, error)
	// MarkUsed records the client's first use; ErrNotFound without a
	// record. A later call keeps the first time.
	MarkUsed(ctx context.Context, clientID string, at time.Time) error
	// Delete removes a never-used registration and its client, or
	// returns ErrNotFound (no record, or a used one).
	Delete(ctx context.Context, clientID string) error
	// AddToken stores an initial access token.
	AddToken(ctx context.Context, t AccessToken) error
	// UseToken spends the token with this hash: ErrNotFound when it is
	// unknown, spent or expired at now.
	UseToken(ctx context.Context, hash []byte, now time.Time) error
}
