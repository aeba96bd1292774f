// Package dpoptest signs DPoP proofs for tests, as a client does, and
// proofs no client should send, for the tests of their refusal.
package dpoptest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/typeward/typeward/verify/dpop"
	"github.com/typeward/typeward/verify/jwk"
)

var b64 = base64.RawURLEncoding.EncodeToString

// Client is a DPoP key pair.
type Client struct {
	Key    crypto.Signer
	Method jwt.SigningMethod
	JWK    map[string]any // the public JWK proofs carry
	JKT    string         // its RFC 7638 thumbprint
	jtis   atomic.Int64
}

// NewClient makes a key for alg: ES256, EdDSA or RS256.
func NewClient(t testing.TB, alg string) *Client {
	t.Helper()
	c := &Client{}
	var err error
	switch alg {
	case "ES256":
		var k *ecdsa.PrivateKey
		if k, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err == nil {
			raw, _ := k.PublicKey.Bytes()
			c.Key, c.Method = k, jwt.SigningMethodES256
			c.JWK = map[string]any{"kty": "EC", "crv": "P-256", "x": b64(raw[1:33]), "y": b64(raw[33:])}
		}
	case "EdDSA":
		var pub ed25519.PublicKey
		var k ed25519.PrivateKey
		if pub, k, err = ed25519.GenerateKey(rand.Reader); err == nil {
			c.Key, c.Method = k, jwt.SigningMethodEdDSA
			c.JWK = map[string]any{"kty": "OKP", "crv": "Ed25519", "x": b64(pub)}
		}
	case "RS256":
		var k *rsa.PrivateKey
		if k, err = rsa.GenerateKey(rand.Reader, 2048); err == nil {
			c.Key, c.Method = k, jwt.SigningMethodRS256
			c.JWK = map[string]any{"kty": "RSA", "n": b64(k.N.Bytes()), "e": "AQAB"}
		}
	default:
		err = fmt.Errorf("alg %q", alg)
	}
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(c.JWK)
	k, err := jwk.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	c.JKT = k.Thumbprint
	return c
}

// Proof signs a proof for method and url at iat, with ath of token when
// token is set and a fresh jti; edit, when set, changes the header and
// the claims before signing.
func (c *Client) Proof(t testing.TB, method, url, token string, iat time.Time, edit func(header, claims map[string]any)) string {
	t.Helper()
	claims := jwt.MapClaims{"jti": fmt.Sprintf("proof-%p-%d", c, c.jtis.Add(1)), "htm": method, "htu": url, "iat": iat.Unix()}
	if token != "" {
		claims["ath"] = dpop.TokenHash(token)
	}
	tok := jwt.NewWithClaims(c.Method, claims)
	tok.Header["typ"], tok.Header["jwk"] = "dpop+jwt", c.JWK
	if edit != nil {
		edit(tok.Header, claims)
	}
	s, err := tok.SignedString(c.Key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Sign signs claims with method and key under the client's jwk: a proof
// whose algorithm or key no client should use (none, HS256).
func (c *Client) Sign(t testing.TB, method jwt.SigningMethod, key any, claims map[string]any) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, jwt.MapClaims(claims))
	tok.Header["typ"], tok.Header["jwk"] = "dpop+jwt", c.JWK
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
