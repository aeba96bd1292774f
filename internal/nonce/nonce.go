// Package nonce is the token endpoint's DPoP nonces (RFC 9449 §8): values
// the server hands out in DPoP-Nonce headers and requires in proofs, so a
// proof cannot be made ahead of time. Replicas share them through the
// store (memory.DPoPNonces, postgres.DPoPNonces; both pass
// storetest.RunDPoPNonces).
package nonce

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"time"
)

// A new nonce is handed out once the newest is Rotation old, and one is
// accepted until it is Lifetime old, so a client's nonce outlives the next
// rotation.
const (
	Rotation = time.Minute
	Lifetime = 5 * time.Minute
	// MaxBytes bounds a nonce read from a proof; New's are 43 bytes.
	MaxBytes = 256
)

// Store keeps the nonces.
type Store interface {
	// Current is a nonce issued after now minus Rotation, a new one when
	// there is none; nonces older than Lifetime are forgotten.
	Current(ctx context.Context, now time.Time) (string, error)
	// Valid reports whether n was issued after now minus Lifetime.
	Valid(ctx context.Context, n string, now time.Time) (bool, error)
}

// New is a fresh random nonce: 256 bits, base64url.
func New() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}
