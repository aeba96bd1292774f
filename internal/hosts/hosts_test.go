package hosts_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/typeward/typeward/internal/cimd"
	"github.com/typeward/typeward/internal/cimd/cimdtest"
	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/hosts"
	"github.com/typeward/typeward/internal/resources"
	"github.com/typeward/typeward/internal/store/memory"
)

const issuer = "https://auth.example"

type fixture struct {
	base    string
	mux     *http.ServeMux
	hosts   *hosts.Clients
	store   *memory.Clients
	catalog *resources.List
}

func newFixture(t testing.TB) *fixture {
	ca := cimdtest.NewCA(t)
	f := &fixture{mux: http.NewServeMux(), store: memory.NewClients()}
	f.base = ca.Server(t, f.mux).URL
	f.catalog = &resources.List{Static: []resources.Resource{{URI: "https://router.example/mcp", Static: true}}, Store: memory.NewResources(), Issuer: issuer}
	f.hosts = &hosts.Clients{Store: f.store, Documents: cimd.New(cimd.Config{RootCAs: ca.Pool(), AllowLoopback: true}),
		Resources: f.catalog, Issuer: issuer}
	return f
}

func (f *fixture) serve(path string, doc any) string {
	body, _ := json.Marshal(doc)
	f.mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})
	return f.base + path
}

