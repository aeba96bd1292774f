package memory

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/typeward/typeward/internal/users"
)

// Users is an in-memory users.Store for the embedded default.
type Users struct {
	mu       sync.Mutex
	users    map[string]users.User
	sessions map[string]users.Session
}

var _ users.Store = (*Users)(nil)

// NewUsers returns an empty store.
func NewUsers() *Users {
	return &Users{users: map[string]users.User{}, sessions: map[string]users.Session{}}
}

// Create implements users.Store.
func (s *Users) Create(_ context.Context, u *users.User) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.users[u.Name]; ok {
		return fmt.Errorf("user %q: %w", u.Name, users.ErrConflict)
	}
	c := *u
	c.CreatedAt, c.LockedUntil = usec(c.CreatedAt), usec(c.LockedUntil)
	s.users[u.Name] = c
	return nil
}

// Get implements users.Store.
func (s *Users) Get(_ context.Context, name string) (*users.User, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.users[name]
	if !ok {
		return nil, fmt.Errorf("user %q: %w", name, users.ErrNotFound)
	}
	return &u, nil
}

// SetPassword implements users.Store.
func (s *Users) SetPassword(_ context.Context, name string, role users.Role, hash string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.users[name]
	if !ok {
		return fmt.Errorf("user %q: %w", name, users.ErrNotFound)
	}
	u.Role, u.PasswordHash, u.FailedSignIns, u.LockedUntil = role, hash, 0, time.Time{}
	s.users[name] = u
	for k, sess := range s.sessions {
		if sess.User == name {
			delete(s.sessions, k)
		}
	}
	return nil
}

// RecordFailure implements users.Store.
func (s *Users) RecordFailure(_ context.Context, name string, lockedUntil func(int) time.Time) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.users[name]
	if !ok {
		return 0, fmt.Errorf("user %q: %w", name, users.ErrNotFound)
	}
	u.FailedSignIns++
	u.LockedUntil = usec(lockedUntil(u.FailedSignIns))
	s.users[name] = u
	return u.FailedSignIns, nil
}

// ResetFailures implements users.Store.
func (s *Users) ResetFailures(_ context.Context, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.users[name]
	if !ok {
		return fmt.Errorf("user %q: %w", name, users.ErrNotFound)
	}
	u.FailedSignIns, u.LockedUntil = 0, time.Time{}
	s.users[name] = u
	return nil
}

// CreateSession implements users.Store.
func (s *Users) CreateSession(_ context.Context, sess *users.Session) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.users[sess.User]; !ok {
		return fmt.Errorf("session of user %q: %w", sess.User, users.ErrNotFound)
	}
	c := *sess
	c.TokenHash = append([]byte(nil), sess.TokenHash...)
	c.CreatedAt, c.ExpiresAt = usec(c.CreatedAt), usec(c.ExpiresAt)
	s.sessions[string(sess.TokenHash)] = c
	return nil
}

// Session implements users.Store.
func (s *Users) Session(_ context.Context, tokenHash []byte, now time.Time) (*users.Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.sessions[string(tokenHash)]
	if !ok || !now.Before(sess.ExpiresAt) {
		return nil, fmt.Errorf("session: %w", users.ErrNotFound)
	}
	sess.TokenHash = append([]byte(nil), sess.TokenHash...)
	return &sess, nil
}

// DeleteSession implements users.Store.
func (s *Users) DeleteSession(_ context.Context, tokenHash []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.sessions, string(tokenHash))
	return nil
}

// PurgeSessions implements users.Store.
func (s *Users) PurgeSessions(_ context.Context, before time.Time) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return purge(s.sessions, func(sess users.Session) bool { return sess.ExpiresAt.Before(before) }), nil
}

// usec keeps what Postgres keeps of a time.
func usec(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.UTC().Truncate(time.Microsecond)
}
