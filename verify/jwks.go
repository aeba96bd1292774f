package verify

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// Defaults of JWKSOptions.
const (
	DefaultMinRefetchInterval = 30 * time.Second
	DefaultJWKSMaxAge         = 5 * time.Minute
	MaxJWKSMaxAge             = 24 * time.Hour
	maxJWKSBytes              = 1 << 20
	jwksFetchTimeout          = 10 * time.Second
)

// JWKSOptions tune a JWKS cache.
type JWKSOptions struct {
	// Client fetches the JWKS; http.DefaultClient when nil.
	Client *http.Client
	// MinRefetchInterval is the least time between two fetches that are not
	// due to expiry: at most one fetch per interval however many tokens name
	// unknown keys. DefaultMinRefetchInterval when zero.
	MinRefetchInterval time.Duration
	// DefaultMaxAge is how long to keep a JWKS served without a
	// Cache-Control max-age. DefaultJWKSMaxAge when zero. A max-age above
	// MaxJWKSMaxAge is capped.
	DefaultMaxAge time.Duration
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// JWKS is a cache of the authorization server's JSON Web Key Set, fetched
// over HTTP. It keeps the set as long as the response's Cache-Control
// max-age says, revalidates with the ETag, and fetches again early when a
// token names a kid it does not hold, at most once per
// MinRefetchInterval. When a fetch fails the keys it held stay in use. It
// is safe for concurrent use.
type JWKS struct {
	url  string
	opts JWKSOptions

	fetchMu sync.Mutex // one fetch at a time; held across the request

	mu        sync.Mutex
	keys      map[string]publicKey
	fresh     time.Time // the set is current until then
	lastFetch time.Time // the last fetch attempt, for the rate limit
	etag      string
}

type publicKey struct {
	key crypto.PublicKey
	alg string
}

// NewJWKS returns a cache of the JWKS at url. Nothing is fetched until the
// first key is asked for.
func NewJWKS(url string, opts JWKSOptions) *JWKS {
	if opts.Client == nil {
		opts.Client = http.DefaultClient
	}
	if opts.MinRefetchInterval <= 0 {
		opts.MinRefetchInterval = DefaultMinRefetchInterval
	}
	if opts.DefaultMaxAge <= 0 {
		opts.DefaultMaxAge = DefaultJWKSMaxAge
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &JWKS{url: url, opts: opts}
}

// Key returns the key kid and its algorithm. An unknown kid, or a set past
// its max-age, triggers a fetch unless one happened within the
// MinRefetchInterval.
func (j *JWKS) Key(ctx context.Context, kid string) (crypto.PublicKey, string, error) {
	if k, ok, fresh := j.lookup(kid); ok && fresh {
		return k.key, k.alg, nil
	}
	j.fetchMu.Lock()
	defer j.fetchMu.Unlock()
	// Another caller may have fetched while this one waited.
	k, ok, fresh := j.lookup(kid)
	if ok && fresh {
		return k.key, k.alg, nil
	}
	j.mu.Lock()
	limited := j.opts.Now().Sub(j.lastFetch) < j.opts.MinRefetchInterval && !j.lastFetch.IsZero()
	j.mu.Unlock()
	if limited {
		if ok { // stale, and the last fetch failed: keep using it
			return k.key, k.alg, nil
		}
		return nil, "", fmt.Errorf("%w: kid %q is not in the JWKS", ErrUnknownKey, kid)
	}
	// The fetch is shared by every waiting caller: one caller giving up must
	// not fail it for the others.
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), jwksFetchTimeout)
	defer cancel()
	fetchErr := j.fetch(fctx)
	if k, ok, _ := j.lookup(kid); ok {
		return k.key, k.alg, nil
	}
	if fetchErr != nil {
		return nil, "", fmt.Errorf("%w: kid %q: fetching the JWKS: %v", ErrUnknownKey, kid, fetchErr)
	}
	return nil, "", fmt.Errorf("%w: kid %q is not in the JWKS", ErrUnknownKey, kid)
}

func (j *JWKS) lookup(kid string) (publicKey, bool, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	k, ok := j.keys[kid]
	return k, ok, j.opts.Now().Before(j.fresh)
}

// fetch GETs the JWKS, revalidating with the ETag; callers hold fetchMu.
func (j *JWKS) fetch(ctx context.Context) error {
	now := j.opts.Now()
	j.mu.Lock()
	j.lastFetch = now
	etag := j.etag
	j.mu.Unlock()

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, j.url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	resp, err := j.opts.Client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	maxAge := cacheMaxAge(resp.Header, j.opts.DefaultMaxAge)

	switch resp.StatusCode {
	case http.StatusNotModified:
		j.mu.Lock()
		j.fresh = now.Add(maxAge)
		j.mu.Unlock()
		return nil
	case http.StatusOK:
	default:
		return fmt.Errorf("GET %s: %s", j.url, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxJWKSBytes+1))
	if err != nil {
		return err
	}
	if len(body) > maxJWKSBytes {
		return fmt.Errorf("GET %s: JWKS larger than %d bytes", j.url, maxJWKSBytes)
	}
	keys, err := parseJWKS(body)
	if err != nil {
		return err
	}
	j.mu.Lock()
	j.keys, j.fresh, j.etag = keys, now.Add(maxAge), resp.Header.Get("ETag")
	j.mu.Unlock()
	return nil
}

// parseJWKS keeps the set's public signing keys that have a kid and are of
// a kind typeward signs with; other entries are skipped, not fatal, so a
// set may carry keys for other uses.
func parseJWKS(body []byte) (map[string]publicKey, error) {
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, fmt.Errorf("JWKS: %w", err)
	}
	if set.Keys == nil {
		return nil, errors.New(`JWKS: no "keys" member`)
	}
	out := make(map[string]publicKey, len(set.Keys))
	for _, raw := range set.Keys {
		var jwk jose.JSONWebKey
		if json.Unmarshal(raw, &jwk) != nil || jwk.KeyID == "" || !jwk.IsPublic() || !jwk.Valid() {
			continue
		}
		if jwk.Use != "" && jwk.Use != "sig" {
			continue
		}
		alg := keyAlg(jwk.Key)
		if alg == "" || (jwk.Algorithm != "" && jwk.Algorithm != alg) {
			continue
		}
		out[jwk.KeyID] = publicKey{key: jwk.Key, alg: alg}
	}
	return out, nil
}

// keyAlg is the JWS algorithm a public key verifies, "" for other keys.
func keyAlg(key crypto.PublicKey) string {
	switch k := key.(type) {
	case *ecdsa.PublicKey:
		if k.Curve == elliptic.P256() {
			return "ES256"
		}
	case ed25519.PublicKey:
		return "EdDSA"
	}
	return ""
}
