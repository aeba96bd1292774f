package verify

import (
	"crypto"
	"sync"
	"time"
)

// A router verifies the same token on every request of a session: its
// signature check (ECDSA or Ed25519) and parse were a third of typeward
// route's time per tools/call. Verify therefore remembers the tokens it
// accepted, by their exact string (a token string is malleable, but these
// bytes were checked), for at most verifiedFor and never past the token's
// exp, with the key that checked them: each use looks that key up again
// (a map read, not a signature check), so a key withdrawn from the key
// source (an emergency rotation, a JWKS without it) stops its tokens at
// once. At most verifiedEntries are kept.
const (
	verifiedFor     = 30 * time.Second
	verifiedEntries = 4096
)

type verifiedCache struct {
	mu sync.Mutex
	m  map[string]verifiedEntry
}

type verifiedEntry struct {
	claims      Claims
	kid, alg    string
	key         crypto.PublicKey
	from, until time.Time
}

// get is the entry of token, accepted at most verifiedFor before now.
func (c *verifiedCache) get(token string, now time.Time) (verifiedEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[token]
	if !ok || now.Before(e.from) || !now.Before(e.until) {
		return verifiedEntry{}, false
	}
	return e, true // e.claims a copy of the struct (its slices are shared, not to be changed)
}

// put remembers claims of a token accepted at now with key (kid, alg).
func (c *verifiedCache) put(token string, claims *Claims, kid, alg string, key crypto.PublicKey, now time.Time) {
	until := now.Add(verifiedFor)
	if claims.ExpiresAt.Before(until) {
		until = claims.ExpiresAt
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]verifiedEntry{}
	}
	if len(c.m) >= verifiedEntries {
		for k, e := range c.m {
			if !now.Before(e.until) {
				delete(c.m, k)
			}
		}
		if len(c.m) >= verifiedEntries {
			clear(c.m) // all live: start over rather than grow
		}
	}
	c.m[token] = verifiedEntry{claims: *claims, kid: kid, alg: alg, key: key, from: now, until: until}
}
