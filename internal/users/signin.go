package users

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"time"
)

// Sign-in outcomes a person may see.
var (
	// ErrBadCredentials: unknown user or wrong password (never which).
	ErrBadCredentials = errors.New("wrong user name or password")
	// ErrThrottled: too many failures; wait until RetryAt.
	ErrThrottled = errors.New("too many failed sign-ins; wait before trying again")
)

// ThrottledError says until when a sign-in is refused.
type ThrottledError struct{ RetryAt time.Time }

func (e *ThrottledError) Error() string { return ErrThrottled.Error() }
func (e *ThrottledError) Unwrap() error { return ErrThrottled }

// SessionTTL is how long a console session lasts.
const SessionTTL = 8 * time.Hour

// dummyHash is verified against for unknown users, so that a sign-in
// takes as long whether or not the name exists.
var dummyHash = HashPassword("typeward dummy password")

// SignIn checks a person's credentials, from the remote address the
// request came from ("host:port" or a host), under the throttle's per
// (user, address) and per address backoffs and the store's per-user
// delay, and on success opens a session: it returns the session and its
// token, which only the browser's cookie holds. Failures from one
// address never refuse the same user signing in from another; an
// unknown name is throttled as a known one is, so a 429 does not say
// which names exist.
func SignIn(ctx context.Context, s Store, t *Throttle, name, password, remote string, now time.Time) (*Session, string, error) {
	a := newAttempt(name, remote)
	retryAt, known := t.check(a, now)
	if !retryAt.IsZero() {
		return nil, "", &ThrottledError{RetryAt: retryAt}
	}
	u, err := s.Get(ctx, name)
	if errors.Is(err, ErrNotFound) || ValidateName(name) != nil || len(password) > MaxPasswordLen {
		// A name nobody has gets the per-user delay a user would get
		// (from the throttle, not the store), so a 429 of that delay
		// does not say the name exists.
		if u := t.unknownUntil(name, now); !u.IsZero() && errors.Is(err, ErrNotFound) {
			return nil, "", &ThrottledError{RetryAt: u}
		}
		_, _ = VerifyPassword(password, dummyHash)
		t.fail(a, now)
		if errors.Is(err, ErrNotFound) {
			t.failUnknown(name, now)
		}
		return nil, "", ErrBadCredentials
	}
	if err != nil {
		return nil, "", err
	}
	// The per-user delay spares the addresses the user signed in from.
	if !known && now.Before(u.LockedUntil) {
		return nil, "", &ThrottledError{RetryAt: u.LockedUntil}
	}
	ok, err := VerifyPassword(password, u.PasswordHash)
	if err != nil {
		return nil, "", fmt.Errorf("user %s: %w", name, err)
	}
	if !ok {
		t.fail(a, now)
		if _, err := s.RecordFailure(ctx, name, func(n int) time.Time { return now.Add(Backoff(n, UserFree, UserMaxWait)) }); err != nil {
			return nil, "", err
		}
		return nil, "", ErrBadCredentials
	}
	t.succeed(a)
	if u.FailedSignIns > 0 {
		if err := s.ResetFailures(ctx, name); err != nil {
			return nil, "", err
		}
	}
	token := randomToken()
	sess := &Session{TokenHash: HashToken(token), User: u.Name, CSRF: randomToken(), CreatedAt: now, ExpiresAt: now.Add(SessionTTL)}
	if err := s.CreateSession(ctx, sess); err != nil {
		return nil, "", err
	}
	return sess, token, nil
}

// HashToken is what the store keeps of a session token.
func HashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

func randomToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// Ensure makes the user exist with this password and role: the console
// bootstrap from the environment, idempotent across restarts and replicas.
func Ensure(ctx context.Context, s Store, name, password string, role Role, now time.Time) error {
	if err := ValidateName(name); err != nil {
		return err
	}
	if err := ValidatePassword(password); err != nil {
		return err
	}
	u, err := s.Get(ctx, name)
	switch {
	case errors.Is(err, ErrNotFound):
		err = s.Create(ctx, &User{Name: name, Role: role, PasswordHash: HashPassword(password), CreatedAt: now})
		if errors.Is(err, ErrConflict) {
			return Ensure(ctx, s, name, password, role, now)
		}
		return err
	case err != nil:
		return err
	}
	if ok, _ := VerifyPassword(password, u.PasswordHash); ok && u.Role == role {
		return nil
	}
	return s.SetPassword(ctx, name, role, HashPassword(password))
}

// Add creates a new user (typeward users add).
func Add(ctx context.Context, s Store, name, password string, role Role, now time.Time) error {
	if err := ValidateName(name); err != nil {
		return err
	}
	if err := ValidatePassword(password); err != nil {
		return err
	}
	return s.Create(ctx, &User{Name: name, Role: role, PasswordHash: HashPassword(password), CreatedAt: now})
}

// NewCSRF returns a fresh random token for a form.
func NewCSRF() string { return randomToken() }
