package clients

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// secretBytes is the entropy of a generated secret: 256 bits.
const secretBytes = 32

// PepperBytes is the minimum length of the server's hashing key.
const PepperBytes = 32

// GenerateSecret returns a new client secret: 256 bits from crypto/rand,
// base64url without padding (43 characters, safe in every encoding the
// token endpoint meets).
func GenerateSecret() string {
	var b [secretBytes]byte
	_, _ = rand.Read(b[:]) // never fails since Go 1.24; it crashes the process instead
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// GenerateID returns a new client id: 128 random bits in hex.
func GenerateID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Hasher computes the keyed hash under which client secrets are stored:
// HMAC-SHA256 under a server-side pepper. It is fast on purpose; see
// docs/security.md for why that is safe for machine-generated secrets.
type Hasher struct {
	pepper []byte
	// dummy is what an unknown client's secret is compared against, so
	// that "no such client" and "wrong secret" take the same path.
	dummy []byte
}

// NewHasher returns a Hasher keyed with pepper (at least PepperBytes).
func NewHasher(pepper []byte) (*Hasher, error) {
	if len(pepper) < PepperBytes {
		return nil, fmt.Errorf("client secret pepper: %d bytes, need at least %d", len(pepper), PepperBytes)
	}
	h := &Hasher{pepper: append([]byte(nil), pepper...)}
	h.dummy = h.Hash("", "")
	return h, nil
}

// NewRandomHasher returns a Hasher with a fresh random pepper: for the
// in-memory embedded mode, where no stored hash outlives the process.
func NewRandomHasher() *Hasher {
	var b [PepperBytes]byte
	_, _ = rand.Read(b[:])
	h, _ := NewHasher(b[:])
	return h
}

// ParsePepper decodes a pepper given as base64 (standard or URL alphabet,
// padded or not) and checks its length.
func ParsePepper(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("client secret pepper is empty")
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			if len(b) < PepperBytes {
				return nil, fmt.Errorf("client secret pepper: %d bytes, need at least %d", len(b), PepperBytes)
			}
			return b, nil
		}
	}
	return nil, errors.New("client secret pepper is not base64")
}

// Hash returns HMAC-SHA256(pepper, len(id) || id || secret). Binding the id
// means equal secrets of two clients hash differently and a hash copied
// onto another client row does not verify.
func (h *Hasher) Hash(clientID, secret string) []byte {
	m := hmac.New(sha256.New, h.pepper)
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(clientID)))
	m.Write(n[:])
	m.Write([]byte(clientID))
	m.Write([]byte(secret))
	return m.Sum(nil)
}

// Verify reports, in constant time, whether secret hashes to stored. A nil
// stored hash (unknown client, or a client without a secret) is compared
// against a dummy so the work done is the same, and never matches.
func (h *Hasher) Verify(clientID, secret string, stored []byte) bool {
	got := h.Hash(clientID, secret)
	if len(stored) != sha256.Size {
		hmac.Equal(got, h.dummy)
		return false
	}
	return hmac.Equal(got, stored)
}
