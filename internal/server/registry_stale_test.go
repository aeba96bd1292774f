package server_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/typeward/typeward/internal/server"
)

// TestStaleCompositionsAreReportedOnEveryReplica: a stored composition
// whose validation no longer stands, because a tool it used has a new
// version or a stored composition it references has another definition,
// is reported stale by the admin API of every replica (the recorded valid
// true said nothing of the registry as it is), and a token for it is
// refused on the other replica once the change breaks it.
func TestStaleCompositionsAreReportedOnEveryReplica(t *testing.T) {
	t.Parallel()
	a := start(t, database, func(c *server.Config) { c.Registry = "" })
	b := start(t, database, a.replica)
	admin := a.adminToken()
	put := func(h *harness, path, body string, want int) {
		t.Helper()
		if r := h.admin(http.MethodPut, "/admin/v1"+path, admin, []byte(body)); r.status != want {
			t.Fatalf("PUT %s: %d %s", path, r.status, r.body)
		}
	}
	type stored struct {
		Name       string `json:"name"`
		Stale      *bool  `json:"stale"`
		Validation struct {
			Valid bool `json:"valid"`
		} `json:"validation"`
	}
	staleOn := func(h *harness, name string) bool {
		t.Helper()
		r := h.admin(http.MethodGet, "/admin/v1/compositions/"+name, admin, nil)
		var c stored
		r.json(t, &c)
		if r.status != http.StatusOK || c.Stale == nil {
			t.Fatalf("GET composition %s: %d %s (want a stale member)", name, r.status, r.body)
		}
		var list struct {
			Compositions []stored `json:"compositions"`
		}
		r = h.admin(http.MethodGet, "/admin/v1/compositions", admin, nil)
		r.json(t, &list)
		for _, l := range list.Compositions {
			if l.Name == name && (l.Stale == nil || *l.Stale != *c.Stale) {
				t.Errorf("GET /compositions says %s stale=%v, GET /compositions/%s %v", name, l.Stale, name, *c.Stale)
			}
		}
		return *c.Stale
	}
	put(a, "/tools/src", `{"name":"src","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}}`, http.StatusCreated)
	put(a, "/tools/dst", `{"name":"dst","inputSchema":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}}`, http.StatusCreated)
	put(a, "/tools/sink", `{"name":"sink","inputSchema":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}}`, http.StatusCreated)
	put(a, "/compositions/pipe", `{"edges":[{"from":"src","to":"dst","map":{"x":"x"}}]}`, http.StatusOK)
	put(a, "/compositions/inner", `{"edges":[{"from":"src","to":"sink","map":{"x":"x"}}]}`, http.StatusOK)
	put(a, "/compositions/outer", `{"nodes":[{"id":"s","composition":"inner"}]}`, http.StatusOK)
	for _, h := range []*harness{a, b} {
		for _, name := range []string{"pipe", "inner", "outer"} {
			if staleOn(h, name) {
				t.Errorf("%s is stale right after it was validated", name)
			}
		}
	}
	c := a.createClient(admin, map[string]any{"client_name": "stale", "allowed_tools": []string{"*"}, "allowed_audiences": []string{routerAud}})
	token := func(h *harness, id string) int {
		form := url.Values{"grant_type": {"client_credentials"}, "resource": {routerAud},
			"authorization_details": {`[{"type":"mcp_composition","composition_id":"` + id + `"}]`}}
		return h.postForm("/oauth2/token", c.ID, c.Secret, form).status
	}
	if s := token(b, "outer"); s != http.StatusOK {
		t.Fatalf("token for outer on b: %d", s)
	}

	// A new version of dst that pipe's mapping breaks.
	put(a, "/tools/dst", `{"name":"dst","inputSchema":{"type":"object","properties":{"x":{"type":"integer"}},"required":["x"]}}`, http.StatusCreated)
	// inner maps into a field sink does not have, which outer flattens.
	put(a, "/compositions/inner", `{"edges":[{"from":"src","to":"sink","map":{"x":"y"}}]}`, http.StatusOK)
	for _, h := range []*harness{a, b} {
		if !staleOn(h, "pipe") {
			t.Errorf("pipe is not reported stale after dst changed")
		}
		if !staleOn(h, "outer") {
			t.Errorf("outer is not reported stale after the composition it references changed")
		}
		if staleOn(h, "inner") {
			t.Errorf("inner, validated when stored, is reported stale")
		}
	}
	if s := token(b, "outer"); s != http.StatusForbidden {
		t.Errorf("token for outer on b after inner broke: %d, want 403", s)
	}
	if s := token(b, "pipe"); s != http.StatusForbidden {
		t.Errorf("token for pipe on b after dst broke: %d, want 403", s)
	}
	// Revalidated (on b), outer records the new inner: no longer stale,
	// and invalid.
	r := b.admin(http.MethodPost, "/admin/v1/compositions/outer/revalidate", admin, nil)
	var rec struct {
		Composition stored `json:"composition"`
	}
	if err := json.Unmarshal(r.body, &rec); err != nil || r.status != http.StatusOK {
		t.Fatalf("revalidate: %d %s", r.status, r.body)
	}
	if rec.Composition.Stale == nil || *rec.Composition.Stale || rec.Composition.Validation.Valid {
		t.Errorf("revalidated outer = %s, want fresh and invalid", r.body)
	}
	if staleOn(a, "outer") {
		t.Errorf("a still reports outer stale after b revalidated it")
	}
}
