package verify_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/typeward/typeward/verify"
)

func TestVerifyValid(t *testing.T) {
	t.Parallel()
	for _, alg := range []string{"ES256", "EdDSA"} {
		t.Run(alg, func(t *testing.T) {
			a := newAuthServer(t, alg)
			tok := a.mint(t, grant)
			c, err := a.verifier(t, nil).Verify(context.Background(), tok)
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			now := a.clock.Now()
			if c.Issuer != issuer || c.Subject != "client-1" || c.ClientID != "client-1" || !slices.Equal(c.Audience, []string{resource}) ||
				!c.IssuedAt.Equal(now) || !c.NotBefore.Equal(now) || !c.ExpiresAt.Equal(now.Add(ttl)) || c.ID != "jti-1" {
				t.Errorf("claims %+v", c)
			}
			if !slices.Equal(c.Tools, grant.Tools) || !slices.Equal(c.Scope, []string{"mcp:tool:db_query", "mcp:tool:transform_csv", "mcp:tool:email_send"}) {
				t.Errorf("tools %v scope %v", c.Tools, c.Scope)
			}
			if len(c.AuthorizationDetails) != 1 || c.AuthorizationDetails[0].Digest != "sha256:c0ffee" ||
				!slices.Equal(c.AuthorizationDetails[0].Tools, grant.Details[0].Tools) || !slices.Equal(c.AuthorizationDetails[0].Edges, grant.Details[0].Edges) {
				t.Errorf("authorization_details %+v", c.AuthorizationDetails)
			}
			if d, ok := verify.ToolDigest(c, "email_send"); !ok || d != "sha256:e" {
				t.Errorf("ToolDigest(email_send) = %q, %v", d, ok)
			}
			if _, ok := verify.ToolDigest(c, "rm_rf"); ok {
				t.Error("ToolDigest of a tool outside the token succeeded")
			}
		})
	}
}

