package storetest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/verify/dpop"
)

// RunProofReplay is the conformance suite of the token endpoint's DPoP
// replay stores: newStore returns a dpop.Replay whose clock reads now, and
// the assertion replay store it shares its records with.
func RunProofReplay(t *testing.T, newStore func(t *testing.T, now func() time.Time) (dpop.Replay, clients.ReplayStore)) {
	ctx := context.Background()
	const jkt = "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"

	t.Run("AProofIsAcceptedOncePerKey", func(t *testing.T) {
		t.Parallel()
		now := clientsEpoch
		s, _ := newStore(t, func() time.Time { return now })
		until := now.Add(2 * time.Minute)
		if err := s.Claim(ctx, jkt, "p1", until); err != nil {
			t.Fatalf("first claim: %v", err)
		}
		if err := s.Claim(ctx, jkt, "p1", until); !errors.Is(err, dpop.ErrReplayed) {
			t.Fatalf("second claim: %v, want ErrReplayed", err)
		}
		if err := s.Claim(ctx, "another-key", "p1", until); err != nil {
			t.Errorf("the same jti under another key: %v", err)
		}
		// Past its window the record is taken over (the proof itself is
		// refused by its iat by then).
		now = until.Add(time.Second)
		if err := s.Claim(ctx, jkt, "p1", now.Add(2*time.Minute)); err != nil {
			t.Errorf("after the window: %v", err)
		}
	})

	t.Run("AJTINoStoreKeepsIsARefusal", func(t *testing.T) {
		t.Parallel()
		s, _ := newStore(t, func() time.Time { return clientsEpoch })
		for _, jti := range []string{strings.Repeat("j", 257), "a\x00b", "\xff"} {
			if err := s.Claim(ctx, jkt, jti, clientsEpoch.Add(time.Minute)); !errors.Is(err, dpop.ErrReplayed) {
				t.Errorf("Claim(%q) = %v, want a refusal (ErrReplayed)", jti, err)
			}
		}
	})

	t.Run("PurgedWithTheAssertions", func(t *testing.T) {
		t.Parallel()
		now := clientsEpoch
		s, assertions := newStore(t, func() time.Time { return now })
		if err := s.Claim(ctx, jkt, "p2", now.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		// A client's assertion jti equal to a proof's is not a replay.
		if err := assertions.Claim(ctx, "c1", "p2", now.Add(time.Minute), now); err != nil {
			t.Errorf("an assertion with a proof's jti: %v", err)
		}
		n, err := assertions.Purge(ctx, now.Add(2*time.Minute))
		if err != nil || n != 2 {
			t.Errorf("Purge = %d, %v; want the proof's record and the assertion's", n, err)
		}
	})
}
