package clients_test

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"os"
	"sync"
	"testing"

	jose "github.com/go-jose/go-jose/v4"
)

// testKeys are made once per test binary. The RSA keys are fixed test keys
// under testdata/ because generating them is slow.
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
	k.rsa = readRSAKey("testdata/rsa2048.pem")
	k.rsa1024 = readRSAKey("testdata/rsa1024.pem")
	return &k
})

func readRSAKey(path string) *rsa.PrivateKey {
	data, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		panic(path + ": no PEM block")
	}
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		panic(path + ": " + err.Error())
	}
	return key.(*rsa.PrivateKey)
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
