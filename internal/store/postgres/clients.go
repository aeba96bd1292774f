package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/grading"
)

// Clients is the Postgres clients.Store, on the oauth_clients table.
type Clients struct {
	db *DB
}

var _ clients.Store = (*Clients)(nil)

// NewClients returns the client store of db.
func NewClients(db *DB) *Clients { return &Clients{db: db} }

const clientColumns = `id, name, auth_method, secret_hash, jwks, allowed_tools,
	allowed_audiences, allowed_scopes, disabled, created_at, approval, validation, redirect_uris, grant_types,
	dpop_bound_access_tokens, scope`

// Create implements clients.Store.
func (s *Clients) Create(ctx context.Context, c *clients.Client) error {
	return s.create(ctx, s.db.Pool, c)
}

// create inserts c through q: the pool, or a transaction that stores
// more with it (a registration's record).
func (s *Clients) create(ctx context.Context, q interface {
	Exec(context.Context, string, ...any) (pgconn.CommandTag, error)
}, c *clients.Client) error {
	_, err := q.Exec(ctx, `INSERT INTO oauth_clients (`+clientColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
		c.ID, c.Name, string(c.TokenEndpointAuthMethod), c.SecretHash, clientJWKSArg(c.JWKS),
		nonNilStrings(c.AllowedTools), nonNilStrings(c.AllowedAudiences), nonNilStrings(c.AllowedScopes),
		c.Disabled, c.CreatedAt, string(c.Approval.OrNever()), string(c.Validation.OrLenient()),
		nonNilStrings(c.RedirectURIs), nonNilStrings(c.GrantTypes), c.DPoPBound, nonNilStrings(c.Scope))
	if isUniqueViolation(err) {
		return fmt.Errorf("create client %q: %w", c.ID, clients.ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("create client %q: %w", c.ID, err)
	}
	return nil
}

// Get implements clients.Store.
func (s *Clients) Get(ctx context.Context, id string) (*clients.Client, error) {
	if !storable(id) {
		return nil, fmt.Errorf("client %q: %w", id, clients.ErrNotFound)
	}
	rows, err := s.db.Pool.Query(ctx, `SELECT `+clientColumns+` FROM oauth_clients WHERE id = $1`, id)
	if err != nil {
		return nil, fmt.Errorf("get client %q: %w", id, err)
	}
	c, err := pgx.CollectExactlyOneRow(rows, scanClient)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("client %q: %w", id, clients.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("get client %q: %w", id, err)
	}
	return c, nil
}

// Update implements clients.Store.
func (s *Clients) Update(ctx context.Context, c *clients.Client) error {
	if !storable(c.ID) {
		return fmt.Errorf("update client %q: %w", c.ID, clients.ErrNotFound)
	}
	tag, err := s.db.Pool.Exec(ctx, `UPDATE oauth_clients SET name = $2, auth_method = $3,
		secret_hash = $4, jwks = $5, allowed_tools = $6, allowed_audiences = $7,
		allowed_scopes = $8, disabled = $9, approval = $10, validation = $11, redirect_uris = $12,
		grant_types = $13, dpop_bound_access_tokens = $14, scope = $15 WHERE id = $1`,
		c.ID, c.Name, string(c.TokenEndpointAuthMethod), c.SecretHash, clientJWKSArg(c.JWKS),
		nonNilStrings(c.AllowedTools), nonNilStrings(c.AllowedAudiences), nonNilStrings(c.AllowedScopes),
		c.Disabled, string(c.Approval.OrNever()), string(c.Validation.OrLenient()),
		nonNilStrings(c.RedirectURIs), nonNilStrings(c.GrantTypes), c.DPoPBound, nonNilStrings(c.Scope))
	if err != nil {
		return fmt.Errorf("update client %q: %w", c.ID, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("update client %q: %w", c.ID, clients.ErrNotFound)
	}
	return nil
}

// List implements clients.Store.
func (s *Clients) List(ctx context.Context) ([]*clients.Client, error) {
	rows, err := s.db.Pool.Query(ctx, `SELECT `+clientColumns+` FROM oauth_clients ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("list clients: %w", err)
	}
	out, err := pgx.CollectRows(rows, scanClient)
	if err != nil {
		return nil, fmt.Errorf("list clients: %w", err)
	}
	return out, nil
}

// SetApproval implements clients.Store.
func (s *Clients) SetApproval(ctx context.Context, id string, a clients.Approval) error {
	return s.setPolicy(ctx, id, "approval", string(a.OrNever()))
}

// SetValidation implements clients.Store.
func (s *Clients) SetValidation(ctx context.Context, id string, m grading.Mode) error {
	return s.setPolicy(ctx, id, "validation", string(m.OrLenient()))
}

// SetDPoPBound implements clients.Store.
func (s *Clients) SetDPoPBound(ctx context.Context, id string, bound bool) error {
	return s.setPolicy(ctx, id, "dpop_bound_access_tokens", bound)
}

// setPolicy sets one policy column (a constant of this file, never input)
// of one client.
func (s *Clients) setPolicy(ctx context.Context, id, column string, value any) error {
	if !storable(id) {
		return fmt.Errorf("set %s of client %q: %w", column, id, clients.ErrNotFound)
	}
	tag, err := s.db.Pool.Exec(ctx, `UPDATE oauth_clients SET `+column+` = $2 WHERE id = $1`, id, value)
	if err != nil {
		return fmt.Errorf("set %s of client %q: %w", column, id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("set %s of client %q: %w", column, id, clients.ErrNotFound)
	}
	return nil
}

// Disable implements clients.Store.
func (s *Clients) Disable(ctx context.Context, id string) error {
	if !storable(id) {
		return fmt.Errorf("disable client %q: %w", id, clients.ErrNotFound)
	}
	tag, err := s.db.Pool.Exec(ctx, `UPDATE oauth_clients SET disabled = true WHERE id = $1`, id)
	if err != nil {
		return fmt.Errorf("disable client %q: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("disable client %q: %w", id, clients.ErrNotFound)
	}
	return nil
}

func scanClient(row pgx.CollectableRow) (*clients.Client, error) {
	var c clients.Client
	var method, approval, validation string
	var jwks []byte
	err := row.Scan(&c.ID, &c.Name, &method, &c.SecretHash, &jwks, &c.AllowedTools,
		&c.AllowedAudiences, &c.AllowedScopes, &c.Disabled, &c.CreatedAt, &approval, &validation,
		&c.RedirectURIs, &c.GrantTypes, &c.DPoPBound, &c.Scope)
	if err != nil {
		return nil, err
	}
	c.TokenEndpointAuthMethod = clients.AuthMethod(method)
	c.Approval = clients.Approval(approval)
	c.Validation = grading.Mode(validation)
	if jwks != nil {
		c.JWKS = jwks
	}
	c.CreatedAt = c.CreatedAt.UTC()
	return &c, nil
}

// clientJWKSArg passes a JWKS as jsonb text, or NULL when there is none.
func clientJWKSArg(raw []byte) any {
	if len(raw) == 0 {
		return nil
	}
	return string(raw)
}

// nonNilStrings turns nil into an empty array: the columns are NOT NULL.
func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
