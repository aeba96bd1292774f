package verify

import (
	"context"
	"crypto"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/typeward/typeward/verify/jwk"
)

// How the JWKS cache built on Config.JWKSURL behaves.
const (
	// minRefetchInterval is the least time between two fetches that are
	// not due to expiry: at most one fetch per interval however many
	// tokens name unknown keys.
	minRefetchInterval = 30 * time.Second
	// defaultJWKSMaxAge is how long a JWKS served without a Cache-Control
	// max-age is kept; a max-age above maxJWKSMaxAge is capped.
	defaultJWKSMaxAge = 5 * time.Minute
	maxJWKSMaxAge     = 24 * time.Hour
	// staleFactor: without Config.MaxStale, a set is trusted for this many
	// of its max-ages past its max-age while it cannot be refreshed.
	staleFactor      = 3
	maxJWKSBytes     = 1 << 20
	jwksFetchTimeout = 10 * time.Second
)

// jwks is a cache of the authorization server's JSON Web Key Set, fetched
// over HTTP. It keeps the set as long as the response's Cache-Control
// max-age says, revalidates with the ETag, and fetches again early when a
// token names a kid it does not hold, at most once per
// minRefetchInterval. Past its max-age the set is refreshed in the
// background while its keys keep verifying, for at most MaxStale; a fetch
// that fails leaves them in use until then. Only a token naming a key the
// cache lacks (or a set past MaxStale) waits for a fetch. It is safe for
// concurrent use.
type jwks struct {
	url      string
	client   *http.Client
	now      func() time.Time
	maxStale time.Duration

	mu         sync.Mutex
	keys       map[string]jwk.Key
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

// newJWKS is a cache of the JWKS at cfg.JWKSURL, fetched with
// cfg.HTTPClient (defaults applied). Nothing is fetched until the first
// key is asked for.
func newJWKS(cfg Config) *jwks {
	return &jwks{url: cfg.JWKSURL, client: cfg.HTTPClient, now: cfg.Now, maxStale: cfg.MaxStale}
}

// How far a key can be trusted.
const (
	keyUnknown = iota // not in the set, or the set is past MaxStale
	keyStale          // past max-age, within MaxStale: use it, refresh
	keyFresh
)

// Key returns the key kid and its algorithm. A set past its max-age is
// refreshed in the background; an unknown kid triggers a fetch the caller
// waits for, unless one started within the minRefetchInterval.
func (j *jwks) Key(ctx context.Context, kid string) (crypto.PublicKey, string, error) {
	k, state := j.lookup(kid)
	switch state {
	case keyFresh:
		return k.Public, k.Alg, nil
	case keyStale:
		j.start() // no waiting: verifies of known keys never queue behind a fetch
		return k.Public, k.Alg, nil
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
		return k.Public, k.Alg, nil
	}
	return nil, "", j.unknown(kid, f.err)
}

// unknown explains why kid cannot be used.
func (j *jwks) unknown(kid string, fetchErr error) error {
	j.mu.Lock()
	_, held := j.keys[kid]
	expired := held && !j.now().Before(j.staleUntil)
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

func (j *jwks) lookup(kid string) (jwk.Key, int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	k, ok := j.keys[kid]
	now := j.now()
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
func (j *jwks) start() *flight {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.inflight != nil {
		return j.inflight
	}
	now := j.now()
	if !j.lastFetch.IsZero() && now.Sub(j.lastFetch) < minRefetchInterval {
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
func (j *jwks) staleFor(maxAge time.Duration) time.Duration {
	if j.maxStale > 0 {
		return j.maxStale
	}
	return max(staleFactor*maxAge, 2*minRefetchInterval)
}

// fetch GETs the JWKS, revalidating with the ETag; only the flight start
// launched runs it. now is when it started.
func (j *jwks) fetch(ctx context.Context, now time.Time) error {
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
	resp, err := j.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	maxAge := cacheMaxAge(resp.Header, defaultJWKSMaxAge)

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
func parseJWKS(body []byte) (map[string]jwk.Key, error) {
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, fmt.Errorf("JWKS: %w", err)
	}
	if set.Keys == nil {
		return nil, errors.New(`JWKS: no "keys" member`)
	}
	out := make(map[string]jwk.Key, len(set.Keys))
	for _, raw := range set.Keys {
		k, err := jwk.Parse(raw)
		if err != nil || k.KID == "" || (k.Use != "" && k.Use != "sig") || (k.Declared != "" && k.Declared != k.Alg) {
			continue
		}
		if k.Alg == "ES256" || k.Alg == "EdDSA" {
			out[k.KID] = k
		}
	}
	return out, nil
}
