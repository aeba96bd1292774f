package clients

import (
	"context"
	"errors"

	"github.com/typeward/typeward/internal/grading"
)

// Sentinels every Store returns (wrapped) so callers map them to answers
// without knowing the backend.
var (
	ErrNotFound = errors.New("client not found")
	ErrConflict = errors.New("client already exists")
)

// Getter finds one client: all the Authenticator needs.
type Getter interface {
	// Get returns the client with this id, or ErrNotFound.
	Get(ctx context.Context, id string) (*Client, error)
}

// Store keeps clients. Implementations: memory.Clients, postgres.Clients;
// both pass storetest.RunClients. Returned clients are copies the caller
// may modify.
type Store interface {
	Getter
	// Create stores a new client, or returns ErrConflict when the id exists.
	Create(ctx context.Context, c *Client) error
	// Update replaces every field but ID and CreatedAt, or returns ErrNotFound.
	Update(ctx context.Context, c *Client) error
	// List returns every client, oldest first (ties by id).
	List(ctx context.Context) ([]*Client, error)
	// SetApproval changes the client's approval policy alone, or returns
	// ErrNotFound.
	SetApproval(ctx context.Context, id string, a Approval) error
	// SetValidation changes the client's validation mode alone, or
	// returns ErrNotFound.
	SetValidation(ctx context.Context, id string, m grading.Mode) error
	// SetDPoPBound changes whether the client's tokens must be DPoP-bound
	// alone, or returns ErrNotFound.
	SetDPoPBound(ctx context.Context, id string, bound bool) error
	// Disable marks the client disabled (idempotent), or returns ErrNotFound.
	Disable(ctx context.Context, id string) error
}
