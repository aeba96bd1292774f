package verify_test

import (
	"context"
	"crypto"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/typeward/typeward/verify"
)

// countingKeys counts the key lookups of signature checks.
type countingKeys struct {
	next verify.KeySource
	n    atomic.Int32
}

func (c *countingKeys) Key(ctx context.Context, kid string) (crypto.PublicKey, string, error) {
	c.n.Add(1)
	return c.next.Key(ctx, kid)
}

// A token Verify accepted is not checked again for 30 s (its signature
// was a third of a router's time per call), never past its exp, and the
// claims a caller changes are its own.
func TestVerifiedTokensRemembered(t *testing.T) {
	a := newAuthServer(t, "ES256")
	keys := &countingKeys{next: a.ring}
	v := a.verifier(t, func(c *verify.Config) { c.Keys, c.JWKSURL = keys, "" })
	tok := a.mint(t, grant)
	ctx := context.Background()
	first, err := v.Verify(ctx, tok)
	if err != nil {
		t.Fatal(err)
	}
	first.Tools = nil
	a.clock.Add(29 * time.Second)
	again, err := v.Verify(ctx, tok)
	if err != nil || keys.n.Load() != 1 || len(again.Tools) != 3 {
		t.Fatalf("%v, %d key lookups, tools %v", err, keys.n.Load(), again.Tools)
	}
	a.clock.Add(2 * time.Second)
	if _, err := v.Verify(ctx, tok); err != nil || keys.n.Load() != 2 {
		t.Fatalf("after 31 s: %v, %d key lookups (want the signature checked again)", err, keys.n.Load())
	}
	// Remembered 10 s before exp, it is not accepted past exp (and the
	// leeway).
	a.clock.Add(ttl - 31*time.Second - 10*time.Second)
	if _, err := v.Verify(ctx, tok); err != nil {
		t.Fatal(err)
	}
	a.clock.Add(11*time.Second + verify.DefaultLeeway)
	if _, err := v.Verify(ctx, tok); !errors.Is(err, verify.ErrExpired) {
		t.Fatalf("past exp: %v", err)
	}
}
