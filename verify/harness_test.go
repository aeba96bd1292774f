package verify_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/typeward/typeward/internal/keys"
	"github.com/typeward/typeward/internal/store/memory"
	"github.com/typeward/typeward/internal/token"
	"github.com/typeward/typeward/verify"
)

const (
	issuer   = "https://as.example.com"
	resource = "https://router.example.com/mcp"
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

// authServer is typeward's key side: a keyring, a minter and a real HTTP
// JWKS endpoint that counts its fetches.
type authServer struct {
	clock       *clock
	ring        *keys.Keyring
	minter      *token.Minter
	srv         *httptest.Server
	fetches     atomic.Int32 // every GET
	notModified atomic.Int32 // answered 304
	failing     atomic.Bool  // answer 500
	maxAge      atomic.Int64 // seconds
	// hold, when set, makes each fetch wait until it is closed: a slow
	// authorization server.
	hold atomic.Pointer[chan struct{}]
}

func newAuthServer(t testing.TB, alg keys.Alg) *authServer {
	t.Helper()
	a := &authServer{clock: newClock()}
	a.maxAge.Store(900)
	kek, err := keys.GenerateKEK()
	if err != nil {
		t.Fatal(err)
	}
	a.ring, err = keys.New(context.Background(), keys.Config{Store: memory.NewKeys(), KEK: kek, Alg: alg, Now: a.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	a.minter, err = token.NewMinter(token.Config{Issuer: issuer, TTL: 5 * time.Minute, Signers: a.ring, Now: a.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	a.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.fetches.Add(1)
		if h := a.hold.Load(); h != nil {
			<-*h
		}
		if a.failing.Load() {
			http.Error(w, "down", http.StatusInternalServerError)
			return
		}
		doc := a.ring.JWKS()
		w.Header().Set("Cache-Control", "public, max-age="+strconv.FormatInt(a.maxAge.Load(), 10))
		w.Header().Set("ETag", doc.ETag)
		if r.Header.Get("If-None-Match") == doc.ETag {
			a.notModified.Add(1)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(doc.Body)
	}))
	t.Cleanup(a.srv.Close)
	return a
}

// grant is the reference pipeline's grant.
var grant = token.Grant{
	ClientID: "client-1",
	Audience: resource,
	Tools:    []string{"db_query", "transform_csv", "email_send"},
	Details: []verify.AuthorizationDetail{{
		Type: verify.DetailType, Digest: "sha256:c0ffee",
		Tools: []verify.ToolRef{{Name: "db_query", Version: 1, Digest: "sha256:q"}, {Name: "transform_csv", Version: 1, Digest: "sha256:t"}, {Name: "email_send", Version: 2, Digest: "sha256:e"}},
		Edges: []verify.Edge{{From: "q", To: "csv"}, {From: "csv", To: "mail"}},
	}},
}

func (a *authServer) mint(t testing.TB, g token.Grant) string {
	t.Helper()
	m, err := a.minter.Mint(g)
	if err != nil {
		t.Fatal(err)
	}
	return m.Token
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
func warmVerifier(t testing.TB, alg keys.Alg, adjust func(*verify.Config)) (a *authServer, v *verify.Verifier, tok string) {
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
