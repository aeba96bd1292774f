package server_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/server"
)

// TestReplicasShareOneDatabase: two replicas on one Postgres sign with the
// same key, see the same clients, registry and revocations.
func TestReplicasShareOneDatabase(t *testing.T) {
	t.Parallel()
	a := start(t, database, func(c *server.Config) { c.Registry = "" })
	b := start(t, database, func(c *server.Config) {
		c.Registry = ""
		c.DatabaseURL, c.KEK, c.Pepper = a.cfg.DatabaseURL, a.cfg.KEK, a.cfg.Pepper
		c.AdminClientID, c.AdminClientSecret = a.cfg.AdminClientID, a.cfg.AdminClientSecret
		c.Issuer = a.cfg.Issuer // one issuer behind a load balancer
	})
	admin := a.adminToken()
	for _, name := range []string{"db_query", "aggregate_stats", "email_send"} {
		tool := `{"name":"` + name + `","inputSchema":{"type":"object","properties":{"x":{"type":"string"}}}}`
		if r := a.admin(http.MethodPut, "/admin/v1/tools/"+name, admin, []byte(tool)); r.status != http.StatusCreated {
			t.Fatalf("PUT %s on replica a: %d %s", name, r.status, r.body)
		}
	}
	// Replica b accepts replica a's admin token and sees a's tools.
	if r := b.admin(http.MethodGet, "/admin/v1/tools/db_query", admin, nil); r.status != http.StatusOK {
		t.Fatalf("replica b: %d %s", r.status, r.body)
	}
	c := a.createClient(admin, map[string]any{"client_name": "shared", "allowed_tools": []string{"*"}, "allowed_audiences": []string{routerAud}})
	form := url.Values{"grant_type": {"client_credentials"},
		"authorization_details": {`[{"type":"mcp_composition","composition":{"edges":[{"from":"db_query","to":"aggregate_stats","map":{"$":"x"}}]}}]`}}
	var tok tokenAnswer
	r := b.postForm("/oauth2/token", c.ID, c.Secret, form)
	r.json(t, &tok)
	if r.status != http.StatusOK {
		t.Fatalf("token from replica b: %d %s", r.status, r.body)
	}
	// A tool changed on replica a reaches replica b's caches through
	// LISTEN/NOTIFY: the same request is refused there shortly after.
	if r := a.admin(http.MethodPut, "/admin/v1/tools/aggregate_stats", admin, []byte(`{"name":"aggregate_stats","inputSchema":{"type":"object","properties":{"y":{"type":"string"}}}}`)); r.status != http.StatusCreated {
		t.Fatalf("new version on a: %d %s", r.status, r.body)
	}
	refused := false
	for deadline := time.Now().Add(5 * time.Second); !refused && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		refused = b.postForm("/oauth2/token", c.ID, c.Secret, form).status == http.StatusForbidden
	}
	if !refused {
		t.Errorf("replica b kept issuing for the old schema")
	}

	// Both publish the key that signed it.
	ka := a.get("/.well-known/jwks.json")
	kb := b.get("/.well-known/jwks.json")
	if string(ka.body) != string(kb.body) || ka.header.Get("ETag") != kb.header.Get("ETag") {
		t.Errorf("replicas publish different JWKS:\n%s\n%s", ka.body, kb.body)
	}
	// Active on b until revoked on a, then inactive there.
	var got map[string]any
	b.postForm("/oauth2/introspect", c.ID, c.Secret, url.Values{"token": {tok.AccessToken}}).json(t, &got)
	if got["active"] != true {
		t.Fatalf("replica b does not see replica a's client's token as active: %v", got)
	}
	if r := a.postForm("/oauth2/revoke", c.ID, c.Secret, url.Values{"token": {tok.AccessToken}}); r.status != http.StatusOK {
		t.Fatalf("revoke: %d", r.status)
	}
	got = nil
	b.postForm("/oauth2/introspect", c.ID, c.Secret, url.Values{"token": {tok.AccessToken}}).json(t, &got)
	if got["active"] != false {
		t.Errorf("replica b still sees the revoked token active: %v", got)
	}
}
