package storetest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/revocation"
)

// RunRevocation is the conformance suite of revocation.Store.
func RunRevocation(t *testing.T, newStore func(t *testing.T) revocation.Store) {
	ctx := context.Background()
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

	revoked := func(t *testing.T, s revocation.Store, jti string) bool {
		t.Helper()
		ok, err := s.IsRevoked(ctx, jti)
		if err != nil {
			t.Fatalf("is revoked %q: %v", jti, err)
		}
		return ok
	}

	t.Run("RevokeThenIsRevoked", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		if revoked(t, s, "t1") {
			t.Fatal("unknown jti reads as revoked")
		}
		if err := s.Revoke(ctx, "t1", now.Add(5*time.Minute)); err != nil {
			t.Fatal(err)
		}
		if !revoked(t, s, "t1") {
			t.Error("revoked jti reads as live")
		}
		if revoked(t, s, "t2") {
			t.Error("another jti reads as revoked")
		}
	})

	t.Run("PurgeRemovesOnlyExpired", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		for jti, exp := range map[string]time.Duration{"a": time.Minute, "b": 2 * time.Minute, "c": 3 * time.Minute} {
			if err := s.Revoke(ctx, jti, now.Add(exp)); err != nil {
				t.Fatal(err)
			}
		}
		n, err := s.Purge(ctx, now.Add(2*time.Minute))
		if err != nil || n != 2 {
			t.Fatalf("purge = %d, %v; want 2", n, err)
		}
		if revoked(t, s, "a") || revoked(t, s, "b") || !revoked(t, s, "c") {
			t.Error("purge removed the wrong records")
		}
		if n, err := s.Purge(ctx, now.Add(2*time.Minute)); err != nil || n != 0 {
			t.Errorf("second purge = %d, %v; want 0", n, err)
		}
	})

	t.Run("RevokingAgainKeepsTheLaterExpiry", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		if err := s.Revoke(ctx, "t", now.Add(10*time.Minute)); err != nil {
			t.Fatal(err)
		}
		if err := s.Revoke(ctx, "t", now.Add(time.Minute)); err != nil {
			t.Fatalf("second revoke: %v", err)
		}
		if _, err := s.Purge(ctx, now.Add(5*time.Minute)); err != nil {
			t.Fatal(err)
		}
		if !revoked(t, s, "t") {
			t.Error("an earlier expiry shortened the record")
		}
	})

	t.Run("InvalidJTI", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		for _, jti := range []string{"", strings.Repeat("x", revocation.MaxJTILen+1), "a\x00b", "\xff"} {
			if err := s.Revoke(ctx, jti, now); !errors.Is(err, revocation.ErrInvalidJTI) {
				t.Errorf("revoke jti %q: err = %v, want ErrInvalidJTI", jti, err)
			}
			if got, err := s.IsRevoked(ctx, jti); got || err != nil {
				t.Errorf("IsRevoked(%q) = %v, %v; want false", jti, got, err)
			}
		}
		if err := s.Revoke(ctx, strings.Repeat("x", revocation.MaxJTILen), now); err != nil {
			t.Errorf("a %d-byte jti is allowed: %v", revocation.MaxJTILen, err)
		}
	})
}
