package keys

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"fmt"
)

// Alg is a JWS signing algorithm typeward signs tokens with.
type Alg string

// The algorithms typeward signs with: ES256 (ECDSA P-256) by default, EdDSA
// (Ed25519) when selected.
const (
	ES256 Alg = "ES256"
	EdDSA Alg = "EdDSA"
)

// ParseAlg reads an algorithm name as an operator writes it.
func ParseAlg(s string) (Alg, error) {
	switch Alg(s) {
	case ES256, EdDSA:
		return Alg(s), nil
	case "Ed25519":
		return EdDSA, nil
	}
	return "", fmt.Errorf("keys: unsupported signing algorithm %q (want %s or %s)", s, ES256, EdDSA)
}

// generate makes a fresh private key for alg.
func (a Alg) generate() (crypto.Signer, error) {
	switch a {
	case ES256:
		return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case EdDSA:
		_, priv, err := ed25519.GenerateKey(rand.Reader)
		return priv, err
	}
	return nil, fmt.Errorf("keys: unsupported signing algorithm %q", a)
}

// fits reports whether key is the kind of key alg signs with.
func (a Alg) fits(key crypto.PublicKey) bool {
	switch k := key.(type) {
	case *ecdsa.PublicKey:
		return a == ES256 && k.Curve == elliptic.P256()
	case ed25519.PublicKey:
		return a == EdDSA
	}
	return false
}
