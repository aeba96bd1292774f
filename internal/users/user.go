// Package users holds the people who sign in to the console: approvers,
// who decide backchannel requests, and operators, who watch. Passwords
// are kept as argon2id hashes; failed sign-ins are throttled per (user,
// address), per address and, only by a short delay, per user; sessions
// are random tokens of which the store keeps only a hash.
package users

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"
)

// Sentinels every Store returns (wrapped).
var (
	ErrNotFound = errors.New("console user or session not found")
	ErrConflict = errors.New("console user already exists")
)

// Role is what a person may do in the console.
type Role string

const (
	// Approver decides backchannel requests, and sees everything.
	Approver Role = "approver"
	// Operator sees the approvals and the activity, and decides nothing.
	Operator Role = "operator"
)

// ParseRole checks a role given as text.
func ParseRole(s string) (Role, error) {
	switch r := Role(s); r {
	case Approver, Operator:
		return r, nil
	}
	return "", fmt.Errorf("role %q: want approver or operator", s)
}

// User is one console account.
type User struct {
	Name         string
	Role         Role
	PasswordHash string // PHC-encoded argon2id
	CreatedAt    time.Time
	// FailedSignIns counts failures since the last success, from any
	// address; past UserFree, an attempt from an address the user has not
	// signed in from is refused until LockedUntil (at most UserMaxWait
	// after the last failure).
	FailedSignIns int
	LockedUntil   time.Time
}

// Session is a signed-in browser. The store keeps the hash of the
// session token, never the token.
type Session struct {
	TokenHash []byte
	User      string
	CSRF      string // the token every form of this session carries
	CreatedAt time.Time
	ExpiresAt time.Time
}

// Store keeps users and sessions. Implementations: memory.Users,
// postgres.Users; both pass storetest.RunUsers.
type Store interface {
	// Create stores a new user, or ErrConflict.
	Create(ctx context.Context, u *User) error
	// Get returns one user, or ErrNotFound.
	Get(ctx context.Context, name string) (*User, error)
	// SetPassword replaces the hash and role of an existing user, clears
	// its failures and ends its sessions (the bootstrap of a configured
	// user: a new password signs out whoever had the old one).
	SetPassword(ctx context.Context, name string, role Role, hash string) error
	// RecordFailure counts a failed sign-in and sets the lock; it returns
	// the failure count after this one.
	RecordFailure(ctx context.Context, name string, lockedUntil func(failures int) time.Time) (int, error)
	// ResetFailures clears the failures of a successful sign-in.
	ResetFailures(ctx context.Context, name string) error

	CreateSession(ctx context.Context, s *Session) error
	// Session returns the session with this token hash, unexpired at now.
	Session(ctx context.Context, tokenHash []byte, now time.Time) (*Session, error)
	DeleteSession(ctx context.Context, tokenHash []byte) error
	// PurgeSessions deletes sessions expired before before.
	PurgeSessions(ctx context.Context, before time.Time) (int64, error)
}

// Bounds of a user.
const (
	MaxNameLen     = 64
	MinPasswordLen = 12
	MaxPasswordLen = 256
)

// ValidateName accepts 1 to 64 visible ASCII characters.
func ValidateName(name string) error {
	if name == "" || len(name) > MaxNameLen {
		return fmt.Errorf("user name must be 1 to %d characters", MaxNameLen)
	}
	for _, c := range []byte(name) {
		if c < 0x21 || c > 0x7e {
			return fmt.Errorf("user name must be visible ASCII (no spaces)")
		}
	}
	return nil
}

// ValidatePassword bounds a password chosen by a person.
func ValidatePassword(p string) error {
	switch n := utf8.RuneCountInString(p); {
	case !utf8.ValidString(p):
		return fmt.Errorf("password is not valid UTF-8")
	case n < MinPasswordLen:
		return fmt.Errorf("password must have at least %d characters", MinPasswordLen)
	case len(p) > MaxPasswordLen:
		return fmt.Errorf("password is longer than %d bytes", MaxPasswordLen)
	}
	return nil
}
