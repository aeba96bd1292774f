// Package jwk reads public JSON Web Keys (RFC 7517) of the kinds typeward
// deals in: its own signing keys (ES256, EdDSA) and DPoP proof keys (those
// and RS256), with their RFC 7638 thumbprints.
package jwk

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"

	"github.com/typeward/typeward/verify/strictjson"
)

// MinRSABits is the least RSA modulus a DPoP key may have (RFC 7518 §3.3).
const MinRSABits = 2048

// Key is a public key read from a JWK.
type Key struct {
	Public crypto.PublicKey
	Alg    string // the JWS algorithm the key verifies: ES256, EdDSA or RS256
	// Thumbprint is its RFC 7638 SHA-256 thumbprint, base64url: a DPoP
	// token's cnf.jkt.
	Thumbprint string
	KID, Use   string
	Declared   string // the JWK's own alg member, "" when absent
}

// privateMembers are the members of a private or symmetric JWK: a JWK
// carrying one is refused, never read as the public key beside it.
var privateMembers = []string{"d", "p", "q", "dp", "dq", "qi", "oth", "k"}

var b64 = base64.RawURLEncoding.Strict()

// Parse reads one public JWK: EC P-256, OKP Ed25519 or RSA of at least
// MinRSABits. Duplicate members and private members are refused; a point
// off its curve is refused.
func Parse(raw []byte) (Key, error) {
	obj, err := strictjson.Object(raw)
	if err != nil {
		return Key{}, fmt.Errorf("jwk: %w", err)
	}
	for _, m := range privateMembers {
		if _, ok := strictjson.Member(obj, m); ok {
			return Key{}, fmt.Errorf("jwk: member %q: a private or symmetric key, not a public key", m)
		}
	}
	var j struct {
		Kty, Crv, X, Y, N, E, Kid, Alg, Use string
	}
	if err := json.Unmarshal(raw, &j); err != nil {
		return Key{}, fmt.Errorf("jwk: %w", err)
	}
	out := Key{KID: j.Kid, Use: j.Use, Declared: j.Alg}
	switch {
	case j.Kty == "EC" && j.Crv == "P-256":
		x, errX := fixed(j.X, 32)
		y, errY := fixed(j.Y, 32)
		if err := errors.Join(errX, errY); err != nil {
			return Key{}, fmt.Errorf("jwk: EC: %w", err)
		}
		k, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
		if err != nil {
			return Key{}, fmt.Errorf("jwk: EC: %w", err)
		}
		out.Public, out.Alg = k, "ES256"
		out.Thumbprint = thumbprint(`{"crv":"P-256","kty":"EC","x":"` + j.X + `","y":"` + j.Y + `"}`)
	case j.Kty == "OKP" && j.Crv == "Ed25519":
		x, err := fixed(j.X, ed25519.PublicKeySize)
		if err != nil {
			return Key{}, fmt.Errorf("jwk: OKP: %w", err)
		}
		out.Public, out.Alg = ed25519.PublicKey(x), "EdDSA"
		out.Thumbprint = thumbprint(`{"crv":"Ed25519","kty":"OKP","x":"` + j.X + `"}`)
	case j.Kty == "RSA":
		n, errN := b64.DecodeString(j.N)
		e, errE := b64.DecodeString(j.E)
		if err := errors.Join(errN, errE); err != nil {
			return Key{}, fmt.Errorf("jwk: RSA: %w", err)
		}
		mod := new(big.Int).SetBytes(n)
		exp := new(big.Int).SetBytes(e)
		if mod.BitLen() < MinRSABits || !exp.IsInt64() || exp.Int64() < 3 || exp.Int64() > 1<<31-1 || exp.Bit(0) == 0 {
			return Key{}, fmt.Errorf("jwk: RSA: a modulus of at least %d bits and an odd exponent are required", MinRSABits)
		}
		out.Public, out.Alg = &rsa.PublicKey{N: mod, E: int(exp.Int64())}, "RS256"
		out.Thumbprint = thumbprint(`{"e":"` + j.E + `","kty":"RSA","n":"` + j.N + `"}`)
	default:
		return Key{}, fmt.Errorf("jwk: kty %q crv %q is not supported (EC P-256, OKP Ed25519, RSA)", j.Kty, j.Crv)
	}
	return out, nil
}

// fixed decodes a base64url coordinate of exactly n bytes.
func fixed(s string, n int) ([]byte, error) {
	b, err := b64.DecodeString(s)
	if err != nil {
		return nil, err
	}
	if len(b) != n {
		return nil, fmt.Errorf("a coordinate of %d bytes, want %d", len(b), n)
	}
	return b, nil
}

// thumbprint is the RFC 7638 thumbprint of a JWK's required members, given
// in lexicographic order; the members are base64url, which needs no JSON
// escaping.
func thumbprint(canonical string) string {
	sum := sha256.Sum256([]byte(canonical))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}
