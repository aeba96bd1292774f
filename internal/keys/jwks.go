package keys

import (
	"context"
	"crypto"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"time"
)

// JWKS is the published key set at one moment.
type JWKS struct {
	Body   []byte // {"keys":[...]}: public keys only
	ETag   string // a strong ETag: a hash of Body, the same on every replica
	MaxAge time.Duration
}

// jwksCache is a JWKS document, the snapshot it was made from, and the
// span of time it stays true: until a scheduled key is published or a
// retired one leaves.
type jwksCache struct {
	doc        JWKS
	snap       *snapshot
	from, till time.Time
}

// JWKS is the key set to publish now: every key published at this moment,
// earliest activation first, so that every replica serves the same bytes.
func (k *Keyring) JWKS() JWKS {
	now := k.now()
	snap := k.snap.Load()
	if c := k.jwks.Load(); c != nil && c.snap == snap && !now.Before(c.from) && now.Before(c.till) {
		return c.doc
	}
	body := []byte(`{"keys":[`)
	till := time.Unix(1<<40, 0) // far future: nothing scheduled
	first := true
	for i := range snap.records {
		rec := &snap.records[i]
		if jwk, ok := snap.publicJSON[rec.KID]; ok && rec.published(now) {
			if !first {
				body = append(body, ',')
			}
			body, first = append(body, jwk...), false
		}
		for _, t := range []time.Time{rec.PublishAt, rec.ExpiresAt} {
			if t.After(now) && t.Before(till) {
				till = t
			}
		}
	}
	body = append(body, "]}"...)
	sum := sha256.Sum256(body)
	doc := JWKS{Body: body, ETag: `"` + base64.RawURLEncoding.EncodeToString(sum[:18]) + `"`, MaxAge: k.cfg.JWKSMaxAge}
	k.jwks.Store(&jwksCache{doc: doc, snap: snap, from: now, till: till})
	return doc
}

// PublicKey is the published key kid and its algorithm.
func (k *Keyring) PublicKey(kid string) (crypto.PublicKey, Alg, bool) {
	now := k.now()
	snap := k.snap.Load()
	for i := range snap.records {
		rec := &snap.records[i]
		if rec.KID == kid && rec.published(now) {
			if jwk, ok := snap.public[kid]; ok {
				return jwk.Key, rec.Alg, true
			}
		}
	}
	return nil, "", false
}

// Key is PublicKey as a verify.KeySource: how typeward verifies its own
// tokens (introspection) without fetching its JWKS.
func (k *Keyring) Key(_ context.Context, kid string) (crypto.PublicKey, string, error) {
	pub, alg, ok := k.PublicKey(kid)
	if !ok {
		return nil, "", fmt.Errorf("keys: kid %q is not published", kid)
	}
	return pub, string(alg), nil
}
