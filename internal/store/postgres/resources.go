package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/typeward/typeward/internal/resources"
)

// Resources is the Postgres resources.Store, on oauth_protected_resources.
type Resources struct {
	db *DB
}

var _ resources.Store = (*Resources)(nil)

// NewResources returns the protected-resource list of db.
func NewResources(db *DB) *Resources { return &Resources{db: db} }

// Add implements resources.Store.
func (s *Resources) Add(ctx context.Context, r resources.Resource) error {
	_, err := s.db.Pool.Exec(ctx, `INSERT INTO oauth_protected_resources (uri, name, created_at) VALUES ($1, $2, $3)`,
		r.URI, r.Name, r.CreatedAt)
	if isUniqueViolation(err) {
		return fmt.Errorf("resource %q: %w", r.URI, resources.ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("add resource %q: %w", r.URI, err)
	}
	return nil
}

// List implements resources.Store.
func (s *Resources) List(ctx context.Context) ([]resources.Resource, error) {
	rows, err := s.db.Pool.Query(ctx, `SELECT uri, name, created_at FROM oauth_protected_resources ORDER BY created_at, uri`)
	if err != nil {
		return nil, fmt.Errorf("list resources: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (resources.Resource, error) {
		var r resources.Resource
		err := row.Scan(&r.URI, &r.Name, &r.CreatedAt)
		r.CreatedAt = r.CreatedAt.UTC()
		return r, err
	})
	if err != nil {
		return nil, fmt.Errorf("list resources: %w", err)
	}
	return out, nil
}

// Delete implements resources.Store.
func (s *Resources) Delete(ctx context.Context, uri string) error {
	tag, err := s.db.Pool.Exec(ctx, `DELETE FROM oauth_protected_resources WHERE uri = $1`, uri)
	if err != nil {
		return fmt.Errorf("delete resource %q: %w", uri, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("resource %q: %w", uri, resources.ErrNotFound)
	}
	return nil
}
