package oauth_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/audit"
	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/oauth"
	"github.com/typeward/typeward/internal/ratelimit"
	"github.com/typeward/typeward/internal/registration"
	"github.com/typeward/typeward/internal/store/memory"
)

const host = `{"client_name":"Desk host","redirect_uris":["http://127.0.0.1:3334/callback"],
	"grant_types":["authorization_code","refresh_token"],"response_types":["code"],"token_endpoint_auth_method":"none"}`

type registrar struct {
	*oauth.Registrar
	clients *memory.Clients
	audit   *memory.Audit
	now     time.Time
}

func newRegistrar(t *testing.T, mode registration.Mode) *registrar {
	limiter, err := oauth.NewRegistrationLimiter()
	if err != nil {
		t.Fatal(err)
	}
	r := &registrar{clients: memory.NewClients(), audit: memory.NewAudit(100), now: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)}
	r.Registrar = &oauth.Registrar{Mode: mode, Store: memory.NewRegistrations(r.clients), Hasher: clients.NewRandomHasher(),
		Audit: r.audit, Limiter: limiter, Issuer: "https://auth.example", Now: func() time.Time { return r.now }}
	return r
}

func (r *registrar) count(t *testing.T) int {
	list, err := r.clients.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return len(list)
}

func codeOf(err error) string {
	var e *oauth.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return "not an oauth.Error: " + err.Error()
}

func TestRegisterAPublicHost(t *testing.T) {
	r := newRegistrar(t, registration.Open)
	resp, err := r.Register(context.Background(), []byte(host), "192.0.2.7:5000", "")
	if err != nil {
		t.Fatal(err)
	}
	if resp.ClientID == "" || resp.ClientSecret != "" || resp.ClientSecretExpiresAt != nil || resp.TokenEndpointAuthMethod != "none" ||
		strings.Join(resp.GrantTypes, " ") != "authorization_code refresh_token" || resp.ApplicationType != "web" || resp.ClientName != "Desk host" {
		t.Errorf("response = %+v", resp)
	}
	c, err := r.clients.Get(context.Background(), resp.ClientID)
	if err != nil || c.TokenEndpointAuthMethod != clients.None || len(c.AllowedAudiences) != 0 || !c.AllowsTool("x/y") {
		t.Fatalf("stored = %+v, %v", c, err)
	}
	// The RFC 7591 scope is kept and answered (§3.2.1).
	resp, err = r.Register(context.Background(), []byte(`{"redirect_uris":["http://127.0.0.1/cb"],"token_endpoint_auth_method":"none",
		"scope":"mcp:composition:nightly mcp:tool:db_query offline_access"}`), "192.0.2.7:5000", "")
	if err != nil || resp.Scope != "mcp:composition:nightly mcp:tool:db_query offline_access" {
		t.Fatalf("with a scope: %+v, %v", resp, err)
	}
	if c, err := r.clients.Get(context.Background(), resp.ClientID); err != nil || strings.Join(c.Scope, " ") != resp.Scope {
		t.Errorf("stored scope: %+v, %v", c, err)
	}
	// Values it may not ask for are dropped, not the host refused (RFC 7591
	// §3.2.1: the server may replace them; the answer says what was kept).
	resp, err = r.Register(context.Background(), []byte(`{"redirect_uris":["http://127.0.0.1/cb"],"token_endpoint_auth_method":"none",
		"scope":"openid mcp:tool:db_query  mcp:resources mcp:tool:db_query"}`), "192.0.2.7:5000", "")
	if err != nil || resp.Scope != "mcp:tool:db_query" {
		t.Fatalf("with scope values it may not ask for: %+v, %v", resp, err)
	}
	if c, err := r.clients.Get(context.Background(), resp.ClientID); err != nil || strings.Join(c.Scope, " ") != "mcp:tool:db_query" {
		t.Errorf("stored scope: %+v, %v", c, err)
	}
	// A confidential host gets its secret once, by RFC 7591's default method.
	resp, err = r.Register(context.Background(), []byte(`{"client_name":"Server host","redirect_uris":["https://host.example/cb"]}`), "192.0.2.7:5000", "")
	if err != nil || resp.ClientSecret == "" || resp.TokenEndpointAuthMethod != "client_secret_basic" || resp.ClientSecretExpiresAt == nil {
		t.Errorf("confidential: %+v, %v", resp, err)
	}
}

