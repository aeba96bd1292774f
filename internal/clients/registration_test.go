package clients_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/grading"
	"github.com/typeward/typeward/internal/store/memory"
)

func problems(err error) []clients.Problem {
	var ve *clients.ValidationError
	if errors.As(err, &ve) {
		return ve.Problems
	}
	return nil
}

func TestRegistrationValidate(t *testing.T) {
	k := loadTestKeys()
	goodJWKS := jwksJSON(t, jwk(k.ec, "ec"), jwk(k.ed, "ed"), jwk(k.rsa, "rsa"))
	tools := []string{"github/*", "db_query"}
	auds := []string{"https://router.example.com/mcp"}

	for _, tc := range []struct {
		name string
		reg  clients.Registration
		want []clients.Problem
	}{
		{"secret client, method defaulted", clients.Registration{ClientName: "etl", AllowedTools: tools, AllowedAudiences: auds}, nil},
		{"jwt client", clients.Registration{ClientName: "etl", TokenEndpointAuthMethod: clients.PrivateKeyJWT, JWKS: goodJWKS, AllowedTools: []string{"*"}, AllowedAudiences: auds}, nil},
		{"scope-only admin client", clients.Registration{ClientName: "ops", AllowedScopes: []string{clients.AdminScope}}, nil},
		{"explicit null jwks on a secret client", clients.Registration{ClientName: "etl", JWKS: json.RawMessage("null"), AllowedTools: tools, AllowedAudiences: auds}, nil},
		{
			"everything wrong at once",
			clients.Registration{
				TokenEndpointAuthMethod: "none",
				JWKS:                    goodJWKS,
				AllowedTools:            []string{"git*", "db_query", "db_query"},
				AllowedScopes:           []string{"mcp:tool:db_query", "bad scope"},
			},
			[]clients.Problem{
				{"/client_name", "is required"},
				{"/token_endpoint_auth_method", "must be one of client_secret_basic, client_secret_post, private_key_jwt"},
				{"/jwks", "is only used with private_key_jwt"},
				{"/allowed_tools/0", `"git*" has "*" other than as "*" or a trailing "/*"`},
				{"/allowed_tools/2", `"db_query" is listed twice`},
				{"/allowed_audiences", "is required when allowed_tools is set (a tool token names its resource)"},
				{"/allowed_scopes/0", `"mcp:tool:db_query" is a tool scope; grant tools through allowed_tools`},
				{"/allowed_scopes/1", `"bad scope" is not an RFC 6749 scope-token`},
			},
		},
		{
			"unknown policies",
			clients.Registration{ClientName: "etl", AllowedTools: tools, AllowedAudiences: auds, Approval: "sometimes", Validation: "paranoid"},
			[]clients.Problem{{"/approval", "must be one of never, mutating, destructive, always"}, {"/validation", "must be one of lenient, strict"}},
		},
		{
			"nothing granted",
			clients.Registration{ClientName: "idle"},
			[]clients.Problem{{"/allowed_tools", "is required unless allowed_scopes grants something"}},
		},
		{
			"bad audiences",
			clients.Registration{ClientName: "etl", AllowedTools: tools, AllowedAudiences: []string{
				"router.example.com", "ftp://x.example/", "https://r.example/mcp#frag", "https://r.example/mcp", "https://r.example/mcp",
			}},
			[]clients.Problem{
				{"/allowed_audiences/0", `"router.example.com" is not an absolute http(s) URI`},
				{"/allowed_audiences/1", `"ftp://x.example/" is not an absolute http(s) URI`},
				{"/allowed_audiences/2", `"https://r.example/mcp#frag" has a fragment, which RFC 8707 forbids`},
				{"/allowed_audiences/4", `"https://r.example/mcp" is listed twice`},
			},
		},
		{
			"the issuer as an audience",
			clients.Registration{ClientName: "etl", AllowedTools: tools, Issuer: "https://as.example.com",
				AllowedAudiences: []string{"https://r.example/mcp", "https://as.example.com/"}},
			[]clients.Problem{{"/allowed_audiences/1", `"https://as.example.com/" is this server's issuer: tokens for typeward itself are not a client's to ask for`}},
		},
		{
			"bad names",
			clients.Registration{ClientName: "line\nbreak", AllowedScopes: []string{clients.AdminScope}},
			[]clients.Problem{{"/client_name", "contains a control character"}},
		},
		{
			"jwt client without jwks",
			clients.Registration{ClientName: "etl", TokenEndpointAuthMethod: clients.PrivateKeyJWT, AllowedScopes: []string{clients.AdminScope}},
			[]clients.Problem{{"/jwks", "is required for private_key_jwt"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := tc.reg
			err := reg.Validate()
			if got := problems(err); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("problems:\n got  %q\n want %q", got, tc.want)
			}
			if tc.want == nil && err != nil {
				t.Errorf("err = %v", err)
			}
			if tc.reg.TokenEndpointAuthMethod == "" && reg.TokenEndpointAuthMethod != clients.SecretBasic {
				t.Errorf("default method = %q", reg.TokenEndpointAuthMethod)
			}
		})
	}

	// The summary error names every problem.
	err := (&clients.Registration{}).Validate()
	if !strings.Contains(err.Error(), "/client_name is required; /allowed_tools is required") {
		t.Errorf("Error() = %q", err)
	}
}

