package dpop_test

import (
	"context"
	"crypto/ecdsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/typeward/typeward/verify/dpop"
	"github.com/typeward/typeward/verify/dpop/dpoptest"
)

var (
	now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	b64 = base64.RawURLEncoding.EncodeToString
)

const target = "https://router.example.com/mcp"

func newChecker(t testing.TB, clock func() time.Time) (*dpop.Checker, *dpop.ReplayCache) {
	t.Helper()
	replay := dpop.NewReplayCache(0, dpop.DefaultMaxAge+dpop.DefaultLeeway, clock)
	c, err := dpop.New(dpop.Config{Replay: replay, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	return c, replay
}

func TestCheckValid(t *testing.T) {
	for _, alg := range dpop.DefaultAlgorithms() {
		t.Run(alg, func(t *testing.T) {
			cl := dpoptest.NewClient(t, alg)
			ch, _ := newChecker(t, func() time.Time { return now })
			// The token endpoint: no token, no ath.
			p, err := ch.Check(context.Background(), cl.Proof(t, "POST", "https://as.example.com/token", "", now, nil),
				dpop.Request{Method: "POST", URL: "https://as.example.com/token"})
			if err != nil {
				t.Fatal(err)
			}
			if p.JKT != cl.JKT || p.ID == "" || !p.IssuedAt.Equal(now) {
				t.Errorf("proof %+v, want jkt %s", p, cl.JKT)
			}
			// A resource server: ath, the token's key; the URL compared
			// normalised and without query.
			_, err = ch.Check(context.Background(), cl.Proof(t, "POST", "HTTPS://Router.Example.com:443/mcp", "tok", now.Add(-time.Minute), nil),
				dpop.Request{Method: "POST", URL: target + "?session=1", AccessToken: "tok", JKT: cl.JKT})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Every bad proof of issue 19 is refused, each for its own reason.
func TestCheckRefuses(t *testing.T) {
	cl, other := dpoptest.NewClient(t, "ES256"), dpoptest.NewClient(t, "ES256")
	hmacKey := []byte("a shared secret of thirty-two by")
	withPrivate := func(h, _ map[string]any) {
		k := cl.Key.(*ecdsa.PrivateKey)
		d, _ := k.Bytes()
		priv := map[string]any{"d": b64(d)}
		for n, v := range cl.JWK {
			priv[n] = v
		}
		h["jwk"] = priv
	}
	signed := func(method jwt.SigningMethod, key any) string {
		return cl.Sign(t, method, key, map[string]any{"jti": "j-signed", "htm": "POST", "htu": target, "iat": now.Unix(), "ath": dpop.TokenHash("tok")})
	}
	good := func(edit func(h, p map[string]any)) string { return cl.Proof(t, "POST", target, "tok", now, edit) }
	req := dpop.Request{Method: "POST", URL: target, AccessToken: "tok", JKT: cl.JKT}
	tests := []struct {
		name  string
		proof string
		req   dpop.Request
		want  error
	}{
		{"alg none", signed(jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType), req, dpop.ErrAlgorithm},
		{"HS256", signed(jwt.SigningMethodHS256, hmacKey), req, dpop.ErrAlgorithm},
		{"a private key in jwk", good(withPrivate), req, dpop.ErrKey},
		{"a symmetric jwk", good(func(h, _ map[string]any) { h["jwk"] = map[string]any{"kty": "oct", "k": "c2VjcmV0"} }), req, dpop.ErrKey},
		{"no jwk", good(func(h, _ map[string]any) { delete(h, "jwk") }), req, dpop.ErrKey},
		{"jwk of another key than cnf.jkt", other.Proof(t, "POST", target, "tok", now, nil), req, dpop.ErrKeyMismatch},
		{"jwk not the signing key", good(func(h, _ map[string]any) { h["jwk"] = other.JWK }), req, dpop.ErrSignature},
		{"another htm", cl.Proof(t, "GET", target, "tok", now, nil), req, dpop.ErrMethod},
		{"another htu", cl.Proof(t, "POST", "https://router.example.com/other", "tok", now, nil), req, dpop.ErrURL},
		{"another host", cl.Proof(t, "POST", "https://evil.example.com/mcp", "tok", now, nil), req, dpop.ErrURL},
		{"http for https", cl.Proof(t, "POST", "http://router.example.com/mcp", "tok", now, nil), req, dpop.ErrURL},
		{"missing ath", cl.Proof(t, "POST", target, "", now, nil), req, dpop.ErrTokenHash},
		{"wrong ath", good(func(_, p map[string]any) { p["ath"] = dpop.TokenHash("other") }), req, dpop.ErrTokenHash},
		{"a proof for another token", cl.Proof(t, "POST", target, "another-token", now, nil), req, dpop.ErrTokenHash},
		{"iat an hour old", cl.Proof(t, "POST", target, "tok", now.Add(-time.Hour), nil), req, dpop.ErrIssuedAt},
		{"iat in the future", cl.Proof(t, "POST", target, "tok", now.Add(5*time.Minute), nil), req, dpop.ErrIssuedAt},
		{"iat not a number", good(func(_, p map[string]any) { p["iat"] = "now" }), req, dpop.ErrMalformed},
		{"no jti", good(func(_, p map[string]any) { delete(p, "jti") }), req, dpop.ErrMalformed},
		{"jti too long", good(func(_, p map[string]any) { p["jti"] = strings.Repeat("j", dpop.MaxJTILength+1) }), req, dpop.ErrMalformed},
		{"typ JWT", good(func(h, _ map[string]any) { h["typ"] = "JWT" }), req, dpop.ErrType},
		{"typ at+jwt (an access token as proof)", good(func(h, _ map[string]any) { h["typ"] = "at+jwt" }), req, dpop.ErrType},
		{"crit", good(func(h, _ map[string]any) { h["crit"] = []string{"exp"} }), req, dpop.ErrMalformed},
		{"typ twice, case-folded", good(func(h, _ map[string]any) { h["TYP"] = "JWT" }), req, dpop.ErrMalformed},
		{"EdDSA header on an EC key", good(func(h, _ map[string]any) { h["alg"] = "EdDSA" }), req, dpop.ErrAlgorithm},
		{"oversized", good(func(_, p map[string]any) { p["pad"] = strings.Repeat("x", dpop.MaxProofSize) }), req, dpop.ErrMalformed},
		{"not a JWS", "a.b", req, dpop.ErrMalformed},
		{"the signature altered", good(nil)[:len(good(nil))-4] + "AAAA", req, dpop.ErrSignature},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ch, replay := newChecker(t, func() time.Time { return now })
			p, err := ch.Check(context.Background(), tc.proof, tc.req)
			if !errors.Is(err, tc.want) || !errors.Is(err, dpop.ErrInvalidProof) || p.JKT != "" {
				t.Fatalf("Check = %+v, %v; want %v", p, err, tc.want)
			}
			if replay.Len() != 0 {
				t.Error("a refused proof was recorded")
			}
		})
	}
}

// A proof is accepted once; the replay cache forgets it once it could no
// longer be accepted anyway, and holds a bounded number.
func TestReplay(t *testing.T) {
	clock := now
	tick := func() time.Time { return clock }
	ch, replay := newChecker(t, tick)
	cl := dpoptest.NewClient(t, "EdDSA")
	req := dpop.Request{Method: "POST", URL: target, AccessToken: "tok"}
	p := cl.Proof(t, "POST", target, "tok", now, nil)
	if _, err := ch.Check(context.Background(), p, req); err != nil {
		t.Fatal(err)
	}
	if _, err := ch.Check(context.Background(), p, req); !errors.Is(err, dpop.ErrReplayed) {
		t.Fatalf("replayed: %v", err)
	}
	// The same jti under another key is another proof.
	other := dpoptest.NewClient(t, "EdDSA")
	if _, err := ch.Check(context.Background(), other.Proof(t, "POST", target, "tok", now, func(_, c map[string]any) { c["jti"] = jtiOf(t, p) }), req); err != nil {
		t.Fatalf("the same jti from another key: %v", err)
	}
	// Past the window the proof is too old, and the cache lets go of it.
	clock = now.Add(2 * ch.Window())
	if _, err := ch.Check(context.Background(), p, req); !errors.Is(err, dpop.ErrIssuedAt) {
		t.Fatalf("past the window: %v", err)
	}
	if _, err := ch.Check(context.Background(), cl.Proof(t, "POST", target, "tok", clock, nil), req); err != nil {
		t.Fatal(err)
	}
	if n := replay.Len(); n != 1 {
		t.Errorf("the cache holds %d proofs two windows later, want 1", n)
	}

	small := dpop.NewReplayCache(2, time.Minute, tick)
	for i, jti := range []string{"a", "b", "c"} {
		err := small.Claim(context.Background(), "k", jti, clock.Add(time.Minute))
		if (i < 2) != (err == nil) || (i == 2 && !errors.Is(err, dpop.ErrReplayCacheFull)) {
			t.Errorf("claim %d: %v", i, err)
		}
	}
	ch2, err := dpop.New(dpop.Config{Replay: small, Now: tick})
	if err != nil {
		t.Fatal(err)
	}
	_, err = ch2.Check(context.Background(), cl.Proof(t, "POST", target, "tok", clock, nil), req)
	if !errors.Is(err, dpop.ErrReplayCacheFull) || errors.Is(err, dpop.ErrInvalidProof) {
		t.Errorf("a full cache: %v; want ErrReplayCacheFull, not the proof's fault", err)
	}
}

func TestNewRefuses(t *testing.T) {
	replay := dpop.NewReplayCache(0, time.Minute, nil)
	for _, tc := range []struct {
		cfg  dpop.Config
		want string
	}{
		{dpop.Config{}, "Replay is required"},
		{dpop.Config{Replay: replay, Algorithms: []string{"HS256"}}, `algorithm "HS256" is not supported`},
		{dpop.Config{Replay: replay, MaxAge: time.Hour}, "MaxAge and Leeway"},
		{dpop.Config{Replay: replay, Leeway: -1}, "MaxAge and Leeway"},
	} {
		if _, err := dpop.New(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v) = %v, want %q", tc.cfg, err, tc.want)
		}
	}
}

func jtiOf(t testing.TB, proof string) string {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(strings.Split(proof, ".")[1])
	if err != nil {
		t.Fatal(err)
	}
	var c struct{ Jti string }
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	return c.Jti
}

// FuzzCheck: no proof makes Check panic, and an accepted proof names its
// key and jti.
func FuzzCheck(f *testing.F) {
	cl := dpoptest.NewClient(f, "ES256")
	good := cl.Proof(f, "POST", target, "tok", now, nil)
	for _, seed := range []string{good, good[:len(good)-5], "", "..", "e30.e30.", strings.Repeat("eyJ9.", 3)} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, proof string) {
		ch, _ := newChecker(t, func() time.Time { return now })
		p, err := ch.Check(context.Background(), proof, dpop.Request{Method: "POST", URL: target, AccessToken: "tok"})
		if err == nil && (p.JKT == "" || p.ID == "") {
			t.Fatalf("accepted %+v", p)
		}
		if err != nil && !errors.Is(err, dpop.ErrInvalidProof) {
			t.Fatalf("an error not of the proof: %v", err)
		}
	})
}
