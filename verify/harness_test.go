package verify_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/typeward/typeward/verify"
)

const (
	issuer   = "https://as.example.com"
	resource = "https://router.example.com/mcp"
	ttl      = 5 * time.Minute
	// rotationDelay is how long a rotated-in key is published before it
	// signs, as typeward's keyring does: more than a JWKS max-age.
	rotationDelay = 10 * time.Minute
)

// clock is the time shared by the authorization server and the verifier.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.t = c.t.Add(d) }
func (c *clock) Set(t time.Time)     { c.mu.Lock(); defer c.mu.Unlock(); c.t = t }
func newClock() *clock               { return &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)} }

// signer is one signing key of the test authorization server.
type signer struct {
	KID      string
	Alg      string
	Key      crypto.Signer
	activeAt time.Time
}

// ring is the authorization server's keys: every key is published, the
// newest active one signs. The module stands alone, so this stands in for
// typeward's keyring (whose tokens internal/token's tests verify with
// this package).
type ring struct {
	mu    sync.Mutex
	alg   string
	now   func() time.Time
	keys  []signer
	count int
}

func newRing(t testing.TB, alg string, now func() time.Time) *ring {
	r := &ring{alg: alg, now: now}
	r.add(t, now())
	return r
}

func (r *ring) add(t testing.TB, activeAt time.Time) signer {
	t.Helper()
	var key crypto.Signer
	var err error
	switch r.alg {
	case "ES256":
		key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case "EdDSA":
		_, key, err = ed25519.GenerateKey(rand.Reader)
	default:
		t.Fatalf("alg %s", r.alg)
	}
	if err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.count++
	s := signer{KID: fmt.Sprintf("key-%d", r.count), Alg: r.alg, Key: key, activeAt: activeAt}
	r.keys = append(r.keys, s)
	return s
}

// Rotate adds a key, signing now when emergency, else after rotationDelay.
func (r *ring) Rotate(t testing.TB, emergency bool) signer {
	at := r.now().Add(rotationDelay)
	if emergency {
		at = r.now()
	}
	return r.add(t, at)
}

// Signer is the key signing now: the newest active one.
func (r *ring) Signer() (signer, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	for i := len(r.keys) - 1; i >= 0; i-- {
		if !now.Before(r.keys[i].activeAt) {
			return r.keys[i], nil
		}
	}
	return signer{}, fmt.Errorf("no active key")
}

// Key makes the ring a verify.KeySource.
func (r *ring) Key(_ context.Context, kid string) (crypto.PublicKey, string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, k := range r.keys {
		if k.KID == kid {
			return k.Key.Public(), k.Alg, nil
		}
	}
	return nil, "", fmt.Errorf("kid %q unknown", kid)
}

// JWKS is the published set and its ETag.
func (r *ring) JWKS() (body []byte, etag string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var members []string
	enc := base64.RawURLEncoding.EncodeToString
	for _, k := range r.keys {
		switch pub := k.Key.Public().(type) {
		case *ecdsa.PublicKey:
			raw, _ := pub.Bytes()
			members = append(members, fmt.Sprintf(`{"kty":"EC","crv":"P-256","kid":%q,"alg":"ES256","use":"sig","x":%q,"y":%q}`, k.KID, enc(raw[1:33]), enc(raw[33:])))
		case ed25519.PublicKey:
			members = append(members, fmt.Sprintf(`{"kty":"OKP","crv":"Ed25519","kid":%q,"alg":"EdDSA","use":"sig","x":%q}`, k.KID, enc(pub)))
		}
	}
	body = []byte(`{"keys":[` + strings.Join(members, ",") + `]}`)
	sum := sha256.Sum256(body)
	return body, `"` + hex.EncodeToString(sum[:8]) + `"`
}

// authServer is typeward's key side: a key ring, a minter and a real HTTP
// JWKS endpoint that counts its fetches.
type authServer struct {
	clock       *clock
	ring        *ring
	srv         *httptest.Server
	fetches     atomic.Int32 // every GET
	notModified atomic.Int32 // answered 304
	failing     atomic.Bool  // answer 500
	maxAge      atomic.Int64 // seconds
	jti         atomic.Int64
	// hold, when set, makes each fetch wait until it is closed: a slow
	// authorization server.
	hold atomic.Pointer[chan struct{}]
}

func newAuthServer(t testing.TB, alg string) *authServer {
	t.Helper()
	a := &authServer{clock: newClock()}
	a.maxAge.Store(900)
	a.ring = newRing(t, alg, a.clock.Now)
	a.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.fetches.Add(1)
		if h := a.hold.Load(); h != nil {
			<-*h
		}
		if a.failing.Load() {
			http.Error(w, "down", http.StatusInternalServerError)
			return
		}
		body, etag := a.ring.JWKS()
		w.Header().Set("Cache-Control", "public, max-age="+strconv.FormatInt(a.maxAge.Load(), 10))
		w.Header().Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			a.notModified.Add(1)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	t.Cleanup(a.srv.Close)
	return a
}

