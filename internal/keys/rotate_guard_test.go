package keys_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/keys"
	"github.com/typeward/typeward/internal/store/memory"
)

// TestRotationGuard: 50 manual rotations in a row (50 in 14 s once left 51
// published keys) are refused while one is pending, and however they are
// spaced the JWKS never holds more than MaxPublishedKeys; an emergency
// rotation is never refused.
func TestRotationGuard(t *testing.T) {
	c := newClock()
	k := newKeyring(t, config(memory.NewKeys(), mustKEK(t), c))
	ctx := context.Background()
	if _, err := k.Rotate(ctx, keys.RotateOptions{}); err != nil {
		t.Fatal(err)
	}
	refused := 0
	for range 49 {
		c.Add(280 * time.Millisecond)
		var rr *keys.RotationRefused
		if _, err := k.Rotate(ctx, keys.RotateOptions{}); errors.As(err, &rr) && !rr.RetryAt.IsZero() {
			refused++
		} else if err != nil {
			t.Fatal(err)
		}
	}
	if refused != 49 {
		t.Errorf("%d of 49 rotations while one was pending were refused", refused)
	}
	// Spaced just past each pending key's activation, rotations succeed
	// until the bound.
	for range 50 {
		var rr *keys.RotationRefused
		_, err := k.Rotate(ctx, keys.RotateOptions{})
		switch {
		case errors.As(err, &rr):
			c.Set(rr.RetryAt.Add(time.Second))
		case err != nil:
			t.Fatal(err)
		}
		if n := len(jwksKIDs(t, k)); n > keys.MaxPublishedKeys {
			t.Fatalf("%d keys published, bound %d", n, keys.MaxPublishedKeys)
		}
	}
	if _, err := k.Rotate(ctx, keys.RotateOptions{Emergency: true}); err != nil {
		t.Errorf("emergency rotation refused: %v", err)
	}
	if n := len(jwksKIDs(t, k)); n != 1 {
		t.Errorf("%d keys after an emergency rotation", n)
	}
}

// TestPublishedKeysBound: with keys that activate quickly and stay
// published an hour, rotations stop at MaxPublishedKeys with a clear
// refusal, until the oldest leaves the JWKS.
func TestPublishedKeysBound(t *testing.T) {
	c := newClock()
	cfg := config(memory.NewKeys(), mustKEK(t), c)
	cfg.JWKSMaxAge, cfg.RefreshEvery, cfg.MaxTokenTTL = time.Second, time.Second, time.Hour
	k := newKeyring(t, cfg)
	ctx := context.Background()
	var last *keys.RotationRefused
	for range 3 * keys.MaxPublishedKeys {
		c.Add(3 * time.Second) // past the previous rotation's activation
		_, err := k.Rotate(ctx, keys.RotateOptions{})
		if errors.As(err, &last) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	if last == nil || len(jwksKIDs(t, k)) != keys.MaxPublishedKeys {
		t.Fatalf("no refusal at the bound: %d keys published, last refusal %v", len(jwksKIDs(t, k)), last)
	}
	t.Log(last)
	c.Set(last.RetryAt.Add(time.Second))
	if _, err := k.Rotate(ctx, keys.RotateOptions{}); err != nil {
		t.Errorf("rotation once the oldest key left the JWKS: %v", err)
	}
}
