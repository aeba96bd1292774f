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

// countingKeys counts the key lookups, and can withdraw every key.
type countingKeys struct {
	next      verify.KeySource
	n         atomic.Int32
	withdrawn atomic.Bool
}

func (c *countingKeys) Key(ctx context.Context, kid string) (crypto.PublicKey, string, error) {
	c.n.Add(1)
	if c.withdrawn.Load() {
		return nil, "", verify.ErrUnknownKey
	}
	return c.next.Key(ctx, kid)
}

// A token Verify accepted is not parsed and checked again for 30 s (its
// signature was a third of a router's time per call), never past its exp,
// and the claims a caller changes are its own. Each use looks its key up
// (one lookup per Verify, as when it is checked).
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
	if err != nil || keys.n.Load() != 2 || len(again.Tools) != 3 {
		t.Fatalf("%v, %d key lookups, tools %v", err, keys.n.Load(), again.Tools)
	}
	a.clock.Add(2 * time.Second)
	if _, err := v.Verify(ctx, tok); err != nil || keys.n.Load() != 3 {
		t.Fatalf("after 31 s: %v, %d key lookups", err, keys.n.Load())
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

// A remembered token stops with its key: an emergency rotation withdraws
// the key, and the token is refused at the next use, not 30 s later (the
// admin API's own token of a withdrawn key was still accepted:
// TestEndToEnd failed).
func TestRememberedTokenStopsWithItsKey(t *testing.T) {
	a := newAuthServer(t, "ES256")
	keys := &countingKeys{next: a.ring}
	v := a.verifier(t, func(c *verify.Config) { c.Keys, c.JWKSURL = keys, "" })
	tok := a.mint(t, grant)
	ctx := context.Background()
	if _, err := v.Verify(ctx, tok); err != nil {
		t.Fatal(err)
	}
	keys.withdrawn.Store(true)
	a.clock.Add(time.Second)
	if _, err := v.Verify(ctx, tok); !errors.Is(err, verify.ErrUnknownKey) {
		t.Fatalf("a remembered token of a withdrawn key: %v, want ErrUnknownKey", err)
	}
}
