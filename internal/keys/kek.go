package keys

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// KEKSize is the length of a key encryption key: AES-256.
const KEKSize = 32

// ErrWrongKEK is wrapped when a stored key cannot be opened with the
// configured key encryption key.
var ErrWrongKEK = errors.New("keys: wrong key encryption key")

// KEK is the key encryption key that seals private signing keys at rest
// (AES-256-GCM). Its ID, derived from the key, is stored with every sealed
// key so a wrong KEK is named as such instead of failing as "corrupt".
type KEK struct {
	id   string
	aead cipher.AEAD
}

// ParseKEK reads a 32-byte key given as 64 hex digits or as base64
// (standard or URL alphabet, padded or not), as TYPEWARD_KEY_ENCRYPTION_KEY
// holds it. The error never echoes the value.
func ParseKEK(s string) (*KEK, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("keys: the key encryption key is empty")
	}
	if len(s) == 2*KEKSize {
		if b, err := hex.DecodeString(s); err == nil {
			return NewKEK(b)
		}
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			if len(b) != KEKSize {
				return nil, fmt.Errorf("keys: the key encryption key decodes to %d bytes, want %d (64 hex digits or 44 base64 characters)", len(b), KEKSize)
			}
			return NewKEK(b)
		}
	}
	return nil, fmt.Errorf("keys: the key encryption key is neither 64 hex digits nor base64 of %d bytes", KEKSize)
}

// NewKEK uses key, which must be KEKSize bytes, as the key encryption key.
func NewKEK(key []byte) (*KEK, error) {
	if len(key) != KEKSize {
		return nil, fmt.Errorf("keys: the key encryption key has %d bytes, want %d", len(key), KEKSize)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	// A short public name for the key: a hash of it under a fixed label, so
	// it says nothing usable about the key itself.
	sum := sha256.Sum256(append([]byte("typeward key encryption key id\x00"), key...))
	return &KEK{id: "kek-" + hex.EncodeToString(sum[:8]), aead: aead}, nil
}

// GenerateKEK makes a random key encryption key: for the embedded default,
// whose keys never outlive the process.
func GenerateKEK() (*KEK, error) {
	b := make([]byte, KEKSize)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	return NewKEK(b)
}

// ID names this key encryption key in stored records.
func (k *KEK) ID() string { return k.id }

// seal encrypts a private key for the key kid. The KEK id and the kid are
// authenticated data: a sealed key copied onto another record does not open.
func (k *KEK) seal(kid string, plaintext []byte) ([]byte, error) {
	nonce := make([]byte, k.aead.NonceSize(), k.aead.NonceSize()+len(plaintext)+k.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return k.aead.Seal(nonce, nonce, plaintext, k.additionalData(kid)), nil
}

// open decrypts what seal made for the record's kid.
func (k *KEK) open(rec *Record) ([]byte, error) {
	if rec.KEKID != k.id {
		return nil, fmt.Errorf("%w: key %s was sealed under %s but the configured TYPEWARD_KEY_ENCRYPTION_KEY is %s", ErrWrongKEK, rec.KID, rec.KEKID, k.id)
	}
	n := k.aead.NonceSize()
	if len(rec.Sealed) < n+k.aead.Overhead() {
		return nil, fmt.Errorf("keys: key %s: sealed private key is truncated", rec.KID)
	}
	plain, err := k.aead.Open(nil, rec.Sealed[:n], rec.Sealed[n:], k.additionalData(rec.KID))
	if err != nil {
		return nil, fmt.Errorf("keys: key %s: sealed private key does not decrypt: it was altered or moved from another record", rec.KID)
	}
	return plain, nil
}

func (k *KEK) additionalData(kid string) []byte {
	return []byte("typeward signing key\x00" + k.id + "\x00" + kid)
}
