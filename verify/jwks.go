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
	// DefaultStaleFactor: without MaxStale, a set is trusted for this many
	// of its max-ages past its max-age while it cannot be refreshed.
	DefaultStaleFactor = 3
	maxJWKSBytes       = 1 << 20
	jwksFetchTimeout   = 10 * time.Second
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
	// MaxStale bounds how long past its max-age a set stays trusted when it
	// cannot be refreshed (the authorization server down, or answering
	// errors): after that its keys are refused, since a key typeward
	// revoked would otherwise verify forever. When zero, DefaultStaleFactor
	// times the set's max-age, and never less than two MinRefetchIntervals
	// (so a set served with no-cache survives a failed refetch).
	MaxStale time.Duration
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// JWKS is a cache of the authorization server's JSON Web Key Set, fetched
// over HTTP. It keeps the set as long as the response's Cache-Control
// max-age says, revalidates with the ETag, and fetches again early when a
// token names a kid it does not hold, at most once per
// MinRefetchInterval. Past its max-age the set is refreshed in the
// background while its keys keep verifying, for at most MaxStale; a fetch
// that fails leaves them in use until then. Only a token naming a key the
// cache lacks (or a set past MaxStale) waits for a fetch. It is safe for
// concurrent use.
type JWKS struct {
	url  string
	opts JWKSOptions

	mu         sync.Mutex
	keys       map[string]publicKey
	fresh      time.Time // the set is current until then
	staleUntil time.Time // and trusted until then
	lastFetch  time.Time // the last fetch started, for the rate limit
	etag       string
	inflight   *flight // the fetch running now, nil when none
}

// flight is one fetch, shared by every caller that wants it.
type flight struct {
	done chan struct{}
	err  error
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

// How far a key can be trusted.
const (
	keyUnknown = iota // not in the set, or the set is past MaxStale
	keyStale          // past max-age, within MaxStale: use it, refresh
	keyFresh
)

// Key returns the key kid and its algorithm. A set past its max-age is
// refreshed in the background; an unknown kid triggers a fetch the caller
// waits for, unless one started within the MinRefetchInterval.
func (j *JWKS) Key(ctx context.Context, kid string) (crypto.PublicKey, string, error) {
	k, state := j.lookup(kid)
	switch state {
	case keyFresh:
		return k.key, k.alg, nil
	case keyStale:
		j.start() // no waiting: verifies of known keys never queue behind a fetch
		return k.key, k.alg, nil
	}
	f := j.start()
	if f == nil { // rate-limited
		return nil, "", j.unknown(kid, nil)
	}
	select {
	case <-f.done:
	case <-ctx.Done():
		return nil, "", fmt.Errorf("%w: kid %q: waiting for the JWKS: %v", ErrUnknownKey, kid, ctx.Err())
	}
	if k, state := j.lookup(kid); state != keyUnknown {
		return k.key, k.alg, nil
	}
	return nil, "", j.unknown(kid, f.err)
}

// unknown explains why kid cannot be used.
func (j *JWKS) unknown(kid string, fetchErr error) error {
	j.mu.Lock()
	_, held := j.keys[kid]
	expired := held && !j.opts.Now().Before(j.staleUntil)
	j.mu.Unlock()
	switch {
	case expired && fetchErr != nil:
		return fmt.Errorf("%w: kid %q: the JWKS is past its max-age and MaxStale, and fetching it failed: %v", ErrUnknownKey, kid, fetchErr)
	case expired:
		return fmt.Errorf("%w: kid %q: the JWKS is past its max-age and MaxStale and could not be refreshed", ErrUnknownKey, kid)
	case fetchErr != nil:
		return fmt.Errorf("%w: kid %q: fetching the JWKS: %v", ErrUnknownKey, kid, fetchErr)
	}
	return fmt.Errorf("%w: kid %q is not in the JWKS", ErrUnknownKey, kid)
}

func (j *JWKS) lookup(kid string) (publicKey, int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	k, ok := j.keys[kid]
	now := j.opts.Now()
	switch {
	case !ok || !now.Before(j.staleUntil):
		return k, keyUnknown
	case now.Before(j.fresh):
		return k, keyFresh
	}
	return k, keyStale
}

// start returns the fetch in flight, or starts one unless one started
// within the MinRefetchInterval (then nil). The fetch runs detached from
// any caller's context: one caller giving up must not fail it for the
// others.
func (j *JWKS) start() *flight {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.inflight != nil {
		return j.inflight
	}
	now := j.opts.Now()
	if !j.lastFetch.IsZero() && now.Sub(j.lastFetch) < j.opts.MinRefetchInterval {
		return nil
	}
	j.lastFetch = now
	f := &flight{done: make(chan struct{})}
	j.inflight = f
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), jwksFetchTimeout)
		defer cancel()
		f.err = j.fetch(ctx, now)
		j.mu.Lock()
		j.inflight = nil
		j.mu.Unlock()
		close(f.done)
	}()
	return f
}

// staleFor is how long past maxAge a set stays trusted.
func (j *JWKS) staleFor(maxAge time.Duration) time.Duration {
	if j.opts.MaxStale > 0 {
		return j.opts.MaxStale
	}
	return max(DefaultStaleFactor*maxAge, 2*j.opts.MinRefetchInterval)
}

// fetch GETs the JWKS, revalidating with the ETag; only the flight start
// launched runs it. now is when it started.
func (j *JWKS) fetch(ctx context.Context, now time.Time) error {
	j.mu.Lock()
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
		j.staleUntil = j.fresh.Add(j.staleFor(maxAge))
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
	j.staleUntil = j.fresh.Add(j.staleFor(maxAge))
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
