package clients_test

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"sync"
	"testing"

	jose "github.com/go-jose/go-jose/v4"
)

// testKeys are made once per test binary, the RSA ones too (about a
// second between them): no private key is committed.
type testKeys struct {
	ec, ec384    *ecdsa.PrivateKey
	ed           ed25519.PrivateKey
	rsa, rsa1024 *rsa.PrivateKey
}

var loadTestKeys = sync.OnceValue(func() *testKeys {
	var k testKeys
	k.ec, _ = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	k.ec384, _ = ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	_, k.ed, _ = ed25519.GenerateKey(rand.Reader)
	k.rsa = rsaKey(2048)
	k.rsa1024 = rsaKey(1024)
	return &k
})

func rsaKey(bits int) *rsa.PrivateKey {
	key, err := rsa.GenerateKey(rand.Reader, bits)
	if err != nil {
		panic(err)
	}
	return key
}

// jwk is the public JWK of a private key.
func jwk(priv crypto.Signer, kid string) jose.JSONWebKey {
	return jose.JSONWebKey{Key: priv.Public(), KeyID: kid, Use: "sig"}
}

func jwksJSON(t testing.TB, keys ...jose.JSONWebKey) json.RawMessage {
	t.Helper()
	return mustJSON(t, jose.JSONWebKeySet{Keys: keys})
}

func mustJSON(t testing.TB, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
