package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/registration"
)

// Registrations is the Postgres registration.Store, on
// oauth_client_registrations and oauth_registration_tokens.
type Registrations struct {
	db      *DB
	clients *Clients
}

var _ registration.Store = (*Registrations)(nil)

// NewRegistrations returns the registration store of db.
func NewRegistrations(db *DB) *Registrations { return &Registrations{db: db, clients: NewClients(db)} }

// registrationLock serialises registrations, so that the cap on unused
// ones holds across replicas.
const registrationLock = `hashtextextended('typeward register ' || coalesce(current_schema(), ''), 0)`

// Create implements registration.Store: the record is written, under the
// lock and within the cap, before the client; a client that then fails
// takes its record with it (one transaction).
func (s *Registrations) Create(ctx context.Context, c *clients.Client, r registration.Record, maxUnused int) error {
	return pgx.BeginFunc(ctx, s.db.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(`+registrationLock+`)`); err != nil {
			return fmt.Errorf("register client: %w", err)
		}
		tag, err := tx.Exec(ctx, `INSERT INTO oauth_client_registrations (client_id, address, registered_at)
			SELECT $1, $2, $3 WHERE (SELECT count(*) FROM oauth_client_registrations WHERE used_at IS NULL) < $4`,
			r.ClientID, r.Address, r.RegisteredAt, maxUnused)
		if err != nil {
			return fmt.Errorf("register client: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("register client: %w", registration.ErrTooMany)
		}
		return s.clients.create(ctx, tx, c)
	})
}

// Unused implements registration.Store.
func (s *Registrations) Unused(ctx context.Context, limit int) ([]registration.Record, error) {
	rows, err := s.db.Pool.Query(ctx, `SELECT client_id, address, registered_at FROM oauth_client_registrations
		WHERE used_at IS NULL ORDER BY registered_at, client_id LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("unused registrations: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (registration.Record, error) {
		var r registration.Record
		err := row.Scan(&r.ClientID, &r.Address, &r.RegisteredAt)
		r.RegisteredAt = r.RegisteredAt.UTC()
		return r, err
	})
	if err != nil {
		return nil, fmt.Errorf("unused registrations: %w", err)
	}
	return out, nil
}

// MarkUsed implements registration.Store.
func (s *Registrations) MarkUsed(ctx context.Context, clientID string, at time.Time) error {
	tag, err := s.db.Pool.Exec(ctx, `UPDATE oauth_client_registrations SET used_at = coalesce(used_at, $2) WHERE client_id = $1`, clientID, at)
	if err != nil {
		return fmt.Errorf("mark registration used: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("registration %q: %w", clientID, registration.ErrNotFound)
	}
	return nil
}

// Delete implements registration.Store.
func (s *Registrations) Delete(ctx context.Context, clientID string) error {
	return pgx.BeginFunc(ctx, s.db.Pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM oauth_client_registrations WHERE client_id = $1 AND used_at IS NULL`, clientID)
		if err != nil {
			return fmt.Errorf("delete registration: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("unused registration %q: %w", clientID, registration.ErrNotFound)
		}
		if _, err := tx.Exec(ctx, `DELETE FROM oauth_clients WHERE id = $1`, clientID); err != nil {
			return fmt.Errorf("delete registered client: %w", err)
		}
		return nil
	})
}

// AddToken implements registration.Store.
func (s *Registrations) AddToken(ctx context.Context, t registration.AccessToken) error {
	_, err := s.db.Pool.Exec(ctx, `INSERT INTO oauth_registration_tokens (hash, created_at, expires_at) VALUES ($1, $2, $3)`,
		t.Hash, t.CreatedAt, t.ExpiresAt)
	if err != nil {
		return fmt.Errorf("add initial access token: %w", err)
	}
	return nil
}

// UseToken implements registration.Store.
func (s *Registrations) UseToken(ctx context.Context, hash []byte, now time.Time) error {
	tag, err := s.db.Pool.Exec(ctx, `UPDATE oauth_registration_tokens SET used_at = $2
		WHERE hash = $1 AND used_at IS NULL AND expires_at > $2`, hash, now)
	if err != nil {
		return fmt.Errorf("use initial access token: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("initial access token: %w", registration.ErrNotFound)
	}
	return nil
}
