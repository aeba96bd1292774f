package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/nonce"
)

// RunDPoPNonces is the conformance suite of nonce.Store.
func RunDPoPNonces(t *testing.T, newStore func(t *testing.T) nonce.Store) {
	ctx := context.Background()
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

	t.Run("OneCurrentNonceARotationLongAcceptedALifetime", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		first, err := s.Current(ctx, at)
		if err != nil || len(first) != 43 {
			t.Fatalf("Current = %q, %v", first, err)
		}
		if again, err := s.Current(ctx, at.Add(nonce.Rotation-time.Second)); err != nil || again != first {
			t.Errorf("within the rotation: %q, %v; want %q", again, err, first)
		}
		second, err := s.Current(ctx, at.Add(nonce.Rotation))
		if err != nil || second == first {
			t.Fatalf("after the rotation: %q, %v; want a new nonce", second, err)
		}
		for _, tc := range []struct {
			n    string
			when time.Time
			want bool
		}{
			{first, at.Add(nonce.Lifetime - time.Second), true},
			{second, at.Add(nonce.Lifetime), true},
			{first, at.Add(nonce.Lifetime), false},
			{"never-issued", at, false},
			{"", at, false},
			{"a\x00b", at, false},
		} {
			if ok, err := s.Valid(ctx, tc.n, tc.when); err != nil || ok != tc.want {
				t.Errorf("Valid(%q) at +%v = %v, %v; want %v", tc.n, tc.when.Sub(at), ok, err, tc.want)
			}
		}
	})

	t.Run("OldNoncesAreForgotten", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		old, err := s.Current(ctx, at)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Current(ctx, at.Add(2*nonce.Lifetime)); err != nil {
			t.Fatal(err)
		}
		// Valid at the old time again: the record itself is gone.
		if ok, err := s.Valid(ctx, old, at); err != nil || ok {
			t.Errorf("a nonce two lifetimes old: Valid = %v, %v; want forgotten", ok, err)
		}
	})
}
