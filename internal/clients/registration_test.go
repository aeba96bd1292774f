package clients_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
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
				TokenEndpointAuthMethod: "client_secret_jwt",
				JWKS:                    goodJWKS,
				AllowedTools:            []string{"git*", "db_query", "db_query"},
				AllowedScopes:           []string{"mcp:tool:db_query", "bad scope"},
			},
			[]clients.Problem{
				{"/client_name", "is required"},
				{"/token_endpoint_auth_method", "must be one of client_secret_basic, client_secret_post, private_key_jwt, none"},
				{"/jwks", "is only used with private_key_jwt"},
				{"/allowed_tools/0", `"git*" has "*" other than as "*" or a trailing "/*"`},
				{"/allowed_tools/2", `"db_query" is listed twice`},
				{"/allowed_audiences", "is required when allowed_tools is set (a tool token names its resource)"},
				{"/allowed_scopes/0", `"mcp:tool:db_query" is a tool scope; grant tools through allowed_tools`},
				{"/allowed_scopes/1", `"bad scope" is not an RFC 6749 scope-token`},
			},
		},
		{"public MCP host", clients.Registration{ClientName: "host", TokenEndpointAuthMethod: clients.None,
			RedirectURIs: []string{"http://127.0.0.1/cb", "http://[::1]:8080/cb", "http://localhost/cb", "https://host.example/cb?x=1"},
			GrantTypes:   []string{clients.GrantAuthorizationCode, clients.GrantRefreshToken}, AllowedTools: []string{"*"}, AllowedAudiences: auds}, nil},
		{"confidential host with every grant", clients.Registration{ClientName: "host", RedirectURIs: []string{"https://host.example/cb"},
			GrantTypes: clients.GrantTypes(), AllowedTools: tools, AllowedAudiences: auds}, nil},
		{
			"bad redirect URIs",
			clients.Registration{ClientName: "host", TokenEndpointAuthMethod: clients.None, AllowedTools: tools, AllowedAudiences: auds,
				RedirectURIs: []string{
					"http://host.example/cb", "https://host.example/cb#frag", "com.example.app:/cb", "/cb",
					"https://user@host.example/cb", "http://127.0.0.2/cb", "javascript:alert(1)", "https://host.example/cb?x=1", "https://host.example/cb?x=1",
					"https://" + strings.Repeat("a", 2048) + ".example/",
				}},
			[]clients.Problem{
				{"/redirect_uris/0", `"http://host.example/cb" is http on a host that is not loopback: use https (http only for 127.0.0.1, [::1] or localhost)`},
				{"/redirect_uris/1", `"https://host.example/cb#frag" has a fragment, which a redirect URI may not have`},
				{"/redirect_uris/2", `"com.example.app:/cb" is not an absolute URI with a host`},
				{"/redirect_uris/3", `"/cb" is not an absolute URI with a host`},
				{"/redirect_uris/4", `"https://user@host.example/cb" has user information`},
				{"/redirect_uris/5", `"http://127.0.0.2/cb" is http on a host that is not loopback: use https (http only for 127.0.0.1, [::1] or localhost)`},
				{"/redirect_uris/6", `"javascript:alert(1)" is not an absolute URI with a host`},
				{"/redirect_uris/8", `"https://host.example/cb?x=1" is listed twice`},
				{"/redirect_uris/9", `"https://` + strings.Repeat("a", 2048) + `.example/" is longer than 2048 characters`},
			},
		},
		{
			"redirect URIs the consent page would show as another host",
			clients.Registration{ClientName: "host", TokenEndpointAuthMethod: clients.None, AllowedTools: tools, AllowedAudiences: auds,
				RedirectURIs: []string{"https://bank.example\u202e.evil.example/cb", "https://evil.example;frame-ancestors/cb",
					"https://[fe80::1%25en0]/cb", "https://host.example/\u202ecb", "https://host.example/cb?x= y"}},
			[]clients.Problem{
				{"/redirect_uris/0", `"https://bank.example\u202e.evil.example/cb" holds '\u202e' at byte 20: a URI is printable ASCII (percent-encode the rest)`},
				{"/redirect_uris/1", `"https://evil.example;frame-ancestors/cb" has host "evil.example;frame-ancestors", which is neither a DNS name nor an IP address`},
				{"/redirect_uris/2", `"https://[fe80::1%25en0]/cb" has host "fe80::1%en0", which is neither a DNS name nor an IP address`},
				{"/redirect_uris/3", `"https://host.example/\u202ecb" holds '\u202e' at byte 21: a URI is printable ASCII (percent-encode the rest)`},
				{"/redirect_uris/4", `"https://host.example/cb?x= y" holds ' ' at byte 26: a URI is printable ASCII (percent-encode the rest)`},
			},
		},
		{
			"too many redirect URIs",
			clients.Registration{ClientName: "host", AllowedTools: tools, AllowedAudiences: auds, RedirectURIs: manyRedirects(21)},
			[]clients.Problem{{"/redirect_uris", "has more than 20 entries"}},
		},
		{
			"grant types that do not fit",
			clients.Registration{ClientName: "host", TokenEndpointAuthMethod: clients.None, AllowedTools: tools, AllowedAudiences: auds,
				GrantTypes: []string{clients.GrantClientCredentials, clients.GrantRefreshToken, "implicit", clients.GrantRefreshToken}},
			[]clients.Problem{
				{"/grant_types/2", `"implicit" is not one of client_credentials, urn:openid:params:grant-type:ciba, authorization_code, refresh_token`},
				{"/grant_types/3", `"refresh_token" is listed twice`},
				{"/grant_types", "refresh_token needs authorization_code: refresh tokens come only from a person's consent"},
				{"/grant_types/0", `"client_credentials" needs client authentication: a public client (none) has only authorization_code and refresh_token`},
				{"/grant_types/2", `"implicit" needs client authentication: a public client (none) has only authorization_code and refresh_token`},
			},
		},
		{
			"authorization_code without redirect_uris",
			clients.Registration{ClientName: "host", TokenEndpointAuthMethod: clients.None, AllowedTools: tools, AllowedAudiences: auds},
			[]clients.Problem{{"/redirect_uris", "is required for authorization_code"}},
		},
		{
			"redirect_uris without authorization_code",
			clients.Registration{ClientName: "etl", AllowedTools: tools, AllowedAudiences: auds, GrantTypes: []string{clients.GrantClientCredentials},
				RedirectURIs: []string{"https://host.example/cb"}},
			[]clients.Problem{{"/redirect_uris", "is only used with the authorization_code grant"}},
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
			"a name a bidi override turns around",
			clients.Registration{ClientName: "Desk Host \u202etxt.exe", AllowedScopes: []string{clients.AdminScope}},
			[]clients.Problem{{"/client_name", "contains an invisible formatting character (a bidi override, a zero-width or line separator)"}},
		},
		{
			"a zero-width joiner",
			clients.Registration{ClientName: "Desk\u200dHost", AllowedScopes: []string{clients.AdminScope}},
			[]clients.Problem{{"/client_name", "contains an invisible formatting character (a bidi override, a zero-width or line separator)"}},
		},
		{"a host's registered scope", clients.Registration{ClientName: "host", TokenEndpointAuthMethod: clients.None,
			RedirectURIs: []string{"http://127.0.0.1/cb"}, AllowedTools: []string{"github/*", "db_query"}, AllowedAudiences: auds,
			AllowedScopes: []string{"mcp:resources", "mcp:prompts:review", "mcp:completions"},
			Scope:         "mcp:composition:nightly mcp:tool:db_query mcp:tool:github/search offline_access mcp:resources mcp:resources:docs:// mcp:prompts:review mcp:completions"}, nil},
		{
			"registered scopes the authorization endpoint would refuse",
			clients.Registration{ClientName: "host", TokenEndpointAuthMethod: clients.None, RedirectURIs: []string{"http://127.0.0.1/cb"},
				AllowedTools: []string{"github/*"}, AllowedAudiences: auds, AllowedScopes: []string{"mcp:prompts:review"},
				Scope: "mcp:tool:db_query mcp:tool: mcp:composition: openid mcp:resources mcp:prompts:other offline_access offline_access  mcp:tool:\"x\" " + strings.Repeat("a", 201)},
			[]clients.Problem{
				{"/scope", `value 0 "mcp:tool:db_query" names a tool allowed_tools does not admit`},
				{"/scope", `value 1 "mcp:tool:" names no tool`},
				{"/scope", `value 2 "mcp:composition:" names no composition`},
				{"/scope", `value 3 "openid" is not mcp:composition:NAME, mcp:tool:NAME, offline_access or one of allowed_scopes (mcp:resources, mcp:prompts, mcp:completions and their narrowings among them)`},
				{"/scope", `value 4 "mcp:resources" is not mcp:composition:NAME, mcp:tool:NAME, offline_access or one of allowed_scopes (mcp:resources, mcp:prompts, mcp:completions and their narrowings among them)`},
				{"/scope", `value 5 "mcp:prompts:other" is not mcp:composition:NAME, mcp:tool:NAME, offline_access or one of allowed_scopes (mcp:resources, mcp:prompts, mcp:completions and their narrowings among them)`},
				{"/scope", `value 7 "offline_access" is listed twice`},
				{"/scope", `value 8 "" is empty: values are separated by single spaces, with none leading or trailing`},
				{"/scope", `value 9 "mcp:tool:\"x\"" is not an RFC 6749 scope-token`},
				{"/scope", `value 10 "` + strings.Repeat("a", 200) + `…" is longer than 200 characters`},
			},
		},
		{
			"too many registered scope values",
			clients.Registration{ClientName: "host", TokenEndpointAuthMethod: clients.None, RedirectURIs: []string{"http://127.0.0.1/cb"},
				AllowedTools: []string{"*"}, Scope: strings.TrimSpace(strings.Repeat("offline_access ", 51))},
			[]clients.Problem{{"/scope", "has more than 50 values or 10050 characters"}},
		},
		{
			"a registered scope on a machine client",
			clients.Registration{ClientName: "etl", AllowedTools: tools, AllowedAudiences: auds, Scope: "mcp:tool:db_query"},
			[]clients.Problem{{"/scope", "is only used with the authorization_code grant (what the authorization endpoint asks for when a request names no scope)"}},
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

func manyRedirects(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("https://host.example/cb%d", i)
	}
	return out
}

