package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/typeward/typeward/internal/users"
)

// Users is the Postgres users.Store, on console_users and
// console_sessions: a session opened on one replica works on all.
type Users struct {
	db *DB
}

var _ users.Store = (*Users)(nil)

// NewUsers returns the console user store of db.
func NewUsers(db *DB) *Users { return &Users{db: db} }

// Create implements users.Store.
func (s *Users) Create(ctx context.Context, u *users.User) error {
	if !storable(u.Name, u.PasswordHash) {
		return fmt.Errorf("create user: text with NUL or invalid UTF-8")
	}
	_, err := s.db.Pool.Exec(ctx, `INSERT INTO console_users (name, role, password_hash, created_at, failed_sign_ins, locked_until)
		VALUES ($1, $2, $3, $4, $5, $6)`, u.Name, string(u.Role), u.PasswordHash, u.CreatedAt, u.FailedSignIns, nullTime(u.LockedUntil))
	if isUniqueViolation(err) {
		return fmt.Errorf("user %q: %w", u.Name, users.ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("create user %q: %w", u.Name, err)
	}
	return nil
}

// Get implements users.Store.
func (s *Users) Get(ctx context.Context, name string) (*users.User, error) {
	if !storable(name) {
		return nil, fmt.Errorf("user: %w", users.ErrNotFound)
	}
	var u users.User
	var role string
	var locked *time.Time
	err := s.db.Pool.QueryRow(ctx, `SELECT name, role, password_hash, created_at, failed_sign_ins, locked_until
		FROM console_users WHERE name = $1`, name).Scan(&u.Name, &role, &u.PasswordHash, &u.CreatedAt, &u.FailedSignIns, &locked)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("user %q: %w", name, users.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("get user %q: %w", name, err)
	}
	u.Role, u.CreatedAt, u.LockedUntil = users.Role(role), u.CreatedAt.UTC(), timeOrZero(locked)
	return &u, nil
}

func (s *Users) exec(ctx context.Context, what, name, sql string, args ...any) error {
	if !storable(name) {
		return fmt.Errorf("%s: %w", what, users.ErrNotFound)
	}
	tag, err := s.db.Pool.Exec(ctx, sql, append([]any{name}, args...)...)
	if err != nil {
		return fmt.Errorf("%s %q: %w", what, name, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("%s %q: %w", what, name, users.ErrNotFound)
	}
	return nil
}

// SetPassword implements users.Store.
func (s *Users) SetPassword(ctx context.Context, name string, role users.Role, hash string) error {
	// One statement: the sessions end with the password they were made under.
	return s.exec(ctx, "set password of user", name, `WITH ended AS (DELETE FROM console_sessions WHERE user_name = $1)
		UPDATE console_users SET role = $2, password_hash = $3, failed_sign_ins = 0, locked_until = NULL WHERE name = $1`,
		string(role), hash)
}

// RecordFailure implements users.Store: one statement counts the failure,
// so replicas add up; the lock then derives from the count.
func (s *Users) RecordFailure(ctx context.Context, name string, lockedUntil func(int) time.Time) (int, error) {
	if !storable(name) {
		return 0, fmt.Errorf("record failure: %w", users.ErrNotFound)
	}
	var n int
	err := s.db.Pool.QueryRow(ctx, `UPDATE console_users SET failed_sign_ins = failed_sign_ins + 1
		WHERE name = $1 RETURNING failed_sign_ins`, name).Scan(&n)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("user %q: %w", name, users.ErrNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("record failure of %q: %w", name, err)
	}
	// GREATEST: a concurrent failure's longer lock is never shortened.
	if _, err := s.db.Pool.Exec(ctx, `UPDATE console_users SET locked_until = GREATEST(locked_until, $2) WHERE name = $1`,
		name, nullTime(lockedUntil(n))); err != nil {
		return 0, fmt.Errorf("record failure of %q: %w", name, err)
	}
	return n, nil
}

// ResetFailures implements users.Store.
func (s *Users) ResetFailures(ctx context.Context, name string) error {
	return s.exec(ctx, "reset failures of user", name, `UPDATE console_users SET failed_sign_ins = 0, locked_until = NULL WHERE name = $1`)
}

// CreateSession implements users.Store.
func (s *Users) CreateSession(ctx context.Context, sess *users.Session) error {
	_, err := s.db.Pool.Exec(ctx, `INSERT INTO console_sessions (token_hash, user_name, csrf, created_at, expires_at)
		VALUES ($1, $2, $3, $4, $5)`, sess.TokenHash, sess.User, sess.CSRF, sess.CreatedAt, sess.ExpiresAt)
	if isForeignKeyViolation(err) {
		return fmt.Errorf("session of user %q: %w", sess.User, users.ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("create session: %w", err)
	}
	return nil
}

// Session implements users.Store.
func (s *Users) Session(ctx context.Context, tokenHash []byte, now time.Time) (*users.Session, error) {
	var sess users.Session
	err := s.db.Pool.QueryRow(ctx, `SELECT token_hash, user_name, csrf, created_at, expires_at FROM console_sessions
		WHERE token_hash = $1 AND expires_at > $2`, tokenHash, now).Scan(&sess.TokenHash, &sess.User, &sess.CSRF, &sess.CreatedAt, &sess.ExpiresAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("session: %w", users.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("get session: %w", err)
	}
	sess.CreatedAt, sess.ExpiresAt = sess.CreatedAt.UTC(), sess.ExpiresAt.UTC()
	return &sess, nil
}

// DeleteSession implements users.Store.
func (s *Users) DeleteSession(ctx context.Context, tokenHash []byte) error {
	if _, err := s.db.Pool.Exec(ctx, `DELETE FROM console_sessions WHERE token_hash = $1`, tokenHash); err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	return nil
}

// PurgeSessions implements users.Store.
func (s *Users) PurgeSessions(ctx context.Context, before time.Time) (int64, error) {
	tag, err := s.db.Pool.Exec(ctx, `DELETE FROM console_sessions WHERE expires_at < $1`, before)
	if err != nil {
		return 0, fmt.Errorf("purge sessions: %w", err)
	}
	return tag.RowsAffected(), nil
}

func isForeignKeyViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23503"
}
