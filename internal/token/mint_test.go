package token_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/typeward/typeward/internal/keys"
	"github.com/typeward/typeward/internal/store/memory"
	"github.com/typeward/typeward/internal/token"
	"github.com/typeward/typeward/verify"
)

var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func newKeyring(t testing.TB, alg keys.Alg) *keys.Keyring {
	t.Helper()
	kek, err := keys.GenerateKEK()
	if err != nil {
		t.Fatal(err)
	}
	k, err := keys.New(context.Background(), keys.Config{Store: memory.NewKeys(), KEK: kek, Alg: alg, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func newMinter(t testing.TB, signers token.Signers) *token.Minter {
	t.Helper()
	m, err := token.NewMinter(token.Config{
		Issuer: "https://as.example.com", TTL: 5 * time.Minute, Signers: signers,
		Now: func() time.Time { return now.Add(500 * time.Millisecond) },
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var pipeline = token.Grant{
	ClientID: "client-1",
	Audience: "https://router.example.com/mcp",
	Tools:    []string{"db_query", "transform_csv", "email_send"},
	Scopes:   []string{"typeward:admin"},
	Details: []verify.AuthorizationDetail{{
		Type:   verify.DetailType,
		Digest: "sha256:abc",
		Tools: []verify.ToolRef{
			{Name: "db_query", Version: 1, Digest: "sha256:q"},
			{Name: "transform_csv", Version: 1, Digest: "sha256:t"},
			{Name: "email_send", Version: 2, Digest: "sha256:e"},
		},
		Edges: []verify.Edge{{From: "q", To: "csv"}, {From: "csv", To: "mail"}},
	}},
}

func segment(t *testing.T, tok string, i int) map[string]any {
	t.Helper()
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		t.Fatalf("token has %d segments", len(parts))
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[i])
	if err != nil {
		t.Fatalf("segment %d: %v", i, err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("segment %d: %v", i, err)
	}
	return out
}

func TestMintClaims(t *testing.T) {
	for _, alg := range []keys.Alg{keys.ES256, keys.EdDSA} {
		t.Run(string(alg), func(t *testing.T) {
			ring := newKeyring(t, alg)
			signer, _ := ring.Signer()
			minted, err := newMinter(t, ring).Mint(pipeline)
			if err != nil {
				t.Fatal(err)
			}

			header := segment(t, minted.Token, 0)
			wantHeader := map[string]any{"alg": string(alg), "kid": signer.KID, "typ": "at+jwt"}
			if h, _ := json.Marshal(header); string(h) != mustJSON(wantHeader) {
				t.Errorf("header %s, want %s", h, mustJSON(wantHeader))
			}

			claims := segment(t, minted.Token, 1)
			jti, _ := claims["jti"].(string)
			if b, err := base64.RawURLEncoding.DecodeString(jti); err != nil || len(b) < 16 {
				t.Errorf("jti %q is not 128 random bits", jti)
			}
			delete(claims, "jti")
			want := `{"aud":"https://router.example.com/mcp",` +
				`"authorization_details":[{"digest":"sha256:abc","edges":[{"from":"q","to":"csv"},{"from":"csv","to":"mail"}],` +
				`"tools":[{"digest":"sha256:q","name":"db_query","version":1},{"digest":"sha256:t","name":"transform_csv","version":1},{"digest":"sha256:e","name":"email_send","version":2}],` +
				`"type":"mcp_composition"}],` +
				`"client_id":"client-1","exp":1772366700,"iat":1772366400,"iss":"https://as.example.com",` +
				`"mcp_tools":["db_query","transform_csv","email_send"],"nbf":1772366400,` +
				`"scope":"mcp:tool:db_query mcp:tool:transform_csv mcp:tool:email_send typeward:admin","sub":"client-1"}`
			if got := mustJSON(claims); got != want {
				t.Errorf("claims\n got %s\nwant %s", got, want)
			}
			if minted.Claims.ID != jti || !minted.Claims.ExpiresAt.Equal(now.Add(5*time.Minute)) {
				t.Errorf("Minted.Claims jti %q exp %v; want %q and %v", minted.Claims.ID, minted.Claims.ExpiresAt, jti, now.Add(5*time.Minute))
			}

			// An independent verifier (go-jose) accepts the signature with the
			// published key alone.
			jws, err := jose.ParseSignedCompact(minted.Token, []jose.SignatureAlgorithm{jose.ES256, jose.EdDSA})
			if err != nil {
				t.Fatal(err)
			}
			var set jose.JSONWebKeySet
			if err := json.Unmarshal(ring.JWKS().Body, &set); err != nil {
				t.Fatal(err)
			}
			published := set.Key(jws.Signatures[0].Header.KeyID)
			if len(published) != 1 {
				t.Fatalf("kid %s is not in the JWKS", jws.Signatures[0].Header.KeyID)
			}
			if _, err := jws.Verify(published[0]); err != nil {
				t.Errorf("go-jose does not verify the token: %v", err)
			}
		})
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func TestJTIsAreUnique(t *testing.T) {
	m := newMinter(t, newKeyring(t, keys.ES256))
	seen := map[string]bool{}
	for range 200 {
		minted, err := m.Mint(pipeline)
		if err != nil {
			t.Fatal(err)
		}
		if seen[minted.Claims.ID] {
			t.Fatalf("jti %s repeated", minted.Claims.ID)
		}
		seen[minted.Claims.ID] = true
	}
}

func TestScope(t *testing.T) {
	tests := []struct {
		tools, other, want []string
	}{
		{nil, nil, []string{}},
		{[]string{"a", "b"}, nil, []string{"mcp:tool:a", "mcp:tool:b"}},
		{nil, []string{"typeward:admin"}, []string{"typeward:admin"}},
		{[]string{"a", "a"}, []string{"mcp:tool:a", "x", "x"}, []string{"mcp:tool:a", "x"}},
	}
	for _, tc := range tests {
		if got := token.Scope(tc.tools, tc.other); !slices.Equal(got, tc.want) {
			t.Errorf("Scope(%v, %v) = %v, want %v", tc.tools, tc.other, got, tc.want)
		}
	}
}

// An admin token without tools has no mcp_tools nor authorization_details.
func TestMintWithoutComposition(t *testing.T) {
	m := newMinter(t, newKeyring(t, keys.ES256))
	minted, err := m.Mint(token.Grant{ClientID: "admin", Audience: "https://as.example.com", Scopes: []string{"typeward:admin"}})
	if err != nil {
		t.Fatal(err)
	}
	claims := segment(t, minted.Token, 1)
	for _, absent := range []string{"mcp_tools", "authorization_details"} {
		if _, ok := claims[absent]; ok {
			t.Errorf("claim %s present in an admin token", absent)
		}
	}
	if claims["scope"] != "typeward:admin" {
		t.Errorf("scope %v", claims["scope"])
	}
}

type noSigner struct{}

func (noSigner) Signer() (*keys.Signer, error) { return nil, keys.ErrNoSigner }

func TestMintRefused(t *testing.T) {
	m := newMinter(t, newKeyring(t, keys.ES256))
	tests := []struct {
		name string
		m    *token.Minter
		g    token.Grant
		want string
	}{
		{"no client", m, token.Grant{Audience: "x"}, "needs a client id and an audience"},
		{"no audience", m, token.Grant{ClientID: "c"}, "needs a client id and an audience"},
		{"no signing key", newMinter(t, noSigner{}), pipeline, keys.ErrNoSigner.Error()},
	}
	for _, tc := range tests {
		if _, err := tc.m.Mint(tc.g); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Mint = %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
	if _, err := token.NewMinter(token.Config{Issuer: "x", Signers: noSigner{}}); err == nil {
		t.Error("NewMinter accepted a zero TTL")
	}
	if _, err := newMinter(t, noSigner{}).Mint(pipeline); !errors.Is(err, keys.ErrNoSigner) {
		t.Errorf("Mint without a signer = %v, want ErrNoSigner", err)
	}
}

// After a rotation the header names the new key.
func TestMintFollowsRotation(t *testing.T) {
	ring := newKeyring(t, keys.ES256)
	m := newMinter(t, ring)
	first, _ := m.Mint(pipeline)
	next, err := ring.Rotate(context.Background(), keys.RotateOptions{Emergency: true, Alg: keys.EdDSA})
	if err != nil {
		t.Fatal(err)
	}
	second, _ := m.Mint(pipeline)
	h1, h2 := segment(t, first.Token, 0), segment(t, second.Token, 0)
	if h1["kid"] == h2["kid"] || h2["kid"] != next.KID || h2["alg"] != "EdDSA" {
		t.Errorf("headers %v then %v; want the second to name %s (EdDSA)", h1, h2, next.KID)
	}
}

func BenchmarkMint(b *testing.B) {
	for _, alg := range []keys.Alg{keys.ES256, keys.EdDSA} {
		b.Run(string(alg), func(b *testing.B) {
			m := newMinter(b, newKeyring(b, alg))
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := m.Mint(pipeline); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// What typeward mints, package verify (what routers run) accepts with the
// claims minted, for each signing algorithm; verify's own tests sign their
// tokens without typeward's keyring, its module standing alone.
func TestMintedTokensVerify(t *testing.T) {
	for _, alg := range []keys.Alg{keys.ES256, keys.EdDSA} {
		t.Run(string(alg), func(t *testing.T) {
			ring := newKeyring(t, alg)
			minted, err := newMinter(t, ring).Mint(pipeline)
			if err != nil {
				t.Fatal(err)
			}
			v, err := verify.New(verify.Config{Issuer: "https://as.example.com", Audience: pipeline.Audience, Keys: ring,
				Now: func() time.Time { return now.Add(time.Minute) }})
			if err != nil {
				t.Fatal(err)
			}
			c, err := v.Verify(context.Background(), minted.Token)
			if err != nil {
				t.Fatal(err)
			}
			want := minted.Claims
			if c.ID != want.ID || c.ClientID != "client-1" || !c.IssuedAt.Equal(want.IssuedAt) || !c.ExpiresAt.Equal(want.ExpiresAt) ||
				!slices.Equal(c.Tools, pipeline.Tools) || !slices.Equal(c.Scope, want.Scope) || len(c.AuthorizationDetails) != 1 ||
				!slices.Equal(c.AuthorizationDetails[0].Tools, pipeline.Details[0].Tools) {
				t.Errorf("verified claims %+v, minted %+v", c, want)
			}
		})
	}
}