func TestRegisterRefusesBadMetadataAndStoresNothing(t *testing.T) {
	for _, tc := range []struct{ name, body, code string }{
		{"not JSON", `redirect_uris=x`, oauth.CodeInvalidClientMetadata},
		{"two objects", host + host, oauth.CodeInvalidClientMetadata},
		{"a repeated member", `{"client_name":"a","client_name":"b","redirect_uris":["http://127.0.0.1/cb"]}`, oauth.CodeInvalidClientMetadata},
		{"a folded member", `{"Redirect_URIs":["https://evil.example/cb"],"redirect_uris":["http://127.0.0.1/cb"]}`, oauth.CodeInvalidClientMetadata},
		{"no redirect_uris", `{"client_name":"a","token_endpoint_auth_method":"none"}`, oauth.CodeInvalidRedirectURI},
		{"an http redirect off loopback", `{"redirect_uris":["http://evil.example/cb"],"token_endpoint_auth_method":"none"}`, oauth.CodeInvalidRedirectURI},
		{"a fragment", `{"redirect_uris":["https://h.example/cb#f"],"token_endpoint_auth_method":"none"}`, oauth.CodeInvalidRedirectURI},
		{"client_credentials", `{"redirect_uris":["https://h.example/cb"],"grant_types":["authorization_code","client_credentials"]}`, oauth.CodeInvalidClientMetadata},
		{"implicit", `{"redirect_uris":["https://h.example/cb"],"response_types":["token"]}`, oauth.CodeInvalidClientMetadata},
		{"a bad application_type", `{"redirect_uris":["https://h.example/cb"],"application_type":"desktop"}`, oauth.CodeInvalidClientMetadata},
		{"an unknown method", `{"redirect_uris":["https://h.example/cb"],"token_endpoint_auth_method":"client_secret_jwt"}`, oauth.CodeInvalidClientMetadata},
		{"a jwks_uri", `{"redirect_uris":["https://h.example/cb"],"token_endpoint_auth_method":"private_key_jwt","jwks_uri":"https://h.example/jwks"}`, oauth.CodeInvalidClientMetadata},
		{"a wrong type", `{"redirect_uris":"https://h.example/cb"}`, oauth.CodeInvalidClientMetadata},
		{"a scope that is not a string", `{"redirect_uris":["https://h.example/cb"],"scope":["mcp:tool:a"]}`, oauth.CodeInvalidClientMetadata},
		{"a control in the name", `{"client_name":"a\u0007","redirect_uris":["https://h.example/cb"]}`, oauth.CodeInvalidClientMetadata},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRegistrar(t, registration.Open)
			_, err := r.Register(context.Background(), []byte(tc.body), "192.0.2.7:5000", "")
			if got := codeOf(err); got != tc.code {
				t.Errorf("code = %s (%v), want %s", got, err, tc.code)
			}
			if n := r.count(t); n != 0 {
				t.Errorf("%d clients stored", n)
			}
		})
	}
}

