package storetest

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/users"
)

var usersEpoch = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

// RunUsers is the conformance suite of users.Store.
func RunUsers(t *testing.T, newStore func(t *testing.T) users.Store) {
	ctx := context.Background()
	alice := func() *users.User {
		return &users.User{Name: "alice", Role: users.Approver, PasswordHash: "$argon2id$v=19$m=1,t=1,p=1$c2FsdA$aGFzaA", CreatedAt: usersEpoch}
	}

	t.Run("CreateGetConflict", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		if err := s.Create(ctx, alice()); err != nil {
			t.Fatal(err)
		}
		other := alice()
		other.Role = users.Operator
		if err := s.Create(ctx, other); !errors.Is(err, users.ErrConflict) {
			t.Errorf("second create: %v, want ErrConflict", err)
		}
		got, err := s.Get(ctx, "alice")
		if err != nil || *got != *alice() {
			t.Errorf("got %+v, %v; want %+v", got, err, alice())
		}
		for _, name := range []string{"bob", "a\x00b"} {
			if _, err := s.Get(ctx, name); !errors.Is(err, users.ErrNotFound) {
				t.Errorf("get %q: %v, want ErrNotFound", name, err)
			}
		}
		if err := s.SetPassword(ctx, "bob", users.Operator, "x"); !errors.Is(err, users.ErrNotFound) {
			t.Errorf("set password of nobody: %v", err)
		}
	})

	t.Run("FailuresCountAndReset", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		if err := s.Create(ctx, alice()); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for range 5 {
			wg.Go(func() {
				if _, err := s.RecordFailure(ctx, "alice", func(n int) time.Time { return usersEpoch.Add(time.Duration(n) * time.Minute) }); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		u, _ := s.Get(ctx, "alice")
		if u.FailedSignIns != 5 || !u.LockedUntil.Equal(usersEpoch.Add(5*time.Minute)) {
			t.Errorf("after 5 concurrent failures: %d failures, locked until %v", u.FailedSignIns, u.LockedUntil)
		}
		if err := s.ResetFailures(ctx, "alice"); err != nil {
			t.Fatal(err)
		}
		if u, _ = s.Get(ctx, "alice"); u.FailedSignIns != 0 || !u.LockedUntil.IsZero() {
			t.Errorf("after reset: %+v", u)
		}
		if _, err := s.RecordFailure(ctx, "nobody", func(int) time.Time { return usersEpoch }); !errors.Is(err, users.ErrNotFound) {
			t.Errorf("failure of nobody: %v", err)
		}
		_, _ = s.RecordFailure(ctx, "alice", func(int) time.Time { return usersEpoch.Add(time.Hour) })
		if err := s.SetPassword(ctx, "alice", users.Operator, "$new"); err != nil {
			t.Fatal(err)
		}
		if u, _ = s.Get(ctx, "alice"); u.PasswordHash != "$new" || u.Role != users.Operator || u.FailedSignIns != 0 || !u.LockedUntil.IsZero() {
			t.Errorf("after set password: %+v", u)
		}
	})

	t.Run("Sessions", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		if err := s.Create(ctx, alice()); err != nil {
			t.Fatal(err)
		}
		sess := &users.Session{TokenHash: []byte("0123456789abcdef0123456789abcdef"), User: "alice", CSRF: "csrf",
			CreatedAt: usersEpoch, ExpiresAt: usersEpoch.Add(time.Hour)}
		if err := s.CreateSession(ctx, sess); err != nil {
			t.Fatal(err)
		}
		got, err := s.Session(ctx, sess.TokenHash, usersEpoch.Add(time.Minute))
		if err != nil || got.User != "alice" || got.CSRF != "csrf" || !bytes.Equal(got.TokenHash, sess.TokenHash) ||
			!got.ExpiresAt.Equal(sess.ExpiresAt) {
			t.Fatalf("session %+v, %v", got, err)
		}
		if _, err := s.Session(ctx, sess.TokenHash, usersEpoch.Add(time.Hour)); !errors.Is(err, users.ErrNotFound) {
			t.Errorf("expired session: %v, want ErrNotFound", err)
		}
		if _, err := s.Session(ctx, []byte("other"), usersEpoch); !errors.Is(err, users.ErrNotFound) {
			t.Errorf("unknown session: %v", err)
		}
		if err := s.CreateSession(ctx, &users.Session{TokenHash: []byte("x"), User: "nobody", ExpiresAt: usersEpoch}); !errors.Is(err, users.ErrNotFound) {
			t.Errorf("session of nobody: %v", err)
		}
		n, err := s.PurgeSessions(ctx, usersEpoch.Add(2*time.Hour))
		if err != nil || n != 1 {
			t.Errorf("purge: %d, %v", n, err)
		}
		if err := s.CreateSession(ctx, sess); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteSession(ctx, sess.TokenHash); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Session(ctx, sess.TokenHash, usersEpoch); !errors.Is(err, users.ErrNotFound) {
			t.Errorf("deleted session: %v", err)
		}

		// A new password ends the user's sessions, and no one else's.
		if err := s.Create(ctx, &users.User{Name: "carol", Role: users.Approver, PasswordHash: "$c", CreatedAt: usersEpoch}); err != nil {
			t.Fatal(err)
		}
		carols := &users.Session{TokenHash: []byte("carol-session-hash-0123456789abc"), User: "carol", CSRF: "c",
			CreatedAt: usersEpoch, ExpiresAt: usersEpoch.Add(time.Hour)}
		for _, ss := range []*users.Session{sess, carols} {
			if err := s.CreateSession(ctx, ss); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.SetPassword(ctx, "alice", users.Approver, "$newer"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Session(ctx, sess.TokenHash, usersEpoch); !errors.Is(err, users.ErrNotFound) {
			t.Errorf("alice's session after her new password: %v, want ErrNotFound", err)
		}
		if _, err := s.Session(ctx, carols.TokenHash, usersEpoch); err != nil {
			t.Errorf("carol's session after alice's new password: %v", err)
		}
	})
}
