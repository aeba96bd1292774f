package server_test

import (
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/server"
)

// TestReplicasShareOneDatabase: two replicas on one Postgres sign with the
// same key, see the same clients, registry and revocations.
func TestReplicasShareOneDatabase(t *testing.T) {
	t.Parallel()
	a := start(t, database, func(c *server.Config) { c.Registry = "" })
	b := start(t, database, a.replica)
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

// TestConcurrentRotationsAcrossReplicas: manual rotations sent at once to
// two replicas of one database are one rotation, not one per replica: the
// guard (refused while a rotation is pending) is decided by the store, so
// exactly one is 201 and every other 429 with Retry-After, and one key is
// pending afterwards.
func TestConcurrentRotationsAcrossReplicas(t *testing.T) {
	t.Parallel()
	for _, n := range []int{2, 16} {
		t.Run(strconv.Itoa(n)+" at once", func(t *testing.T) {
			t.Parallel()
			a := start(t, database, func(c *server.Config) { c.Registry = "" })
			b := start(t, database, a.replica)
			admin := a.adminToken()
			var wg sync.WaitGroup
			answers := make([]response, n)
			for i := range n {
				h := a
				if i%2 == 1 {
					h = b
				}
				wg.Go(func() { answers[i] = h.admin(http.MethodPost, "/admin/v1/keys:rotate", admin, nil) })
			}
			wg.Wait()
			created := 0
			for i, r := range answers {
				switch {
				case r.status == http.StatusCreated:
					created++
				case r.status == http.StatusTooManyRequests && r.header.Get("Retry-After") != "":
				default:
					t.Errorf("rotation %d: %d %s (Retry-After %q), want 201 or 429 with Retry-After", i, r.status, r.body, r.header.Get("Retry-After"))
				}
			}
			if created != 1 {
				t.Errorf("%d of %d concurrent rotations on two replicas were made, want 1", created, n)
			}
			var list struct {
				Keys []struct {
					State string `json:"state"`
				} `json:"keys"`
			}
			r := a.admin(http.MethodGet, "/admin/v1/keys", admin, nil)
			r.json(t, &list)
			pending := 0
			for _, k := range list.Keys {
				if k.State == "pending" {
					pending++
				}
			}
			if pending != 1 {
				t.Errorf("%d keys pending after the rotations, want 1: %s", pending, r.body)
			}
		})
	}
}