// A registration flood from one address is refused past the burst, and
// the cap on unused registrations holds whatever the addresses.
func TestRegistrationFloodIsBounded(t *testing.T) {
	r := newRegistrar(t, registration.Open)
	ctx := context.Background()
	for i := range oauth.RegistrationBurst {
		if _, err := r.Register(ctx, []byte(host), "192.0.2.7:1000", ""); err != nil {
			t.Fatalf("registration %d: %v", i, err)
		}
	}
	_, err := r.Register(ctx, []byte(host), "192.0.2.7:2000", "")
	var e *oauth.Error
	if !errors.As(err, &e) || e.Kind != oauth.KindRateLimited || e.RetryAfter <= 0 {
		t.Fatalf("past the burst: %v, want 429 with a wait", err)
	}
	if _, err := r.Register(ctx, []byte(host), "198.51.100.1:1000", ""); err != nil {
		t.Errorf("another address is limited too: %v", err)
	}

	capped := newRegistrar(t, registration.Open)
	capped.MaxUnused = 3
	for i := range 3 {
		if _, err := capped.Register(ctx, []byte(host), "192.0.2."+string(rune('1'+i))+":1", ""); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := capped.Register(ctx, []byte(host), "203.0.113.9:1", ""); !errors.As(err, &e) || e.Kind != oauth.KindRateLimited {
		t.Fatalf("past the cap: %v, want 429", err)
	}
	if n := capped.count(t); n != 3 {
		t.Errorf("%d clients stored past a cap of 3", n)
	}
}

func TestRegistrationTokenMode(t *testing.T) {
	r := newRegistrar(t, registration.Token)
	ctx := context.Background()
	for _, auth := range []string{"", "Basic x", "Bearer nope"} {
		if _, err := r.Register(ctx, []byte(host), "192.0.2.7:1", auth); codeOf(err) != oauth.CodeInvalidToken {
			t.Errorf("Authorization %q: %v, want invalid_token", auth, err)
		}
	}
	token, exp, err := r.NewToken(ctx, time.Hour)
	if err != nil || !exp.Equal(r.now.Add(time.Hour)) {
		t.Fatalf("NewToken = %v, %v", exp, err)
	}
	if _, err := r.Register(ctx, []byte(host), "192.0.2.7:1", "Bearer "+token); err != nil {
		t.Fatalf("with the token: %v", err)
	}
	if _, err := r.Register(ctx, []byte(host), "192.0.2.7:1", "Bearer "+token); codeOf(err) != oauth.CodeInvalidToken {
		t.Errorf("the token spent twice: %v", err)
	}
	late, _, _ := r.NewToken(ctx, time.Minute)
	r.now = r.now.Add(2 * time.Minute)
	if _, err := r.Register(ctx, []byte(host), "192.0.2.7:1", "Bearer "+late); codeOf(err) != oauth.CodeInvalidToken {
		t.Errorf("an expired token: %v", err)
	}
	for _, ttl := range []time.Duration{time.Second, oauth.MaxAccessTokenTTL + time.Hour} {
		if _, _, err := r.NewToken(ctx, ttl); !errors.Is(err, oauth.ErrInvalidAccessTokenTTL) {
			t.Errorf("NewToken(%s) = %v", ttl, err)
		}
	}
	if n := r.count(t); n != 1 {
		t.Errorf("%d clients stored, want 1", n)
	}
}

// Sweep marks a registration used once its client was issued a token and
// deletes, with its client, one never used for a day.
func TestSweepExpiresNeverUsedRegistrations(t *testing.T) {
	r := newRegistrar(t, registration.Open)
	ctx := context.Background()
	var ids []string
	for range 3 {
		resp, err := r.Register(ctx, []byte(host), "192.0.2.7:1", "")
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, resp.ClientID)
	}
	if err := r.audit.Append(ctx, &audit.Issuance{Time: r.now.Add(time.Minute), ClientID: ids[0], Outcome: audit.Issued, JTI: "j"}); err != nil {
		t.Fatal(err)
	}
	if err := r.audit.Append(ctx, &audit.Issuance{Time: r.now.Add(time.Minute), ClientID: ids[1], Outcome: audit.Denied, Reason: "x"}); err != nil {
		t.Fatal(err)
	}
	used, expired, err := r.Sweep(ctx)
	if err != nil || used != 1 || expired != 0 {
		t.Fatalf("first sweep = %d used, %d expired, %v", used, expired, err)
	}
	r.now = r.now.Add(25 * time.Hour)
	used, expired, err = r.Sweep(ctx)
	if err != nil || used != 0 || expired != 2 {
		t.Fatalf("a day later = %d used, %d expired, %v", used, expired, err)
	}
	if _, err := r.clients.Get(ctx, ids[0]); err != nil {
		t.Errorf("the used client went: %v", err)
	}
	for _, id := range ids[1:] {
		if _, err := r.clients.Get(ctx, id); !errors.Is(err, clients.ErrNotFound) {
			t.Errorf("never-used client %s remains: %v", id, err)
		}
	}
}

// FuzzRegister: no registration body panics, and whatever is accepted
// is a host with only the grants a person's consent stands behind.
func FuzzRegister(f *testing.F) {
	for _, seed := range []string{host, `{}`, `{"redirect_uris":["https://h.example/cb"],"jwks":{"keys":[]}}`,
		`{"redirect_uris":["http://127.0.0.1/cb"],"grant_types":["client_credentials"]}`, `[]`, `null`, `{"redirect_uris":[1]}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r := newRegistrar(t, registration.Open)
		r.Limiter, _ = ratelimit.New(ratelimit.Config{Rate: 1e6, Burst: 1e6})
		resp, err := r.Register(context.Background(), body, "192.0.2.7:1", "")
		if err != nil {
			var e *oauth.Error
			if !errors.As(err, &e) || e.Kind != oauth.KindBadRequest {
				t.Fatalf("a refusal that is not a 400: %v", err)
			}
			return
		}
		c, err := r.clients.Get(context.Background(), resp.ClientID)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range c.GrantTypes {
			if g != clients.GrantAuthorizationCode && g != clients.GrantRefreshToken {
				t.Fatalf("a registered host got grant %q", g)
			}
		}
		if len(c.RedirectURIs) == 0 || len(c.AllowedAudiences) != 0 {
			t.Fatalf("registered %+v", c)
		}
	})
}
