package server_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/typeward/typeward/internal/server"
	"github.com/typeward/typeward/internal/verdict"
)

// registered is a client made through the admin API.
type registered struct {
	ID     string `json:"client_id"`
	Secret string `json:"client_secret"`
}

func (h *harness) createClient(admin string, metadata map[string]any) registered {
	h.t.Helper()
	r := h.admin(http.MethodPost, "/admin/v1/clients", admin, metadata)
	if r.status != http.StatusCreated {
		h.t.Fatalf("create client: %d %s", r.status, r.body)
	}
	var c registered
	r.json(h.t, &c)
	return c
}

// assertionSigner signs private_key_jwt assertions for one client.
type assertionSigner struct {
	signer jose.Signer
	jwks   json.RawMessage
}

func newAssertionSigner(t *testing.T) assertionSigner {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	jwk := jose.JSONWebKey{Key: &key.PublicKey, KeyID: "k1", Algorithm: "ES256", Use: "sig"}
	set, err := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{jwk}})
	if err != nil {
		t.Fatal(err)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", "k1"))
	if err != nil {
		t.Fatal(err)
	}
	return assertionSigner{signer: signer, jwks: set}
}

func (a assertionSigner) assertion(t *testing.T, clientID, aud, jti string) string {
	now := time.Now()
	raw, err := jwt.Signed(a.signer).Claims(jwt.Claims{Issuer: clientID, Subject: clientID, Audience: jwt.Audience{aud},
		ID: jti, IssuedAt: jwt.NewNumericDate(now), Expiry: jwt.NewNumericDate(now.Add(time.Minute))}).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func TestNegative(t *testing.T) {
	t.Parallel()
	h := start(t, embedded, func(c *server.Config) { c.Registry = "../../examples/registry.json" })
	admin := h.adminToken()
	wide := h.createClient(admin, map[string]any{"client_name": "wide", "allowed_tools": []string{"*"}, "allowed_audiences": []string{routerAud}})
	narrow := h.createClient(admin, map[string]any{"client_name": "narrow", "allowed_tools": []string{"db_query"}, "allowed_audiences": []string{routerAud}})
	signer := newAssertionSigner(t)
	jwtClient := h.createClient(admin, map[string]any{"client_name": "jwt", "token_endpoint_auth_method": "private_key_jwt",
		"jwks": signer.jwks, "allowed_tools": []string{"*"}, "allowed_audiences": []string{routerAud}})
	disabled := h.createClient(admin, map[string]any{"client_name": "gone", "allowed_tools": []string{"*"}, "allowed_audiences": []string{routerAud}})
	if r := h.admin(http.MethodPost, "/admin/v1/clients/"+disabled.ID+"/disable", admin, nil); r.status != http.StatusOK {
		t.Fatalf("disable: %d %s", r.status, r.body)
	}

	valid := compositionDetails(t, "../../examples/pipeline-valid.json")
	grant := func(kv ...string) url.Values {
		v := url.Values{"grant_type": {"client_credentials"}}
		for i := 0; i < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return v
	}
	notAllowed := func(tool string) verdict.Issue {
		return verdict.Issue{Severity: verdict.SeverityError, Code: "tool_not_allowed", SourceTool: tool,
			Message: "tool " + tool + " is not in the allow-list of client " + narrow.ID}
	}

	tests := []struct {
		name       string
		user, pass string
		form       url.Values
		status     int
		code       string
		issues     []verdict.Issue
		challenge  bool
	}{
		{"wrong secret", wide.ID, "not-the-secret", grant("authorization_details", valid), 401, "invalid_client", nil, true},
		{"unknown client", "", "", grant("client_id", "nobody", "client_secret", "x", "authorization_details", valid), 401, "invalid_client", nil, false},
		{"disabled client", disabled.ID, disabled.Secret, grant("authorization_details", valid), 401, "invalid_client", nil, true},
		{"no credentials", "", "", grant("authorization_details", valid), 401, "invalid_client", nil, false},
		{"tool outside the allow-list", narrow.ID, narrow.Secret, grant("authorization_details", valid), 403, "invalid_authorization_details",
			// The allow-list is checked before validating, so a refused
			// composition carries only the allow-list issues.
			[]verdict.Issue{notAllowed("aggregate_stats"), notAllowed("email_send")}, false},
		{"audience not allowed", wide.ID, wide.Secret, grant("resource", "https://elsewhere.example.com/mcp", "authorization_details", valid), 400, "invalid_target", nil, false},
		{"unknown tool", wide.ID, wide.Secret, grant("authorization_details", `[{"type":"mcp_composition","composition":{"edges":[{"from":"db_query","to":"nope","map":{"rows":"x"}}]}}]`), 403, "invalid_authorization_details",
			nil, false},
		{"malformed authorization_details", wide.ID, wide.Secret, grant("authorization_details", `[{"type":"mcp_composition"}]`), 400, "invalid_authorization_details", nil, false},
		{"malformed composition", wide.ID, wide.Secret, grant("authorization_details", `[{"type":"mcp_composition","composition":{"nodes":"x"}}]`), 400, "invalid_authorization_details", nil, false},
		{"nothing asked", wide.ID, wide.Secret, grant(), 400, "invalid_request", nil, false},
		{"admin scope not allowed", wide.ID, wide.Secret, grant("scope", "typeward:admin"), 400, "invalid_scope", nil, false},
		{"tool scope without a composition", wide.ID, wide.Secret, grant("scope", "mcp:tool:db_query"), 400, "invalid_scope", nil, false},
		{"other grant", wide.ID, wide.Secret, url.Values{"grant_type": {"password"}}, 400, "unsupported_grant_type", nil, false},
		{"a grant the client is not registered for", wide.ID, wide.Secret, url.Values{"grant_type": {"authorization_code"}}, 400, "unauthorized_client", nil, false},
		{"stored composition unknown", wide.ID, wide.Secret, grant("authorization_details", `[{"type":"mcp_composition","composition_id":"nope"}]`), 400, "invalid_authorization_details", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.postForm("/oauth2/token", tt.user, tt.pass, tt.form)
			var got errorAnswer
			r.json(t, &got)
			if r.status != tt.status || got.Error != tt.code {
				t.Fatalf("got %d %s, want %d %s", r.status, r.body, tt.status, tt.code)
			}
			if tt.issues != nil && !reflect.DeepEqual(got.Issues, tt.issues) {
				t.Errorf("issues %+v\nwant   %+v", got.Issues, tt.issues)
			}
			if tt.name == "unknown tool" && (len(got.Issues) == 0 || got.Issues[0].Code != "unknown_tool") {
				t.Errorf("unknown tool issues %+v", got.Issues)
			}
			if r.header.Get("Cache-Control") != "no-store" {
				t.Errorf("Cache-Control %q", r.header.Get("Cache-Control"))
			}
			if has := r.header.Get("WWW-Authenticate") != ""; has != tt.challenge {
				t.Errorf("WWW-Authenticate %q, want one: %v", r.header.Get("WWW-Authenticate"), tt.challenge)
			}
			for _, c := range got.Description {
				if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
					t.Errorf("error_description is not RFC 6749 ASCII: %q", got.Description)
					break
				}
			}
		})
	}

	t.Run("replayed private_key_jwt assertion", func(t *testing.T) {
		assertion := signer.assertion(t, jwtClient.ID, h.base, "jti-1")
		form := grant("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
			"client_assertion", assertion, "authorization_details", valid)
		if r := h.postForm("/oauth2/token", "", "", form); r.status != http.StatusOK {
			t.Fatalf("first use: %d %s", r.status, r.body)
		}
		r := h.postForm("/oauth2/token", "", "", form)
		var got errorAnswer
		r.json(t, &got)
		if r.status != http.StatusUnauthorized || got.Error != "invalid_client" {
			t.Errorf("replay: %d %s", r.status, r.body)
		}
	})

	t.Run("oversized bodies", func(t *testing.T) {
		big := strings.Repeat("a", 5<<20)
		// Declared length: refused before reading.
		r := h.postForm("/oauth2/token", wide.ID, wide.Secret, grant("authorization_details", big))
		if r.status != http.StatusRequestEntityTooLarge {
			t.Errorf("declared oversized token request: %d %s", r.status, r.body)
		}
		// Streamed without a length: cut off while reading.
		req, _ := http.NewRequest(http.MethodPost, h.base+"/oauth2/token", io.MultiReader(strings.NewReader("grant_type=client_credentials&x="), strings.NewReader(big)))
		req.ContentLength = -1
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth(wide.ID, wide.Secret)
		if r := h.do(req); r.status != http.StatusRequestEntityTooLarge {
			t.Errorf("streamed oversized token request: %d %s", r.status, r.body)
		}
		r = h.admin(http.MethodPost, "/admin/v1/compositions:validate", admin, []byte(`{"x":"`+strings.Repeat("a", 9<<20)+`"}`))
		if r.status != http.StatusRequestEntityTooLarge || r.header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("oversized admin request: %d %s", r.status, r.header.Get("Content-Type"))
		}
	})

	t.Run("admin API authentication", func(t *testing.T) {
		if r := h.admin(http.MethodGet, "/admin/v1/tools", "", nil); r.status != http.StatusUnauthorized ||
			r.header.Get("Content-Type") != "application/problem+json" || !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("no token: %d %v", r.status, r.header)
		}
		var tok tokenAnswer
		h.postForm("/oauth2/token", wide.ID, wide.Secret, grant("authorization_details", valid)).json(t, &tok)
		if r := h.admin(http.MethodGet, "/admin/v1/tools", tok.AccessToken, nil); r.status != http.StatusUnauthorized {
			t.Errorf("a tool token (audience of a router) on the admin API: %d %s", r.status, r.body)
		}
		if r := h.admin(http.MethodGet, "/admin/v1/tools", "garbage", nil); r.status != http.StatusUnauthorized {
			t.Errorf("garbage token: %d", r.status)
		}
	})

	t.Run("admin API errors are problem+json", func(t *testing.T) {
		r := h.admin(http.MethodPost, "/admin/v1/clients", admin, map[string]any{"client_name": "", "allowed_tools": []string{"a*b"}})
		var p struct {
			Status   int `json:"status"`
			Problems []struct{ Field, Message string }
		}
		r.json(t, &p)
		if r.status != http.StatusBadRequest || p.Status != 400 || r.header.Get("Content-Type") != "application/problem+json" || len(p.Problems) < 2 {
			t.Errorf("bad registration: %d %s", r.status, r.body)
		}
		if r := h.admin(http.MethodGet, "/admin/v1/tools/nope", admin, nil); r.status != http.StatusNotFound {
			t.Errorf("unknown tool: %d %s", r.status, r.body)
		}
		if r := h.admin(http.MethodGet, "/admin/v1/issuances?outcome=maybe", admin, nil); r.status != http.StatusBadRequest {
			t.Errorf("bad outcome filter: %d %s", r.status, r.body)
		}
	})
}

func TestRateLimit(t *testing.T) {
	t.Parallel()
	h := start(t, embedded, func(c *server.Config) {
		c.Registry = "../../examples/registry.json"
		c.RateLimit, c.RateBurst = 0.001, 2
	})
	demo := h.srv.Demo
	form := url.Values{"grant_type": {"client_credentials"}, "authorization_details": {compositionDetails(t, "../../examples/pipeline-readonly.json")}}
	for i := range 2 {
		if r := h.postForm("/oauth2/token", demo.ID, demo.Secret, form); r.status != http.StatusOK {
			t.Fatalf("request %d: %d %s", i, r.status, r.body)
		}
	}
	r := h.postForm("/oauth2/token", demo.ID, demo.Secret, form)
	var got errorAnswer
	r.json(t, &got)
	if r.status != http.StatusTooManyRequests || got.Error != "rate_limited" || r.header.Get("Retry-After") == "" {
		t.Errorf("third request: %d %v %s", r.status, r.header, r.body)
	}
}