func TestJWKSValidation(t *testing.T) {
	k := loadTestKeys()
	for _, tc := range []struct {
		name string
		jwks string
		want string
	}{
		{"private EC key", string(jwksJSON(t, jose.JSONWebKey{Key: k.ec, KeyID: "ec"})), `key 0 has private member "d": register the public key only`},
		{"symmetric key", `{"keys":[{"kty":"oct","k":"c2VjcmV0"}]}`, `key 0 has private member "k": register the public key only`},
		{"P-384", string(jwksJSON(t, jwk(k.ec384, "p384"))), "key 0 is an EC key not on P-256 (ES256 needs P-256)"},
		{"RSA 1024", string(jwksJSON(t, jwk(k.ed, "ok"), jwk(k.rsa1024, "small"))), "key 1 is a 1024-bit RSA key, need at least 2048"},
		{"encryption key", string(jwksJSON(t, jose.JSONWebKey{Key: k.ec.Public(), Use: "enc"})), `key 0 has use "enc", want "sig"`},
		{"alg contradicts key", string(jwksJSON(t, jose.JSONWebKey{Key: k.ec.Public(), Algorithm: "RS256"})), `key 0 has alg "RS256" but its key type signs ES256`},
		{"repeated kid", string(jwksJSON(t, jwk(k.ec, "same"), jwk(k.ed, "same"))), `key 1 repeats kid "same"`},
		{"not a set", `[{"kty":"EC"}]`, `is not a JWK Set object {"keys":[...]}`},
		{"empty set", `{"keys":[]}`, "has no keys"},
		{"garbage key", `{"keys":[{"kty":"EC","crv":"P-256","x":"AA","y":"AA"}]}`, "key 0 is not a valid JWK"},
		{"too many keys", `{"keys":[` + strings.Repeat(`{},`, 10) + `{}]}`, "has more than 10 keys"},
		{"too large", `{"keys":[],"pad":"` + strings.Repeat("x", 16<<10) + `"}`, "is larger than 16384 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := clients.Registration{ClientName: "c", TokenEndpointAuthMethod: clients.PrivateKeyJWT, JWKS: json.RawMessage(tc.jwks), AllowedScopes: []string{clients.AdminScope}}
			want := []clients.Problem{{"/jwks", tc.want}}
			if got := problems(reg.Validate()); !reflect.DeepEqual(got, want) {
				t.Errorf("problems = %q, want %q", got, want)
			}
		})
	}
}

