package keys

import (
	"crypto"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// Signer is a private key able to sign tokens now, with what a JWS header
// needs to name it.
type Signer struct {
	KID string
	Alg Alg
	Key crypto.Signer // *ecdsa.PrivateKey or ed25519.PrivateKey
}

// newKey generates a key for alg and seals it into a record whose schedule
// the caller fills in.
func newKey(alg Alg, kek *KEK, now time.Time) (Record, *Signer, error) {
	priv, err := alg.generate()
	if err != nil {
		return Record{}, nil, fmt.Errorf("keys: generate %s key: %w", alg, err)
	}
	jwk := jose.JSONWebKey{Key: priv.Public(), Algorithm: string(alg), Use: "sig"}
	kid, err := thumbprint(&jwk)
	if err != nil {
		return Record{}, nil, err
	}
	jwk.KeyID = kid
	public, err := json.Marshal(jwk)
	if err != nil {
		return Record{}, nil, fmt.Errorf("keys: encode public key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return Record{}, nil, fmt.Errorf("keys: encode private key: %w", err)
	}
	sealed, err := kek.seal(kid, der)
	if err != nil {
		return Record{}, nil, fmt.Errorf("keys: seal private key: %w", err)
	}
	rec := Record{
		KID: kid, Alg: alg, PublicJWK: public, Sealed: sealed, KEKID: kek.ID(),
		CreatedAt: now, PublishAt: now, ActivateAt: now,
	}
	return rec, &Signer{KID: kid, Alg: alg, Key: priv}, nil
}

// thumbprint is the RFC 7638 SHA-256 thumbprint of jwk, base64url: the kid.
func thumbprint(jwk *jose.JSONWebKey) (string, error) {
	sum, err := jwk.Thumbprint(crypto.SHA256)
	if err != nil {
		return "", fmt.Errorf("keys: thumbprint: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(sum), nil
}

// publicKey parses a record's public JWK and checks that it is what the
// record says it is: the kid is its thumbprint and the alg fits.
func publicKey(rec *Record) (jose.JSONWebKey, error) {
	var jwk jose.JSONWebKey
	if err := json.Unmarshal(rec.PublicJWK, &jwk); err != nil {
		return jwk, fmt.Errorf("keys: key %s: public JWK: %w", rec.KID, err)
	}
	if !jwk.IsPublic() || !jwk.Valid() {
		return jwk, fmt.Errorf("keys: key %s: the stored JWK is not a valid public key", rec.KID)
	}
	kid, err := thumbprint(&jwk)
	if err != nil {
		return jwk, err
	}
	if kid != rec.KID || jwk.KeyID != rec.KID {
		return jwk, fmt.Errorf("keys: key %s: the stored JWK's thumbprint is %s", rec.KID, kid)
	}
	if !rec.Alg.fits(jwk.Key) || jwk.Algorithm != string(rec.Alg) {
		return jwk, fmt.Errorf("keys: key %s: the stored JWK is not an %s key", rec.KID, rec.Alg)
	}
	return jwk, nil
}

// openSigner decrypts a record's private key and checks that it is the
// private half of the record's public key.
func openSigner(rec *Record, public crypto.PublicKey, kek *KEK) (*Signer, error) {
	der, err := kek.open(rec)
	if err != nil {
		return nil, err
	}
	parsed, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return nil, fmt.Errorf("keys: key %s: private key: %w", rec.KID, err)
	}
	priv, ok := parsed.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("keys: key %s: private key of type %T cannot sign", rec.KID, parsed)
	}
	type equaler interface{ Equal(crypto.PublicKey) bool }
	if eq, ok := priv.Public().(equaler); !ok || !eq.Equal(public) {
		return nil, fmt.Errorf("keys: key %s: the private key does not match the public key", rec.KID)
	}
	return &Signer{KID: rec.KID, Alg: rec.Alg, Key: priv}, nil
}