func TestADocumentIsAHostWithTheProtectedResources(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if _, err := f.catalog.Add(ctx, resources.Resource{URI: "https://second.example/mcp"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	id := f.base + "/client.json"
	f.serve("/client.json", map[string]any{"client_id": id, "client_name": "Desk host",
		"redirect_uris": []string{"http://127.0.0.1:3334/callback"}, "grant_types": []string{"authorization_code", "refresh_token"},
		"scope": "mcp:composition:nightly offline_access"})
	c, err := f.hosts.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if c.ID != id || c.Name != "Desk host" || c.TokenEndpointAuthMethod != clients.None || !c.AllowsGrant(clients.GrantRefreshToken) ||
		c.AllowsGrant(clients.GrantClientCredentials) || !c.AllowsTool("any/tool") || c.Approval != clients.ApprovalMutating ||
		!slices.Equal(c.AllowedAudiences, []string{"https://router.example/mcp", "https://second.example/mcp"}) ||
		!slices.Equal(c.Scope, []string{"mcp:composition:nightly", "offline_access"}) {
		t.Errorf("client = %+v", c)
	}
}

func TestADocumentTypewardRefusesIsNoClient(t *testing.T) {
	f := newFixture(t)
	for name, doc := range map[string]map[string]any{
		"an open redirect":       {"redirect_uris": []string{"http://evil.example/cb"}},
		"a fragment":             {"redirect_uris": []string{"https://host.example/cb#x"}},
		"client_credentials":     {"grant_types": []string{"client_credentials"}},
		"a name with a control":  {"client_name": "a\x07b"},
		"an unknown grant":       {"grant_types": []string{"password"}},
		"refresh without a code": {"grant_types": []string{"refresh_token"}},
	} {
		t.Run(name, func(t *testing.T) {
			id := f.base + "/" + url.PathEscape(name)
			d := map[string]any{"client_id": id, "client_name": "x", "redirect_uris": []string{"http://127.0.0.1/cb"}}
			for k, v := range doc {
				d[k] = v
			}
			f.serve("/"+url.PathEscape(name), d)
			_, err := f.hosts.Get(context.Background(), id)
			var refused *cimd.Error
			if !errors.Is(err, clients.ErrNotFound) || !errors.As(err, &refused) || refused.Reason != cimd.ReasonInvalid {
				t.Errorf("err = %v, want ErrNotFound with the document's refusal", err)
			}
			if testing.Verbose() {
				t.Log(err)
			}
		})
	}
}

// A document's scope values a host may not ask for (openid, a scope it
// is not allowed, a value twice) are dropped, not the host refused: a host
// publishes one scope for every server it talks to (RFC 7591 §3.2.1 lets
// the server replace requested values). Before, each refused the host.
func TestADocumentsScopeKeepsWhatTheHostMayAskFor(t *testing.T) {
	f := newFixture(t)
	for scope, want := range map[string]string{
		"openid mcp:tool:db_query profile":         "mcp:tool:db_query",
		"mcp:resources offline_access":             "offline_access",
		"mcp:tool:a mcp:tool:a  mcp:composition:n": "mcp:tool:a mcp:composition:n",
		"openid": "",
		"mcp:tool:a\u0007 mcp:composition: offline_access": "offline_access",
	} {
		t.Run(scope, func(t *testing.T) {
			id := f.base + "/" + url.PathEscape(scope)
			f.serve("/"+url.PathEscape(scope), map[string]any{"client_id": id, "client_name": "x",
				"redirect_uris": []string{"http://127.0.0.1/cb"}, "scope": scope})
			c, err := f.hosts.Get(context.Background(), id)
			if err != nil || strings.Join(c.Scope, " ") != want {
				t.Errorf("scope %q: %v, %v; want %q", scope, c.Scope, err, want)
			}
		})
	}
}

func TestStoredClientsKeepTheirAudiences(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	machine, _, err := clients.Register(ctx, f.store, clients.NewRandomHasher(), clients.Registration{ClientName: "etl",
		AllowedTools: []string{"*"}, AllowedAudiences: []string{"https://etl.example/mcp"}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	// A registered host: the authorization code grant, no audiences of its own.
	host, _, err := hosts.New(hosts.Metadata{Name: "host", Method: clients.None, RedirectURIs: []string{"http://127.0.0.1/cb"}}, nil, issuer, time.Now())
	if err != nil {
		t.Fatalf("a host without audiences is refused: %v", err)
	}
	if err := f.store.Create(ctx, host); err != nil {
		t.Fatal(err)
	}
	if c, err := f.hosts.Get(ctx, machine.ID); err != nil || !slices.Equal(c.AllowedAudiences, []string{"https://etl.example/mcp"}) {
		t.Errorf("machine client audiences = %v, %v", c.AllowedAudiences, err)
	}
	if c, err := f.hosts.Get(ctx, host.ID); err != nil || !slices.Equal(c.AllowedAudiences, []string{"https://router.example/mcp"}) {
		t.Errorf("host audiences = %v, %v; want the protected resources", c.AllowedAudiences, err)
	}
	// Without a fetcher a URL is simply no client.
	off := &hosts.Clients{Store: f.store}
	if _, err := off.Get(ctx, f.base+"/client.json"); !errors.Is(err, clients.ErrNotFound) {
		t.Errorf("no fetcher: %v, want ErrNotFound", err)
	}
}

// A private_key_jwt host authenticates at the token endpoint with an
// assertion signed by a key its document's jwks_uri publishes.
func TestADocumentHostAuthenticatesWithItsPublishedKey(t *testing.T) {
	f := newFixture(t)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k1", Algorithm: "ES256", Use: "sig"}}}
	f.serve("/jwks.json", set)
	id := f.base + "/confidential.json"
	f.serve("/confidential.json", map[string]any{"client_id": id, "client_name": "Server host",
		"redirect_uris": []string{"https://host.example/cb"}, "token_endpoint_auth_method": "private_key_jwt", "jwks_uri": f.base + "/jwks.json"})
	auth, err := clients.NewAuthenticator(clients.AuthenticatorConfig{Clients: f.hosts, Hasher: clients.NewRandomHasher(),
		Replay: memory.NewAssertionReplay(), Issuer: issuer})
	if err != nil {
		t.Fatal(err)
	}
	assertion := func(signer *ecdsa.PrivateKey) url.Values {
		s, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: signer}, (&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", "k1"))
		now := time.Now()
		payload, _ := json.Marshal(map[string]any{"iss": id, "sub": id, "aud": issuer, "iat": now.Unix(),
			"exp": now.Add(time.Minute).Unix(), "jti": rand.Text()})
		obj, _ := s.Sign(payload)
		compact, _ := obj.CompactSerialize()
		return url.Values{"client_assertion_type": {clients.JWTBearerAssertionType}, "client_assertion": {compact}}
	}
	c, err := auth.Authenticate(context.Background(), assertion(key), "")
	if err != nil || c.ID != id {
		t.Fatalf("authenticate = %v, %v", c, err)
	}
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	var ae *clients.AuthError
	if _, err := auth.Authenticate(context.Background(), assertion(other), ""); !errors.As(err, &ae) || ae.Code != clients.InvalidClient {
		t.Errorf("an assertion signed by another key: %v, want invalid_client", err)
	}
}