func TestVerifyRejects(t *testing.T) {
	t.Parallel()
	a := newAuthServer(t, "ES256")
	signer, _ := a.ring.Signer()
	kid := signer.KID
	good := a.mint(t, grant)
	at := map[string]any{"typ": "at+jwt", "kid": kid}
	without := func(name string) jwt.MapClaims { c := a.validClaims(); delete(c, name); return c }
	with := func(name string, v any) jwt.MapClaims { c := a.validClaims(); c[name] = v; return c }
	otherKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	// HS256 keyed with the public key: the classic algorithm confusion.
	pubJWK, _ := a.ring.JWKS()

	tests := []struct {
		name  string
		token string
		want  error
		after time.Duration // clock moved before verifying
	}{
		{"empty", "", verify.ErrMalformed, 0},
		{"garbage", "not.a.jwt", verify.ErrMalformed, 0},
		{"two segments", "eyJhbGciOiJFUzI1NiJ9.e30", verify.ErrMalformed, 0},
		{"too long", strings.Repeat("a", verify.MaxTokenSize+1), verify.ErrMalformed, 0},
		{"alg none", a.forge(t, jwt.SigningMethodNone, at, a.validClaims(), jwt.UnsafeAllowNoneSignatureType), verify.ErrAlgorithm, 0},
		{"HS256 with the public key", a.forge(t, jwt.SigningMethodHS256, at, a.validClaims(), pubJWK), verify.ErrAlgorithm, 0},
		{"ES384 not allowed", a.forge(t, jwt.SigningMethodES384, at, a.validClaims(), mustP384(t)), verify.ErrAlgorithm, 0},
		{"unknown alg", retag(t, good, `"alg":"XS999"`), verify.ErrAlgorithm, 0},
		{"no alg", retag(t, good, `"x":"y"`), verify.ErrMalformed, 0},
		{"EdDSA header on an ES256 key", retag(t, good, `"alg":"EdDSA"`), verify.ErrAlgorithm, 0},
		{"typ JWT", a.forge(t, jwt.SigningMethodES256, map[string]any{"typ": "JWT", "kid": kid}, a.validClaims(), signer.Key), verify.ErrType, 0},
		{"no typ", a.forge(t, jwt.SigningMethodES256, map[string]any{"typ": nil, "kid": kid}, a.validClaims(), signer.Key), verify.ErrType, 0},
		{"no kid", a.forge(t, jwt.SigningMethodES256, map[string]any{"typ": "at+jwt"}, a.validClaims(), signer.Key), verify.ErrUnknownKey, 0},
		{"signed by another key", a.forge(t, jwt.SigningMethodES256, at, a.validClaims(), otherKey), verify.ErrSignature, 0},
		{"payload altered", alterPayload(t, good), verify.ErrSignature, 0},
		{"expired", good, verify.ErrExpired, 5*time.Minute + verify.DefaultLeeway + time.Second},
		{"not yet valid", a.forge(t, jwt.SigningMethodES256, at, with("nbf", a.clock.Now().Add(time.Minute).Unix()), signer.Key), verify.ErrNotYetValid, 0},
		{"issued in the future", a.forge(t, jwt.SigningMethodES256, at, with("iat", a.clock.Now().Add(time.Minute).Unix()), signer.Key), verify.ErrNotYetValid, 0},
		{"wrong audience", a.forge(t, jwt.SigningMethodES256, at, with("aud", "https://other.example.com/mcp"), signer.Key), verify.ErrAudience, 0},
		{"no audience", a.forge(t, jwt.SigningMethodES256, at, without("aud"), signer.Key), verify.ErrMissingClaim, 0},
		{"wrong issuer", a.forge(t, jwt.SigningMethodES256, at, with("iss", "https://evil.example.com"), signer.Key), verify.ErrIssuer, 0},
		{"no exp", a.forge(t, jwt.SigningMethodES256, at, without("exp"), signer.Key), verify.ErrMissingClaim, 0},
		{"no jti", a.forge(t, jwt.SigningMethodES256, at, without("jti"), signer.Key), verify.ErrMissingClaim, 0},
		{"no client_id", a.forge(t, jwt.SigningMethodES256, at, without("client_id"), signer.Key), verify.ErrMissingClaim, 0},
		{"no sub", a.forge(t, jwt.SigningMethodES256, at, without("sub"), signer.Key), verify.ErrMissingClaim, 0},
		{"no iat", a.forge(t, jwt.SigningMethodES256, at, without("iat"), signer.Key), verify.ErrMissingClaim, 0},
		{"no iss", a.forge(t, jwt.SigningMethodES256, at, without("iss"), signer.Key), verify.ErrMissingClaim, 0},
		{"exp not a number", a.forge(t, jwt.SigningMethodES256, at, with("exp", "tomorrow"), signer.Key), verify.ErrMalformed, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newClock()
			c.Set(a.clock.Now().Add(tc.after))
			v := a.verifier(t, func(cfg *verify.Config) { cfg.Now = c.Now })
			claims, err := v.Verify(context.Background(), tc.token)
			if !errors.Is(err, tc.want) || !errors.Is(err, verify.ErrInvalidToken) || claims != nil {
				t.Fatalf("Verify = %v, %v; want ErrInvalidToken and %v", claims, err, tc.want)
			}
		})
	}
	// RFC 9068 §4: typ compares case-insensitively and may carry the
	// "application/" prefix.
	for _, typ := range []string{"AT+JWT", "application/at+jwt"} {
		tok := a.forge(t, jwt.SigningMethodES256, map[string]any{"typ": typ, "kid": kid}, a.validClaims(), signer.Key)
		if _, err := a.verifier(t, nil).Verify(context.Background(), tok); err != nil {
			t.Errorf("typ %q: %v", typ, err)
		}
	}
	// Within the leeway an expired token still passes.
	c := newClock()
	c.Set(a.clock.Now().Add(5*time.Minute + verify.DefaultLeeway - time.Second))
	if _, err := a.verifier(t, func(cfg *verify.Config) { cfg.Now = c.Now }).Verify(context.Background(), good); err != nil {
		t.Errorf("a token expired less than the leeway ago: %v", err)
	}
}

func mustP384(t *testing.T) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// retag replaces the header's alg member, keeping payload and signature.
func retag(t *testing.T, tok, alg string) string {
	t.Helper()
	parts := strings.Split(tok, ".")
	h := decodeSeg(t, parts[0])
	h = strings.Replace(h, `"alg":"ES256"`, alg, 1)
	return encodeSeg(h) + "." + parts[1] + "." + parts[2]
}

