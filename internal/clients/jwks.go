package clients

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"

	jose "github.com/go-jose/go-jose/v4"
)

// assertionAlgorithms are the JWS algorithms accepted for private_key_jwt
// assertions; anything else, "none" and HMAC included, is refused before
// any key is looked at.
var assertionAlgorithms = []jose.SignatureAlgorithm{jose.ES256, jose.EdDSA, jose.RS256}

// AssertionAlgorithms lists the accepted assertion algorithms (for RFC 8414
// token_endpoint_auth_signing_alg_values_supported).
func AssertionAlgorithms() []string {
	out := make([]string, len(assertionAlgorithms))
	for i, a := range assertionAlgorithms {
		out[i] = string(a)
	}
	return out
}

// Bounds on a client JWKS: enough for rotation overlap, small enough that
// verifying an assertion stays cheap.
const (
	maxJWKSBytes = 16 << 10
	maxJWKSKeys  = 10
	minRSABits   = 2048
	maxRSABits   = 8192 // a larger modulus makes verification a CPU sink
)

// privateMembers are the JWK members that carry secret key material
// (RFC 7518 §6.2.2, §6.3.2, §6.4; RFC 8037 "d" for OKP).
var privateMembers = []string{"d", "p", "q", "dp", "dq", "qi", "oth", "k", "priv"}

// parsePublicJWKS parses a client's JWKS and checks that every key is a
// public signing key of an accepted algorithm. Private members are refused
// before go-jose sees the key: it parses them without bounds.
func parsePublicJWKS(raw []byte) (*jose.JSONWebKeySet, error) {
	if len(raw) > maxJWKSBytes {
		return nil, fmt.Errorf("is larger than %d bytes", maxJWKSBytes)
	}
	var doc struct {
		Keys []map[string]json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, errors.New(`is not a JWK Set object {"keys":[...]}`)
	}
	if len(doc.Keys) == 0 {
		return nil, errors.New("has no keys")
	}
	if len(doc.Keys) > maxJWKSKeys {
		return nil, fmt.Errorf("has more than %d keys", maxJWKSKeys)
	}
	set := &jose.JSONWebKeySet{}
	kids := map[string]bool{}
	for i, members := range doc.Keys {
		k, err := parsePublicKey(members)
		if err != nil {
			return nil, fmt.Errorf("key %d %w", i, err)
		}
		if k.KeyID != "" {
			if kids[k.KeyID] {
				return nil, fmt.Errorf("key %d repeats kid %q", i, k.KeyID)
			}
			kids[k.KeyID] = true
		}
		set.Keys = append(set.Keys, k)
	}
	return set, nil
}

func parsePublicKey(members map[string]json.RawMessage) (jose.JSONWebKey, error) {
	var k jose.JSONWebKey
	for _, m := range privateMembers {
		if _, ok := members[m]; ok {
			return k, fmt.Errorf("has private member %q: register the public key only", m)
		}
	}
	body, _ := json.Marshal(members)
	if err := k.UnmarshalJSON(body); err != nil {
		return k, errors.New("is not a valid JWK")
	}
	if !k.Valid() || !k.IsPublic() {
		return k, errors.New("is not a public key")
	}
	if k.Use != "" && k.Use != "sig" {
		return k, fmt.Errorf(`has use %q, want "sig"`, k.Use)
	}
	alg, err := keyAlgorithm(k.Key)
	if err != nil {
		return k, err
	}
	if k.Algorithm != "" && k.Algorithm != string(alg) {
		return k, fmt.Errorf("has alg %q but its key type signs %s", k.Algorithm, alg)
	}
	return k, nil
}

// keyAlgorithm names the one accepted algorithm a public key verifies.
func keyAlgorithm(key any) (jose.SignatureAlgorithm, error) {
	switch pub := key.(type) {
	case *ecdsa.PublicKey:
		if pub.Curve != elliptic.P256() {
			return "", errors.New("is an EC key not on P-256 (ES256 needs P-256)")
		}
		return jose.ES256, nil
	case ed25519.PublicKey:
		return jose.EdDSA, nil
	case *rsa.PublicKey:
		switch bits := pub.N.BitLen(); {
		case bits < minRSABits:
			return "", fmt.Errorf("is a %d-bit RSA key, need at least %d", bits, minRSABits)
		case bits > maxRSABits:
			return "", fmt.Errorf("is a %d-bit RSA key, at most %d accepted", bits, maxRSABits)
		}
		return jose.RS256, nil
	default:
		return "", errors.New("has an unsupported key type (want EC P-256, OKP Ed25519 or RSA)")
	}
}