// testGrant is what a token is minted for.
type testGrant struct {
	ClientID string
	Audience string
	Tools    []string
	Details  []verify.AuthorizationDetail
}

// grant is the reference pipeline's grant.
var grant = testGrant{
	ClientID: "client-1",
	Audience: resource,
	Tools:    []string{"db_query", "transform_csv", "email_send"},
	Details: []verify.AuthorizationDetail{{
		Type: verify.DetailType, Digest: "sha256:c0ffee",
		Tools: []verify.ToolRef{{Name: "db_query", Version: 1, Digest: "sha256:q"}, {Name: "transform_csv", Version: 1, Digest: "sha256:t"}, {Name: "email_send", Version: 2, Digest: "sha256:e"}},
		Edges: []verify.Edge{{From: "q", To: "csv"}, {From: "csv", To: "mail"}},
	}},
}

// claimsOf are the claims typeward's minter puts in a token for g now.
func (a *authServer) claimsOf(g testGrant) jwt.MapClaims {
	now := a.clock.Now().Unix()
	scope := make([]string, len(g.Tools))
	for i, tool := range g.Tools {
		scope[i] = verify.ToolScopePrefix + tool
	}
	return jwt.MapClaims{
		"iss": issuer, "sub": g.ClientID, "client_id": g.ClientID, "aud": g.Audience,
		"iat": now, "nbf": now, "exp": now + int64(ttl/time.Second), "jti": fmt.Sprintf("jti-%d", a.jti.Add(1)),
		"scope": strings.Join(scope, " "), "mcp_tools": g.Tools, "authorization_details": g.Details,
	}
}

// mint signs g's claims with the active key, as typeward does.
func (a *authServer) mint(t testing.TB, g testGrant) string { return a.mintBound(t, g, "") }

// mintBound mints a token bound to the DPoP key of thumbprint jkt (cnf),
// a bearer token when jkt is "".
func (a *authServer) mintBound(t testing.TB, g testGrant, jkt string) string {
	t.Helper()
	s, err := a.ring.Signer()
	if err != nil {
		t.Fatal(err)
	}
	claims := a.claimsOf(g)
	if jkt != "" {
		claims["cnf"] = map[string]string{"jkt": jkt}
	}
	return a.forge(t, methodOf(s.Alg), map[string]any{"typ": "at+jwt", "kid": s.KID}, claims, s.Key)
}

func methodOf(alg string) jwt.SigningMethod {
	if alg == "EdDSA" {
		return jwt.SigningMethodEdDSA
	}
	return jwt.SigningMethodES256
}

func (a *authServer) verifier(t testing.TB, adjust func(*verify.Config)) *verify.Verifier {
	t.Helper()
	cfg := verify.Config{Issuer: issuer, Audience: resource, JWKSURL: a.srv.URL, HTTPClient: a.srv.Client(), Now: a.clock.Now, Realm: "mcp"}
	if adjust != nil {
		adjust(&cfg)
	}
	v, err := verify.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// warmVerifier is a verifier of a server whose JWKS has a max-age of 60 s,
// after it verified tok: the JWKS is fetched once and cached, the clock
// not moved, for the tests of what happens when it ages.
func warmVerifier(t testing.TB, alg string, adjust func(*verify.Config)) (a *authServer, v *verify.Verifier, tok string) {
	t.Helper()
	a = newAuthServer(t, alg)
	a.maxAge.Store(60)
	v = a.verifier(t, adjust)
	tok = a.mint(t, grant)
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Fatal(err)
	}
	return a, v, tok
}

// forge signs arbitrary header and claims with the active key (or as the
// method demands), for tokens typeward would never mint.
func (a *authServer) forge(t testing.TB, method jwt.SigningMethod, header map[string]any, claims jwt.MapClaims, key any) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, claims)
	for k, v := range header {
		if v == nil {
			delete(tok.Header, k)
		} else {
			tok.Header[k] = v
		}
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// validClaims are what Mint would put in a token now.
func (a *authServer) validClaims() jwt.MapClaims {
	now := a.clock.Now().Unix()
	return jwt.MapClaims{
		"iss": issuer, "sub": "client-1", "client_id": "client-1", "aud": resource,
		"iat": now, "nbf": now, "exp": now + 300, "jti": "forged-jti", "mcp_tools": []string{"db_query"},
	}
}
