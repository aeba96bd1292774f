package verify_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/typeward/typeward/verify"
)

// RFC 7515 §4.1.11: a token with critical header parameters the verifier
// does not understand is refused, whatever they are.
func TestVerifyRefusesCrit(t *testing.T) {
	t.Parallel()
	a := newAuthServer(t, "ES256")
	signer, _ := a.ring.Signer()
	for _, crit := range []any{[]string{"exp"}, []string{"b64"}, []string{}, "x"} {
		tok := a.forge(t, jwt.SigningMethodES256, map[string]any{"typ": "at+jwt", "kid": signer.KID, "crit": crit, "b64": true, "exp": 1}, a.validClaims(), signer.Key)
		c, err := a.verifier(t, nil).Verify(context.Background(), tok)
		if !errors.Is(err, verify.ErrCritical) || !errors.Is(err, verify.ErrInvalidToken) || c != nil {
			t.Errorf("crit %v: Verify = %v, %v; want ErrCritical", crit, c, err)
		}
	}
}

// A JWKS past its max-age is refreshed in the background: while the
// authorization server is slow, verifies of known keys go on, none
// waiting for the fetch, and the fetch happens once.
func TestJWKSSlowRefreshDoesNotBlock(t *testing.T) {
	t.Parallel()
	a, v, tok := warmVerifier(t, "ES256", nil)
	ctx := context.Background()
	a.clock.Add(61 * time.Second)
	release := make(chan struct{})
	a.hold.Store(&release)

	var wg sync.WaitGroup
	errs := make([]error, 20)
	for i := range errs {
		wg.Go(func() { _, errs[i] = v.Verify(ctx, tok) })
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second): // a liveness bound, not a timing: the fetch is held until release
		close(release)
		t.Fatal("verifies of a known key waited for the slow JWKS refresh")
	}
	for i, err := range errs {
		if err != nil {
			t.Errorf("verify %d during the refresh: %v", i, err)
		}
	}
	close(release)
	verify.WaitIdle(v)
	if n := a.fetches.Load(); n != 2 {
		t.Errorf("%d fetches, want 2 (one background refresh for 20 verifies)", n)
	}
}

// When the JWKS cannot be refreshed, its keys are trusted for MaxStale
// past the max-age, then refused, naming the reason.
func TestJWKSStaleWindow(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		maxStale time.Duration
		window   time.Duration // trusted this long past max-age
	}{
		{"default: three max-ages", 0, 3 * time.Minute},
		{"configured", 10 * time.Minute, 10 * time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, v, _ := warmVerifier(t, "ES256", func(c *verify.Config) { c.MaxStale = tc.maxStale })
			ctx := context.Background()
			a.failing.Store(true)
			a.clock.Add(time.Minute + tc.window - time.Second)
			_, err := v.Verify(ctx, a.mint(t, grant))
			verify.WaitIdle(v)
			if err != nil {
				t.Fatalf("within the stale window: %v", err)
			}
			a.clock.Add(2 * time.Second)
			_, err = v.Verify(ctx, a.mint(t, grant))
			if !errors.Is(err, verify.ErrUnknownKey) || !strings.Contains(err.Error(), "MaxStale") {
				t.Fatalf("past the stale window: %v; want ErrUnknownKey naming MaxStale", err)
			}
			// Once the authorization server answers again, the key is back.
			a.failing.Store(false)
			a.clock.Add(verify.MinRefetchInterval)
			if _, err := v.Verify(ctx, a.mint(t, grant)); err != nil {
				t.Fatalf("after the outage: %v", err)
			}
		})
	}
}

// A plain-http JWKS URL is warned about, except on loopback.
func TestPlainHTTPJWKSWarning(t *testing.T) {
	t.Parallel()
	for url, warn := range map[string]bool{
		"http://as.example.com/.well-known/jwks.json":  true,
		"http://10.0.0.7:8080/jwks":                    true,
		"HTTP://as.example.com/jwks":                   true,
		"https://as.example.com/.well-known/jwks.json": false,
		"http://127.0.0.1:8080/jwks":                   false,
		"http://[::1]:8080/jwks":                       false,
		"http://localhost:8080/jwks":                   false,
	} {
		var buf bytes.Buffer
		_, err := verify.New(verify.Config{Issuer: "i", Audience: "a", JWKSURL: url, Logger: slog.New(slog.NewJSONHandler(&buf, nil))})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(buf.String(), `"level":"WARN"`) && strings.Contains(buf.String(), url); got != warn {
			t.Errorf("%s: warned %v, want %v (%s)", url, got, warn, buf.String())
		}
	}
}

// Token strings are malleable: other strings carry the same signed token
// (here the signature's unused base64url bits flipped, and an ECDSA
// signature has a second valid form besides). A deny-list must key on
// jti, never on the token string; the package doc says so.
func TestTokenStringsAreMalleable(t *testing.T) {
	t.Parallel()
	a := newAuthServer(t, "ES256")
	v := a.verifier(t, nil)
	tok := a.mint(t, grant)
	// 64 signature bytes are 86 base64url characters: the last carries 2
	// unused bits.
	last := tok[len(tok)-1]
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	i := strings.IndexByte(alphabet, last)
	variant := tok[:len(tok)-1] + string(alphabet[i^1])
	c1, err1 := v.Verify(context.Background(), tok)
	c2, err2 := v.Verify(context.Background(), variant)
	if variant == tok || err1 != nil {
		t.Fatalf("setup: %v", err1)
	}
	if err2 != nil {
		// If the decoder ever becomes strict, this test and the doc's
		// warning should be revisited; the jti rule stands either way.
		t.Fatalf("the variant string was refused (%v): update the malleability note", err2)
	}
	if c1.ID != c2.ID {
		t.Fatalf("two strings of one token carry different jti: %s, %s", c1.ID, c2.ID)
	}
}