// alterPayload grants itself one more tool, keeping the signature.
func alterPayload(t *testing.T, tok string) string {
	t.Helper()
	parts := strings.Split(tok, ".")
	p := strings.Replace(decodeSeg(t, parts[1]), `"mcp_tools":["db_query"`, `"mcp_tools":["rm_rf","db_query"`, 1)
	return parts[0] + "." + encodeSeg(p) + "." + parts[2]
}

// A token naming a kid the cache lacks triggers one fetch, however many
// such tokens arrive; another comes only after the minimum interval.
func TestUnknownKidRefetch(t *testing.T) {
	t.Parallel()
	a := newAuthServer(t, "ES256")
	v := a.verifier(t, nil)
	ctx := context.Background()
	if _, err := v.Verify(ctx, a.mint(t, grant)); err != nil {
		t.Fatal(err)
	}
	if n := a.fetches.Load(); n != 1 {
		t.Fatalf("%d fetches for the first token, want 1", n)
	}

	// An emergency rotation: tokens now name a kid the router never saw.
	a.ring.Rotate(t, true)
	fresh := a.mint(t, grant)
	if _, err := v.Verify(ctx, fresh); !errors.Is(err, verify.ErrUnknownKey) {
		t.Fatalf("right after the first fetch the refetch is rate-limited: Verify = %v, want ErrUnknownKey", err)
	}
	if n := a.fetches.Load(); n != 1 {
		t.Fatalf("rate-limited lookup fetched: %d fetches", n)
	}

	a.clock.Add(verify.MinRefetchInterval)
	var wg sync.WaitGroup
	errs := make([]error, 20)
	for i := range errs {
		wg.Go(func() { _, errs[i] = v.Verify(ctx, fresh) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("verifier %d: %v", i, err)
		}
	}
	if n := a.fetches.Load(); n != 2 {
		t.Fatalf("20 concurrent tokens with a new kid caused %d fetches in all, want 2", n)
	}

	// A flood of made-up kids costs nothing more within the interval.
	signer, _ := a.ring.Signer()
	for i := range 50 {
		bogus := a.forge(t, jwt.SigningMethodES256, map[string]any{"typ": "at+jwt", "kid": "bogus-" + string(rune('a'+i%26))}, a.validClaims(), signer.Key)
		if _, err := v.Verify(ctx, bogus); !errors.Is(err, verify.ErrUnknownKey) {
			t.Fatalf("bogus kid: %v", err)
		}
	}
	if n := a.fetches.Load(); n != 2 {
		t.Fatalf("a flood of unknown kids caused %d fetches, want still 2", n)
	}
	a.clock.Add(verify.MinRefetchInterval)
	v.Verify(ctx, a.forge(t, jwt.SigningMethodES256, map[string]any{"typ": "at+jwt", "kid": "bogus"}, a.validClaims(), signer.Key))
	if n := a.fetches.Load(); n != 3 {
		t.Fatalf("after the interval an unknown kid caused %d fetches in all, want 3", n)
	}
}

// Across a normal rotation, tokens of the old and the new key verify: the
// cache expires by max-age before the new key signs, and revalidates with
// the ETag.
func TestRotatedKeys(t *testing.T) {
	t.Parallel()
	a, v, old := warmVerifier(t, "EdDSA", nil)
	ctx := context.Background()
	a.clock.Add(30 * time.Second)
	if _, err := v.Verify(ctx, old); err != nil || a.fetches.Load() != 1 {
		t.Fatalf("within max-age: %v, %d fetches", err, a.fetches.Load())
	}
	a.clock.Add(31 * time.Second)
	_, err := v.Verify(ctx, old)
	verify.WaitIdle(v) // the revalidation runs in the background
	if err != nil || a.fetches.Load() != 2 || a.notModified.Load() != 1 {
		t.Fatalf("past max-age: %v, %d fetches, %d not modified; want a 304 revalidation", err, a.fetches.Load(), a.notModified.Load())
	}

	next := a.ring.Rotate(t, false)
	a.clock.Set(next.activeAt.Add(-time.Second))
	lastOld := a.mint(t, grant)
	a.clock.Set(next.activeAt)
	newTok := a.mint(t, grant)
	if kidOf(t, newTok) != next.KID || kidOf(t, lastOld) == next.KID {
		t.Fatalf("the rotation did not switch signers at activation")
	}
	for name, tok := range map[string]string{"last old-key token": lastOld, "new-key token": newTok} {
		if _, err := v.Verify(ctx, tok); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if a.fetches.Load() != 3 {
		t.Errorf("%d fetches, want 3 (the new key came with the expired cache, no unknown-kid fetch)", a.fetches.Load())
	}
}

// When the JWKS endpoint fails after max-age, the keys held stay in use;
// a kid never seen is refused with the fetch error.
func TestJWKSOutage(t *testing.T) {
	t.Parallel()
	a, v, _ := warmVerifier(t, "ES256", nil)
	ctx := context.Background()
	a.failing.Store(true)
	a.clock.Add(2 * time.Minute)
	if _, err := v.Verify(ctx, a.mint(t, grant)); err != nil {
		t.Errorf("during an outage a known key stopped verifying: %v", err)
	}
	a.clock.Add(verify.MinRefetchInterval)
	signer, _ := a.ring.Signer()
	_, err := v.Verify(ctx, a.forge(t, jwt.SigningMethodES256, map[string]any{"typ": "at+jwt", "kid": "never-seen"}, a.validClaims(), signer.Key))
	if !errors.Is(err, verify.ErrUnknownKey) || !strings.Contains(err.Error(), "500") {
		t.Errorf("unknown kid during an outage: %v; want ErrUnknownKey naming the 500", err)
	}
}

func TestNewRefusesConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  verify.Config
		want string
	}{
		{"empty", verify.Config{}, "verify: Issuer is required; Audience is required (this router's resource URI); JWKSURL or Keys is required"},
		{"HS256", verify.Config{Issuer: "i", Audience: "a", JWKSURL: "u", Algorithms: []string{"HS256"}}, `verify: algorithm "HS256" is not supported (ES256, EdDSA)`},
		{"negative leeway", verify.Config{Issuer: "i", AcceptAnyAudience: true, JWKSURL: "u", Leeway: -1}, "verify: Leeway, MaxBodyBytes, MaxStale and DPoPReplayEntries must not be negative"},
		{"leeway above the bound", verify.Config{Issuer: "i", Audience: "a", JWKSURL: "u", Leeway: verify.MaxLeeway + time.Second}, "verify: Leeway 5m1s is above the maximum 5m0s"},
	}
	for _, tc := range tests {
		if _, err := verify.New(tc.cfg); err == nil || err.Error() != tc.want {
			t.Errorf("%s: New = %v, want %q", tc.name, err, tc.want)
		}
	}
}

// AcceptAnyAudience, for the authorization server's own introspection.
func TestAcceptAnyAudience(t *testing.T) {
	t.Parallel()
	a := newAuthServer(t, "ES256")
	g := grant
	g.Audience = "https://elsewhere.example.com"
	tok := a.mint(t, g)
	if _, err := a.verifier(t, nil).Verify(context.Background(), tok); !errors.Is(err, verify.ErrAudience) {
		t.Fatalf("router verifier: %v, want ErrAudience", err)
	}
	v := a.verifier(t, func(c *verify.Config) { c.Audience, c.AcceptAnyAudience = "", true })
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Fatalf("AcceptAnyAudience: %v", err)
	}
}

func TestToolAllowed(t *testing.T) {
	c := &verify.Claims{Tools: []string{"db_query", "github/create_issue"}}
	tests := []struct {
		claims *verify.Claims
		name   string
		want   bool
	}{
		{c, "db_query", true},
		{c, "github/create_issue", true},
		{c, "create_issue", false},
		{c, "DB_QUERY", false},
		{c, "", false},
		{nil, "db_query", false},
	}
	for _, tc := range tests {
		if got := verify.ToolAllowed(tc.claims, tc.name); got != tc.want {
			t.Errorf("ToolAllowed(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}