// The defaults of RFC 7591 §2: authorization_code when there are redirect
// URIs (or the client is public), a machine client's grants otherwise.
func TestGrantTypeDefaults(t *testing.T) {
	for _, tc := range []struct {
		reg  clients.Registration
		want []string
	}{
		{clients.Registration{ClientName: "etl", AllowedScopes: []string{"x"}}, []string{clients.GrantClientCredentials, clients.GrantCIBA}},
		{clients.Registration{ClientName: "h", AllowedScopes: []string{"x"}, RedirectURIs: []string{"https://h.example/cb"}}, []string{clients.GrantAuthorizationCode}},
		{clients.Registration{ClientName: "h", AllowedScopes: []string{"x"}, TokenEndpointAuthMethod: clients.None, RedirectURIs: []string{"https://h.example/cb"}}, []string{clients.GrantAuthorizationCode}},
	} {
		reg := tc.reg
		if err := reg.Validate(); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(reg.GrantTypes, tc.want) {
			t.Errorf("%+v: grant types %v, want %v", tc.reg, reg.GrantTypes, tc.want)
		}
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
	f.Add([]byte(`{"client_name":"h","token_endpoint_auth_method":"none","redirect_uris":["http://127.0.0.1/cb"],"allowed_tools":["gh/*"],` +
		`"allowed_scopes":["mcp:resources"],"scope":"mcp:tool:gh/a mcp:composition:x offline_access mcp:resources:docs://"}`))
	f.Add([]byte(`{"client_name":"h","token_endpoint_auth_method":"none","redirect_uris":["http://127.0.0.1/cb"],"allowed_tools":["*"],"scope":" mcp:tool:a  "}`))
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
		c, _, err := clients.NewClient(reg, h, time.Now())
		if err != nil {
			t.Fatalf("valid registration does not build: %v", err)
		}
		// An accepted scope is its values exactly, none empty, none twice.
		if strings.Join(c.Scope, " ") != reg.Scope || slices.Contains(c.Scope, "") || len(slices.Compact(slices.Sorted(slices.Values(c.Scope)))) != len(c.Scope) {
			t.Fatalf("scope %q kept as %q", reg.Scope, c.Scope)
		}
	})
}

// The registered scope is kept value by value and shown as RFC 7591's
// space-separated string.
func TestRegisteredScopeIsKept(t *testing.T) {
	c, _, err := clients.NewClient(clients.Registration{ClientName: "host", TokenEndpointAuthMethod: clients.None,
		RedirectURIs: []string{"http://127.0.0.1/cb"}, AllowedTools: []string{"*"},
		Scope: "mcp:composition:nightly offline_access"}, testHasher(t), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.Scope, []string{"mcp:composition:nightly", "offline_access"}) || clients.ViewOf(c).Scope != "mcp:composition:nightly offline_access" {
		t.Errorf("scope %q, view %q", c.Scope, clients.ViewOf(c).Scope)
	}
	if c, _, _ := clients.NewClient(clients.Registration{ClientName: "host", TokenEndpointAuthMethod: clients.None,
		RedirectURIs: []string{"http://127.0.0.1/cb"}, AllowedTools: []string{"*"}}, testHasher(t), time.Now()); c.Scope != nil {
		t.Errorf("no scope registered: %q", c.Scope)
	}
}