func TestRegisterStoresOnlyTheHash(t *testing.T) {
	h := testHasher(t)
	store := memory.NewClients()
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	reg := clients.Registration{ClientName: "etl", TokenEndpointAuthMethod: clients.SecretPost, AllowedTools: []string{"db_query"}, AllowedAudiences: []string{"https://r.example/mcp"}}
	c, secret, err := clients.Register(context.Background(), store, h, reg, now)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := store.Get(context.Background(), c.ID)
	if err != nil || !h.Verify(c.ID, secret, stored.SecretHash) {
		t.Fatalf("stored client %+v does not verify its secret", stored)
	}
	if strings.Contains(string(stored.SecretHash), secret) || len(secret) != 43 {
		t.Errorf("secret %q / hash %x", secret, stored.SecretHash)
	}
	if stored.TokenEndpointAuthMethod != clients.SecretPost || stored.Name != "etl" || !stored.CreatedAt.Equal(now) || stored.JWKS != nil ||
		stored.Approval != clients.ApprovalNever || stored.Validation != grading.Lenient { // the defaults
		t.Errorf("stored %+v", stored)
	}

	// Invalid metadata stores nothing.
	if _, _, err := clients.Register(context.Background(), store, h, clients.Registration{}, now); problems(err) == nil {
		t.Errorf("err = %v, want a ValidationError", err)
	}
	if all, _ := store.List(context.Background()); len(all) != 1 {
		t.Errorf("store holds %d clients", len(all))
	}
}

func TestNewClientKeepsPublicJWKSOnly(t *testing.T) {
	k := loadTestKeys()
	var key map[string]any
	if err := json.Unmarshal(mustJSON(t, jwk(k.ed, "k1")), &key); err != nil {
		t.Fatal(err)
	}
	key["x-vendor"] = "ignored"
	raw := mustJSON(t, map[string]any{"keys": []any{key}})
	c, secret, err := clients.NewClient(clients.Registration{ClientName: "j", TokenEndpointAuthMethod: clients.PrivateKeyJWT, JWKS: raw, AllowedScopes: []string{clients.AdminScope}}, testHasher(t), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if secret != "" || c.SecretHash != nil {
		t.Errorf("a jwt client got a secret %q / hash %x", secret, c.SecretHash)
	}
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(c.JWKS, &set); err != nil || len(set.Keys) != 1 || set.Keys[0].KeyID != "k1" || !set.Keys[0].IsPublic() {
		t.Errorf("stored jwks %s: %v", c.JWKS, err)
	}
	if strings.Contains(string(c.JWKS), "x-vendor") {
		t.Errorf("stored jwks kept unknown members: %s", c.JWKS)
	}
}

// FuzzRegistration decodes arbitrary admin API bodies: validation never
// panics, and what it accepts builds a client.
func FuzzRegistration(f *testing.F) {
	k := loadTestKeys()
	f.Add([]byte(`{"client_name":"etl","allowed_tools":["github/*"],"allowed_audiences":["https://r.example/mcp"]}`))
	f.Add([]byte(`{"client_name":"j","token_endpoint_auth_method":"private_key_jwt","allowed_scopes":["typeward:admin"],"jwks":` +
		string(jwksJSON(f, jwk(k.ec, "ec"), jwk(k.ed, "ed"))) + `}`))
	f.Add([]byte(`{"client_name":"j","token_endpoint_auth_method":"private_key_jwt","allowed_scopes":["a"],"jwks":{"keys":[{"kty":"RSA","n":"AQAB","e":"AQAB"}]}}`))
	f.Add([]byte(`{"client_name":"","allowed_tools":["*","*"],"allowed_audiences":["#"]}`))
	h := testHasher(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		var reg clients.Registration
		if json.Unmarshal(body, &reg) != nil {
			return
		}
		err := reg.Validate()
		if err != nil {
			if len(problems(err)) == 0 {
				t.Fatalf("validation error without problems: %v", err)
			}
			return
		}
		if _, _, err := clients.NewClient(reg, h, time.Now()); err != nil {
			t.Fatalf("valid registration does not build: %v", err)
		}
	})
}
