package server_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/typeward/typeward/internal/server"
)

// TestProtectedResourcesAdmin: the admin API lists, adds and deletes the
// protected resources, on both stores, with --resources entries first and
// bad input refused with a problem that changes nothing.
func TestProtectedResourcesAdmin(t *testing.T) {
	for _, m := range []mode{embedded, database} {
		t.Run(string(m), func(t *testing.T) {
			t.Parallel()
			h := start(t, m, func(c *server.Config) { c.Resources = []string{"https://static.example/mcp"} })
			admin := h.adminToken()
			list := func() []map[string]any {
				t.Helper()
				r := h.admin(http.MethodGet, "/admin/v1/resources", admin, nil)
				var out struct{ Resources []map[string]any }
				r.json(t, &out)
				if r.status != http.StatusOK {
					t.Fatalf("list: %d %s", r.status, r.body)
				}
				return out.Resources
			}
			if got := list(); len(got) != 1 || got[0]["resource"] != "https://static.example/mcp" || got[0]["static"] != true {
				t.Fatalf("initial list = %v", got)
			}
			r := h.admin(http.MethodPost, "/admin/v1/resources", admin, []byte(`{"resource":"https://router.example/mcp","name":"Router"}`))
			if r.status != http.StatusCreated || !strings.Contains(string(r.body), `"name":"Router"`) {
				t.Fatalf("add: %d %s", r.status, r.body)
			}
			for _, bad := range []struct {
				body   string
				status int
			}{
				{`{"resource":"https://router.example/mcp"}`, http.StatusConflict},
				{`{"resource":"https://static.example/mcp"}`, http.StatusConflict},
				{`{"resource":"router.example/mcp"}`, http.StatusBadRequest},
				{`{"resource":"https://router.example/mcp#frag"}`, http.StatusBadRequest},
				{`{"resource":"` + h.base + `"}`, http.StatusBadRequest},
				{`{"resource":"https://x.example/mcp","extra":1}`, http.StatusBadRequest},
				{`not json`, http.StatusBadRequest},
			} {
				if r := h.admin(http.MethodPost, "/admin/v1/resources", admin, []byte(bad.body)); r.status != bad.status {
					t.Errorf("add %s: %d %s, want %d", bad.body, r.status, r.body, bad.status)
				}
			}
			if got := list(); len(got) != 2 || got[1]["resource"] != "https://router.example/mcp" {
				t.Fatalf("list after add = %v", got)
			}
			del := func(uri string) response {
				return h.admin(http.MethodDelete, "/admin/v1/resources?resource="+url.QueryEscape(uri), admin, nil)
			}
			if r := del("https://static.example/mcp"); r.status != http.StatusBadRequest {
				t.Errorf("deleting a static resource: %d %s", r.status, r.body)
			}
			if r := del("https://nowhere.example/mcp"); r.status != http.StatusNotFound {
				t.Errorf("deleting an unknown resource: %d %s", r.status, r.body)
			}
			if r := h.admin(http.MethodDelete, "/admin/v1/resources", admin, nil); r.status != http.StatusBadRequest {
				t.Errorf("delete without ?resource: %d %s", r.status, r.body)
			}
			if r := del("https://router.example/mcp"); r.status != http.StatusNoContent {
				t.Fatalf("delete: %d %s", r.status, r.body)
			}
			if got := list(); len(got) != 1 {
				t.Errorf("list after delete = %v", got)
			}
		})
	}
}
