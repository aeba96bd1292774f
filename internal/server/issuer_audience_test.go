package server_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/server"
	"github.com/typeward/typeward/internal/store/postgres"
)

// TestNoToolTokenForTheIssuer: a client whose only allowed audience is
// the issuer (made before registration refused it, or with `typeward
// clients create` run without TYPEWARD_ISSUER, which cannot know it) gets
// no tool token for typeward itself, whether it names the issuer as its
// resource or leaves the resource out to default to that one audience.
func TestNoToolTokenForTheIssuer(t *testing.T) {
	t.Parallel()
	h := start(t, database, func(c *server.Config) { c.Registry = "" })
	admin := h.adminToken()
	tool := `{"name":"db_query","inputSchema":{"type":"object","properties":{"x":{"type":"string"}}}}`
	if r := h.admin(http.MethodPut, "/admin/v1/tools/db_query", admin, []byte(tool)); r.status != http.StatusCreated {
		t.Fatalf("PUT db_query: %d %s", r.status, r.body)
	}
	hasher, err := clients.NewHasher(h.cfg.Pepper)
	if err != nil {
		t.Fatal(err)
	}
	for _, aud := range []string{h.cfg.Issuer, h.cfg.Issuer + "/"} {
		// As the CLI registers a client: no issuer to compare with.
		c, secret, err := clients.Register(context.Background(), postgres.NewClients(h.srv.DB()), hasher, clients.Registration{
			ClientName: "issuer audience", AllowedTools: []string{"*"}, AllowedAudiences: []string{aud}}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct{ name, resource string }{
			{"resource left out", ""},
			{"resource the issuer", h.cfg.Issuer},
			{"resource the issuer with a slash", h.cfg.Issuer + "/"},
		} {
			t.Run(aud+"/"+tc.name, func(t *testing.T) {
				form := url.Values{"grant_type": {"client_credentials"},
					"authorization_details": {`[{"type":"mcp_composition","composition":{"nodes":[{"id":"q","tool":"db_query"}]}}]`}}
				if tc.resource != "" {
					form.Set("resource", tc.resource)
				}
				var got struct{ Error string }
				r := h.postForm("/oauth2/token", c.ID, secret, form)
				r.json(t, &got)
				if r.status != http.StatusBadRequest || got.Error != "invalid_target" {
					t.Errorf("%d %.300s, want 400 invalid_target", r.status, r.body)
				}
			})
		}
	}
}
